import { MAX_BATCH_EVENTS, SEGMENT_MAX_REQUEST_BYTES } from '../../shared/limits.ts';
import type { MessageQueue } from './message-queue.ts';

/*
 * A batch request body is `{"batch":[m1,m2,…,mN],"sentAt":"<ISO time>"}`, built once per batch as a
 * Buffer: the messages are copied from the queue in one go, and each attempt only rewrites the
 * `sentAt` time in place.
 */
const PREFIX = '{"batch":[';
const SENT_AT = ',"sentAt":"';
const SUFFIX = '"}';
const ISO_LENGTH = '2026-01-01T00:00:00.000Z'.length;

/**
 * Bytes a request adds to its messages besides one separator per message (a comma, or the closing
 * bracket after the last): the envelope, with room for an ISO time three characters longer than usual.
 */
export const ENVELOPE_BYTES = PREFIX.length + SENT_AT.length + ISO_LENGTH + 3 + SUFFIX.length;

export interface NextBatch {
  /** How many messages from the head of the queue go into the next request (≥ 1 unless the queue is empty). */
  count: number;
  /** True when the batch cannot grow: it holds `maxCount` messages, or the next would take it past `maxBytes`. */
  full: boolean;
}

/**
 * Measures the next request from the head of the queue: at most `maxCount` messages (and the
 * endpoint's 2,500) and at most `maxBytes` (500 KB) for the whole request body.
 */
export function nextBatch(queue: MessageQueue, maxCount: number, maxBytes: number = SEGMENT_MAX_REQUEST_BYTES): NextBatch {
  const limit = Math.min(maxCount, MAX_BATCH_EVENTS);
  const queued = queue.length;
  let bytes = ENVELOPE_BYTES;
  let count = 0;
  while (count < queued) {
    const size = queue.sizeAt(count) + 1;
    // A lone message always goes: at most 32 KB, far below the request limit.
    if (count > 0 && bytes + size > maxBytes) return { count, full: true };
    bytes += size;
    count++;
    if (count === limit) return { count, full: true };
  }
  return { count, full: false };
}

/**
 * Request bodies' memory, reused: a tight loop sends thousands of batches, and a fresh buffer for
 * each (freed only when the garbage collector gets to it) costs megabytes of resident memory.
 * Keeps at most `keep` free buffers (one per request in flight).
 */
export class BodyBuffers {
  readonly #free: Buffer[] = [];
  readonly #keep: number;

  constructor(keep: number) {
    this.#keep = keep;
  }

  take(size: number): Buffer {
    for (let i = 0; i < this.#free.length; i++) {
      if (this.#free[i]!.length >= size) return this.#free.splice(i, 1)[0]!;
    }
    // Sizes in powers of two from 64 KB, so that a buffer fits the next batches too.
    let capacity = 64 * 1024;
    while (capacity < size) capacity *= 2;
    return Buffer.allocUnsafeSlow(capacity);
  }

  give(buffer: Buffer): void {
    if (this.#free.length < this.#keep) this.#free.push(buffer);
  }
}

/** One batch's request body and the sizes of its messages. */
export class BatchBody {
  /** The request body; its `sentAt` is set by {@link BatchBody.stamp} (the epoch until then). */
  body: Buffer;
  readonly count: number;
  /** Each message's size, in order; the first message starts right after `{"batch":[`. */
  readonly lengths: Int32Array;
  #sentAtOffset: number;

  /** Memory the body was taken from, to give back by {@link BatchBody.release}. */
  #storage: Buffer | null;
  #buffers: BodyBuffers | undefined;

  /** Takes the `count` oldest messages out of `queue` into a new body (in memory from `buffers`, if given). */
  constructor(queue: MessageQueue, count: number, buffers?: BodyBuffers) {
    const n = Math.min(count, queue.length);
    const lengths = new Int32Array(n);
    let size = PREFIX.length + SENT_AT.length + ISO_LENGTH + SUFFIX.length;
    for (let i = 0; i < n; i++) {
      lengths[i] = queue.sizeAt(i);
      size += lengths[i]! + 1;
    }
    this.#buffers = buffers;
    this.#storage = buffers ? buffers.take(size) : null;
    const body = this.#storage ? this.#storage.subarray(0, size) : Buffer.allocUnsafe(size);
    body.write(PREFIX, 0, 'latin1');
    const end = queue.takeInto(n, body, PREFIX.length);
    body[end - 1] = 0x5d; // the comma after the last message becomes "]"
    body.write(SENT_AT, end, 'latin1');
    this.#sentAtOffset = end + SENT_AT.length;
    body.write(`${new Date(0).toISOString()}${SUFFIX}`, this.#sentAtOffset, 'latin1'); // until stamp()
    this.body = body;
    this.count = lengths.length;
    this.lengths = lengths;
  }

  /** Sets `sentAt` (an ISO 8601 time) for the next attempt. */
  stamp(sentAt: string): void {
    if (sentAt.length === ISO_LENGTH) {
      this.body.write(sentAt, this.#sentAtOffset, 'latin1');
      return;
    }
    // Years outside 0000–9999 make longer times: rebuild the tail once.
    this.body = Buffer.concat([this.body.subarray(0, this.#sentAtOffset), Buffer.from(`${sentAt}${SUFFIX}`, 'latin1')]);
    this.release();
  }

  /**
   * Gives the body's memory back for the next batches: only once nothing can still be reading it
   * (the request was answered; the messageIds were read).
   */
  release(): void {
    if (this.#storage && this.#buffers) this.#buffers.give(this.#storage);
    this.#storage = null;
  }

  /** The `messageId` of each message, read back from the body (they are not kept as strings meanwhile). */
  messageIds(indexes?: readonly number[]): string[] {
    const starts: number[] = [];
    let offset = PREFIX.length;
    for (const length of this.lengths) {
      starts.push(offset);
      offset += length + 1;
    }
    const wanted = indexes ?? starts.map((_, i) => i);
    return wanted.map((i) => messageIdAt(this.body, starts[i]!, this.lengths[i]!));
  }
}

/** The messageId of the message at `start`: the client writes it as the second key, `{"type":…,"messageId":"…"`. */
function messageIdAt(body: Buffer, start: number, length: number): string {
  const key = body.indexOf('"messageId":"', start, 'latin1');
  if (key === -1 || key >= start + length) return '';
  const open = key + '"messageId":'.length;
  let i = open + 1;
  while (i < start + length && body[i] !== 0x22 /* " */) i += body[i] === 0x5c /* \ */ ? 2 : 1;
  return JSON.parse(body.toString('utf8', open, i + 1)) as string;
}
