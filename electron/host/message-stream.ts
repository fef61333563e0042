/**
 * `GET /api/v1/messages/stream`: the stored messages as they come, one JSON object per line
 * (`{"message": {...}, "deliveries": [...]}`, core/queries/message-follow.ts), for `sluice tail` and
 * any script. The response stays open until the client hangs up or Sluice stops (then it ends: the
 * client reads the end of the body). Backpressure: a line is written only once the previous ones have
 * drained to the socket, so a client that reads slowly costs one page of messages here, never more;
 * it falls behind in the store instead, and loses nothing.
 */
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import type { HttpApiCore } from '../core/api/operations/index.ts';
import { followMessages, MAX_SETTLE_MS, type FollowOptions } from '../core/queries/message-follow.ts';
import { parseQuery } from '../../shared/message-query.ts';
import { parseWhen, WHEN_FORMS } from '../core/transfer/when.ts';

/** The query parameters the stream reads. */
export const STREAM_PARAMS = ['search', 'since', 'settleMs'] as const;

/** A parameter the stream cannot use: the HTTP API answers it 400 invalid_request with this sentence. */
export class StreamRequestError extends Error {}

/** The options a stream request asks for; a StreamRequestError (or the search's QueryError) when one cannot be used. */
export function streamOptions(params: URLSearchParams, now: number): FollowOptions {
  const options: FollowOptions = {};
  for (const name of STREAM_PARAMS) {
    if (params.get(name) === '') throw new StreamRequestError(`"${name}" is empty: give it a value, or leave it out`);
  }
  const search = params.get('search');
  if (search !== null) {
    parseQuery(search); // a QueryError now, while the answer can still be a 400
    options.search = search;
  }
  const since = params.get('since');
  if (since !== null) {
    const ms = parseWhen(since, now);
    if (ms === undefined) throw new StreamRequestError(`since must be ${WHEN_FORMS}; not "${since.slice(0, 60)}"`);
    options.since = ms;
  }
  const settle = params.get('settleMs');
  if (settle !== null) {
    const ms = Number(settle);
    if (!/^\d{1,6}$/.test(settle) || ms > MAX_SETTLE_MS) throw new StreamRequestError(`settleMs must be a whole number of ms from 0 to ${MAX_SETTLE_MS}; not "${settle.slice(0, 20)}"`);
    options.settleMs = ms;
  }
  return options;
}

/** Writes the stream to `res` until the client hangs up or `stopping` aborts. */
export async function streamMessages(core: HttpApiCore, res: ServerResponse, options: FollowOptions, stopping: AbortSignal): Promise<void> {
  const abandoned = new AbortController();
  res.on('close', () => abandoned.abort());
  const signal = AbortSignal.any([abandoned.signal, stopping]);
  const lines = followMessages(core.queries, core.bus, options, signal);
  // Connection: close — the socket ends with the stream, so a stopping server is not held by it.
  res.writeHead(200, { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff', Connection: 'close' });
  res.flushHeaders();
  try {
    for await (const line of lines) {
      if (!res.write(`${JSON.stringify(line)}\n`)) await drained(res, signal);
      if (signal.aborted) break;
    }
  } catch (error) {
    // Once lines have started the status is sent: the failure is the last line, with its sentence.
    res.write(`${JSON.stringify({ error: { code: 'stream_failed', message: (error as Error).message } })}\n`);
  } finally {
    res.end();
  }
}

/** Resolves once `res` (a response, the process's stdout) can take more, or it closed, or `signal` aborts. */
export function drained(res: Pick<Writable, 'on' | 'off'>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done);
  });
}
