// Fault injection's mechanism: carries out on one request the fault the policy chose for it
// (core/faults/ingest-faults.ts) — a delay, an error answer, or a connection closed unanswered. A
// faulted request's body is read (so its size is known and the connection stays usable) but never
// stored: the client sends it again, and the request after the fault ends is stored once.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultedRequest } from '../../../shared/channels/faults.ts';
import { INGEST_MAX_REQUEST_BYTES } from '../../../shared/limits.ts';
import { RELEASED_BY_RESET, type AppliedFault } from '../faults/ingest-faults.ts';
import { isGzip } from './read-body.ts';

export interface FaultRun {
  req: IncomingMessage;
  res: ServerResponse;
  fault: AppliedFault;
  /** The path as requested (/v1/t), for the record. */
  path: string;
  /** Aborted when the endpoint closes: a delay ends at once. */
  stopping: AbortSignal;
  /** The source a write key names (by name), or null. */
  sourceOf(writeKey: string | undefined): string | null;
  /** The write key of the request's Authorization header, if any. */
  authorizationKey: string | undefined;
  note(request: Omit<FaultedRequest, 'at'>): void;
}

/**
 * Applies the fault: resolves true when the request was answered (or dropped) here, false when it goes
 * on to be handled as usual (a delay alone, or a delay cut short by the endpoint closing: the caller
 * then answers 503 shutting_down). A client that hangs up during a delay is not handled further: it saw
 * a failure and sends its request again, which would otherwise be stored twice. A request a reset lets
 * go of is answered 503 `reset` and neither stored nor recorded: it belongs to the test that ended, and
 * would otherwise appear in the next test's messages and faulted requests.
 */
export async function applyFault(run: FaultRun): Promise<boolean> {
  const { req, res, fault } = run;
  const reset = () => fault.released.aborted && fault.released.reason === RELEASED_BY_RESET;
  const note = (request: Omit<FaultedRequest, 'at'>) => {
    if (!reset()) run.note(request);
  };
  const retryCount = Number(req.headers['x-retry-count']);
  const base = {
    path: run.path.slice(0, 200),
    faultId: fault.id,
    status: null,
    delayMs: fault.delayMs,
    retryCount: Number.isInteger(retryCount) && retryCount >= 0 ? retryCount : null,
  };
  if (fault.delayMs !== null) {
    const hungUp = new AbortController();
    const onClose = () => hungUp.abort();
    res.once('close', onClose);
    await sleep(fault.delayMs, undefined, { signal: AbortSignal.any([fault.released, run.stopping, hungUp.signal]) }).catch(() => undefined);
    res.off('close', onClose);
    if (hungUp.signal.aborted || res.destroyed) {
      note({ ...base, outcome: 'delayed', source: run.sourceOf(run.authorizationKey), bytes: declaredBytes(req) });
      return true;
    }
    if (run.stopping.aborted) return false;
    if (reset()) {
      answer(res, 503, 'reset', 'Sluice was reset (a test ended) while a fault held this request: it was not stored; send it again', true);
      return true;
    }
    if (fault.status === null && !fault.drop) {
      note({ ...base, outcome: 'delayed', source: run.sourceOf(run.authorizationKey), bytes: declaredBytes(req) });
      return false;
    }
  }
  const body = await drain(req);
  const source = run.sourceOf(run.authorizationKey ?? bodyWriteKey(body.bytes));
  if (fault.drop) {
    note({ ...base, outcome: 'dropped', source, bytes: body.size });
    req.socket.destroy();
    return true;
  }
  note({ ...base, outcome: 'answered', status: fault.status, source, bytes: body.size });
  const message = `a test made Sluice answer ${fault.status} (fault ${fault.id}); the request was not stored: send it again`;
  // A body past the limit was not read to its end: the connection cannot carry another request.
  answer(res, fault.status!, 'fault_injected', message, body.cut, fault.retryAfter);
  return true;
}

/** Answers `{"success": false, "error": {code, message}}`; `close`: the connection carries no further request. */
function answer(res: ServerResponse, status: number, code: string, message: string, close: boolean, retryAfter: number | null = null): void {
  const text = JSON.stringify({ success: false, error: { code, message } });
  const headers: Record<string, string | number> = { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) };
  if (retryAfter !== null) headers['Retry-After'] = String(retryAfter);
  if (close) headers.Connection = 'close';
  res.writeHead(status, headers);
  res.end(text);
}

function declaredBytes(req: IncomingMessage): number | null {
  const declared = Number(req.headers['content-length']);
  return Number.isFinite(declared) ? declared : null;
}

/** Reads the body to its end (keeping at most INGEST_MAX_REQUEST_BYTES of it): its size on the wire, and whether it was cut. */
async function drain(req: IncomingMessage): Promise<{ size: number; bytes: Buffer | null; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > INGEST_MAX_REQUEST_BYTES) return { size, bytes: null, cut: true };
      chunks.push(chunk);
    }
  } catch {
    return { size, bytes: null, cut: true }; // the client went away mid-body
  }
  return { size, bytes: Buffer.concat(chunks), cut: false };
}

/** The `writeKey` of a plain JSON body (analytics.js puts it there rather than in Authorization), else undefined. */
function bodyWriteKey(bytes: Buffer | null): string | undefined {
  if (!bytes || bytes.length === 0 || isGzip(bytes)) return undefined;
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as unknown;
    const key = typeof parsed === 'object' && parsed !== null ? (parsed as { writeKey?: unknown }).writeKey : undefined;
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}
