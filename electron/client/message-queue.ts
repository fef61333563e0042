import { SEGMENT_MAX_MESSAGE_BYTES } from '../../shared/limits.ts';

/**
 * Bytes per storage chunk. Messages are stored serialized in chunks of memory outside the JS heap,
 * one after the other, each followed by a comma: a run of them is a ready-made slice of a batch
 * body, and a queue of thousands of messages holds no JS objects per message. That keeps the
 * garbage collector's young generation small under a tight loop of calls (hundreds of MB otherwise).
 */
const CHUNK_BYTES = 512 * 1024;

/**
 * Emptied chunks kept for reuse (4 MiB). Under back-pressure the queue swings between its limit and
 * half of it, a few chunks each way: with only one kept, every swing dropped the others for the
 * garbage collector, which frees memory outside the heap only after tens of MB have piled up.
 */
const SPARE_CHUNKS = 8;
/** Sizes slots allocated up front; the ring doubles as the queue fills. */
const INITIAL_SIZES = 4096;

interface Chunk {
  buffer: Buffer;
  /** Where the next message is written. */
  writeOffset: number;
  /** Where the oldest unread message starts. */
  readOffset: number;
  /** Messages written into the chunk, and messages taken out of it. */
  written: number;
  read: number;
}

/**
 * The client's bounded FIFO of serialized messages. Each queued message has a sequence number
 * (consecutive, never reused): `flush()` waits for every number below the one it saw. Message sizes
 * live in a ring indexed by sequence number (the queue never holds more than `maxCount`).
 */
export class MessageQueue {
  readonly maxCount: number;
  readonly maxBytes: number;
  #chunks: Chunk[] = [];
  /** Emptied chunks kept for reuse, so a steady stream does not allocate. */
  readonly #spares: Buffer[] = [];
  #chunksAllocated = 0;
  /** The queued messages' sizes, a ring indexed by sequence number; grown as the queue fills, up to maxCount. */
  #sizes: Int32Array;
  #length = 0;
  #bytes = 0;
  #headSeq = 0;

  constructor(maxCount: number, maxBytes: number) {
    this.maxCount = maxCount;
    this.maxBytes = maxBytes;
    this.#sizes = new Int32Array(Math.min(maxCount, INITIAL_SIZES));
  }

  get length(): number {
    return this.#length;
  }

  /** Sum of the queued messages' UTF-8 sizes. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Storage chunks allocated so far (reused ones are not counted again): how much the queue churns memory. */
  get chunksAllocated(): number {
    return this.#chunksAllocated;
  }

  /** Sequence number of the oldest queued message (= `nextSeq` when empty). */
  get headSeq(): number {
    return this.#headSeq;
  }

  /** Sequence number the next queued message gets. */
  get nextSeq(): number {
    return this.#headSeq + this.#length;
  }

  /** True when any valid message (up to 32 KB) would be accepted. */
  get hasRoom(): boolean {
    return this.#length < this.maxCount && this.#bytes + SEGMENT_MAX_MESSAGE_BYTES <= this.maxBytes;
  }

  /** True when the queue is down to half its limits: where waiting for room ends. */
  get belowLowWater(): boolean {
    return this.#length <= this.maxCount / 2 && this.#bytes <= this.maxBytes / 2;
  }

  /** True when a message of `bytes` fits within both limits. */
  accepts(bytes: number): boolean {
    return this.#length < this.maxCount && this.#bytes + bytes <= this.maxBytes;
  }

  /** Appends a message; `bytes` is the UTF-8 length of `json` (at most 32 KB). The caller checks `accepts`. */
  push(json: string, bytes: number): void {
    if (this.#length >= this.maxCount) throw new RangeError('the queue is full');
    let chunk = this.#chunks[this.#chunks.length - 1];
    if (!chunk || chunk.writeOffset + bytes + 1 > chunk.buffer.length) {
      const buffer = this.#spares.pop() ?? this.#allocate(Math.max(CHUNK_BYTES, bytes + 1));
      chunk = { buffer, writeOffset: 0, readOffset: 0, written: 0, read: 0 };
      this.#chunks.push(chunk);
    }
    chunk.buffer.write(json, chunk.writeOffset, bytes, 'utf8');
    chunk.buffer[chunk.writeOffset + bytes] = 0x2c; // ,
    chunk.writeOffset += bytes + 1;
    chunk.written++;
    if (this.#length === this.#sizes.length) this.#growSizes();
    this.#sizes[(this.#headSeq + this.#length) % this.#sizes.length] = bytes;
    this.#length++;
    this.#bytes += bytes;
  }

  /** Size of the `i`-th message from the oldest (0 ≤ i < length). */
  sizeAt(i: number): number {
    return this.#sizes[(this.#headSeq + i) % this.#sizes.length]!;
  }

  /** Doubles the sizes ring (a queue allowed millions of messages does not allocate for them up front). */
  #growSizes(): void {
    const old = this.#sizes;
    const next = new Int32Array(Math.min(this.maxCount, old.length * 2));
    for (let i = 0; i < this.#length; i++) next[(this.#headSeq + i) % next.length] = old[(this.#headSeq + i) % old.length]!;
    this.#sizes = next;
  }

  /**
   * Removes the `count` oldest messages, copying them into `target` at `offset` as
   * `m1,m2,…,mN,` (each followed by a comma). Returns the offset after the last comma.
   */
  takeInto(count: number, target: Buffer, offset: number): number {
    let left = Math.min(count, this.#length);
    while (left > 0) {
      const chunk = this.#chunks[0]!;
      const n = Math.min(left, chunk.written - chunk.read);
      let run = 0;
      for (let i = 0; i < n; i++) run += this.sizeAt(i) + 1;
      chunk.buffer.copy(target, offset, chunk.readOffset, chunk.readOffset + run);
      offset += run;
      chunk.readOffset += run;
      chunk.read += n;
      left -= n;
      this.#length -= n;
      this.#bytes -= run - n;
      this.#headSeq += n;
      if (chunk.read === chunk.written) this.#release(chunk);
    }
    return offset;
  }

  /** Drops an emptied chunk, unless it is the one being written, which is rewound instead. */
  #release(chunk: Chunk): void {
    if (this.#chunks.length === 1) {
      chunk.writeOffset = chunk.readOffset = chunk.written = chunk.read = 0;
      return;
    }
    this.#chunks.shift();
    if (chunk.buffer.length === CHUNK_BYTES && this.#spares.length < SPARE_CHUNKS) this.#spares.push(chunk.buffer);
  }

  #allocate(size: number): Buffer {
    this.#chunksAllocated++;
    return Buffer.allocUnsafeSlow(size);
  }
}
