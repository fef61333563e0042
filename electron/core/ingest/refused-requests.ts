// A request refused as a whole (bad JSON, over the size limit, an unknown write key, a path that is
// not an endpoint…) stores no message of its own: without a trace, a client that does not retry a
// 4xx loses its events and nothing in the inspector says so. Each such request is stored as one
// rejected entry with the reason and the start of its body — bounded, so that a flood of bad requests
// cannot fill the disk or the stream.
import type { IncomingMessage } from 'node:http';
import { NO_SOURCE_ID } from '../../../shared/refused-request.ts';
import type { Clock } from '../clock.ts';
import type { IngestError } from './ingest-error.ts';
import type { PreparedRequest } from '../store/stored-request.ts';
import { utf8Prefix } from '../utf8-prefix.ts';
import type { IngestJob, RefusedRequest } from '../writer/protocol.ts';

/** Refused requests stored, at most: this many at once, and as many again each minute. */
const REFUSALS_PER_MINUTE = 10;
/** Of a refused request's body, the entry keeps this much. */
export const REFUSED_PREVIEW_BYTES = 1024;
/** Refusals that are not the client's mistake to see: the loop guard's (the sender records them). */
const NOT_STORED = new Set(['loop_detected', 'too_many_hops']);
/** Refusals whose body is not kept: a page from an origin the source does not accept may write nothing of its own. */
const NO_PREVIEW = new Set(['origin_not_allowed']);

/** The main thread's side: which refusals are stored, at what rate, handed to the writer as a job. */
export class RefusedRequests {
  readonly #submit: (job: Omit<IngestJob, 'id'>) => Promise<unknown>;
  readonly #clock: Clock;
  #tokens = REFUSALS_PER_MINUTE;
  #refilledAt: number;
  #dropped = 0;

  constructor(submit: (job: Omit<IngestJob, 'id'>) => Promise<unknown>, clock: Clock) {
    this.#submit = submit;
    this.#clock = clock;
    this.#refilledAt = clock.now();
  }

  /**
   * Notes a request answered `error`: a POST refused with a 4xx (other than the loop guard's) is
   * stored, unless the rate is spent; then it is counted and the next one stored says how many were not.
   * Resolves once the entry is stored (or could not be: that is logged), so that the refusal is
   * answered after its entry is in the store, as an accepted request is.
   */
  note(req: IncomingMessage, error: IngestError, ip: string | null): Promise<void> | undefined {
    if (req.method !== 'POST' || error.status < 400 || error.status >= 500 || NOT_STORED.has(error.code)) return undefined;
    const now = this.#clock.now();
    this.#tokens = Math.min(REFUSALS_PER_MINUTE, this.#tokens + ((now - this.#refilledAt) * REFUSALS_PER_MINUTE) / 60_000);
    this.#refilledAt = now;
    if (this.#tokens < 1) {
      this.#dropped++;
      return undefined;
    }
    this.#tokens--;
    const declared = Number(req.headers['content-length']);
    const refused: RefusedRequest = {
      status: error.status,
      code: error.code,
      message: error.message,
      path: (req.url ?? '/').split('?', 1)[0]!.slice(0, 200),
      bytes: Number.isFinite(declared) ? declared : null,
      contentType: req.headers['content-type']?.slice(0, 200) ?? null,
      preview: NO_PREVIEW.has(error.code) ? null : (error.preview ?? null),
      jsonError: error.jsonError ?? null,
      dropped: this.#dropped,
    };
    this.#dropped = 0;
    return this.#submit({ body: new Uint8Array(0), sourceId: error.sourceId ?? NO_SOURCE_ID, endpoint: refused.path, singleType: null, receivedAt: now, ip, refused }).then(
      () => undefined,
      (failure: unknown) => console.error(`sluice: could not store a refused request (${error.code}): ${(failure as Error).message}`),
    );
  }
}

/** A member with a string value as written: its key (escapes and all), and its value, possibly cut short by the preview's end. */
const STRING_MEMBER = /("((?:[^"\\]|\\.)*)"\s*:\s*")((?:[^"\\]|\\.)*)("?)/g;

/** Whether a key as written is `writeKey` as JSON reads it (`"write\u004bey"` is too). */
function isWriteKey(written: string): boolean {
  if (written === 'writeKey') return true;
  if (!written.includes('\\')) return false;
  try {
    return JSON.parse(`"${written}"`) === 'writeKey';
  } catch {
    return false;
  }
}

/**
 * The start of a refused request's body, as text (cut at a character), with each `writeKey` value
 * masked but its last four characters, enough to tell which client sent it: write keys are never
 * stored (analytics.js puts one in the body, and a refused one may be a real Segment source's key).
 */
export function refusedPreview(body: Uint8Array): string {
  const start = utf8Prefix(Buffer.from(body.buffer, body.byteOffset, body.byteLength), 4 * REFUSED_PREVIEW_BYTES).toString('utf8');
  const masked = start.replace(STRING_MEMBER, (member: string, opening: string, key: string, value: string, closing: string) => {
    if (!isWriteKey(key)) return member;
    // A value cut short shows nothing of itself: its last characters are not the key's.
    return closing ? `${opening}••••${value.length > 8 ? value.slice(-4) : ''}"` : `${opening}••••`;
  });
  return utf8Prefix(Buffer.from(masked), REFUSED_PREVIEW_BYTES).toString('utf8');
}

/** The writer's side: the entry, a rejected message of its own request, with the reason and the body's start. */
export function prepareRefused(job: IngestJob & { refused: RefusedRequest }): PreparedRequest {
  const { refused } = job;
  const more = refused.dropped > 0 ? ` (${refused.dropped} more refused request${refused.dropped === 1 ? ' was' : 's were'} not stored before this one: at most ${REFUSALS_PER_MINUTE} a minute are)` : '';
  const raw = JSON.stringify({
    _sluice: { refusedRequest: { status: refused.status, path: refused.path, bytes: refused.bytes, contentType: refused.contentType } },
    preview: refused.preview,
    ...(refused.jsonError ? { jsonError: refused.jsonError } : {}),
  });
  return {
    sourceId: job.sourceId ?? NO_SOURCE_ID,
    endpoint: refused.path,
    receivedAt: job.receivedAt,
    sentAt: null,
    ip: job.ip,
    envelope: null,
    messages: [
      {
        messageId: null,
        type: null,
        status: 'rejected',
        rejectCode: refused.code,
        rejectReason: `the whole request was refused (${refused.status}): ${refused.message}${more}`,
        userId: null,
        anonymousId: null,
        event: null,
        timestamp: null,
        raw,
        skipReason: null,
      },
    ],
  };
}
