// The queue (serialized messages outside the JS heap) and the batches cut from it.
import { describe, expect, it } from 'vitest';
import { MAX_BATCH_EVENTS, SEGMENT_MAX_MESSAGE_BYTES, SEGMENT_MAX_REQUEST_BYTES } from '../../shared/limits.ts';
import { BatchBody, ENVELOPE_BYTES, nextBatch } from '../../electron/client/batch-splitter.ts';
import { MessageQueue } from '../../electron/client/message-queue.ts';

const message = (i: number, pad = 0) => {
  const json = JSON.stringify({ type: 'track', messageId: `id-${i}`, event: 'E', properties: { i, pad: 'x'.repeat(pad) } });
  return { json, bytes: Buffer.byteLength(json) };
};

function fill(queue: MessageQueue, from: number, count: number, pad = 0): void {
  for (let i = from; i < from + count; i++) {
    const m = message(i, pad);
    queue.push(m.json, m.bytes);
  }
}

describe('MessageQueue', () => {
  it('numbers messages in order and tracks count and bytes', () => {
    const queue = new MessageQueue(100, 1 << 20);
    fill(queue, 0, 3);
    expect(queue.length).toBe(3);
    expect(queue.headSeq).toBe(0);
    expect(queue.nextSeq).toBe(3);
    expect(queue.bytes).toBe([0, 1, 2].reduce((sum, i) => sum + message(i).bytes, 0));
    new BatchBody(queue, 2);
    expect(queue.headSeq).toBe(2);
    expect(queue.length).toBe(1);
    expect(queue.bytes).toBe(message(2).bytes);
  });

  it('knows when it is full, by count and by bytes, and where waiting for room ends', () => {
    const byCount = new MessageQueue(4, 1 << 20);
    fill(byCount, 0, 4);
    expect(byCount.hasRoom).toBe(false);
    expect(byCount.accepts(10)).toBe(false);
    expect(() => byCount.push('{}', 2)).toThrow(RangeError);
    new BatchBody(byCount, 1);
    expect(byCount.hasRoom).toBe(true);
    expect(byCount.belowLowWater).toBe(false);
    new BatchBody(byCount, 1);
    expect(byCount.belowLowWater).toBe(true);

    const byBytes = new MessageQueue(1000, 1 << 20);
    // hasRoom promises room for any valid message: 32 KB must still fit.
    fill(byBytes, 0, 1, (1 << 20) - SEGMENT_MAX_MESSAGE_BYTES - 100);
    expect(byBytes.hasRoom).toBe(true);
    fill(byBytes, 1, 1, 200);
    expect(byBytes.hasRoom).toBe(false);
    expect(byBytes.accepts(10)).toBe(true);
  });

  it('allocates for the messages it holds, not for its limit: a huge maxCount works, growing as it fills and wraps', () => {
    const queue = new MessageQueue(Number.MAX_SAFE_INTEGER, 64 << 20);
    const ids: string[] = [];
    let next = 0;
    // Fill past the first ring sizes while the head moves, so growth happens with the ring wrapped.
    for (const [add, take] of [[3000, 1000], [5000, 2500], [20_000, 3], [1, 24_498]] as const) {
      fill(queue, next, add);
      next += add;
      let left = take;
      while (left > 0) {
        const batch = new BatchBody(queue, Math.min(left, 2500));
        ids.push(...(JSON.parse(batch.body.toString()) as { batch: { messageId: string }[] }).batch.map((m) => m.messageId));
        left -= batch.count;
      }
    }
    expect(ids).toEqual(Array.from({ length: next - queue.length }, (_, i) => `id-${i}`));
    expect(queue.length).toBe(0);
  });

  it('keeps messages intact across storage chunks and ring wrap-around', () => {
    const queue = new MessageQueue(50, 64 << 20);
    const ids: string[] = [];
    let next = 0;
    for (let round = 0; round < 40; round++) {
      fill(queue, next, 30, 20_000); // ~20 KB each: a 512 KB chunk holds ~25
      next += 30;
      while (queue.length > 0) {
        const batch = new BatchBody(queue, 7);
        const parsed = JSON.parse(batch.body.toString()) as { batch: { messageId: string }[] };
        ids.push(...parsed.batch.map((m) => m.messageId));
        expect(batch.messageIds()).toEqual(parsed.batch.map((m) => m.messageId));
      }
    }
    expect(ids).toEqual(Array.from({ length: next }, (_, i) => `id-${i}`));
    expect(queue.bytes).toBe(0);
  });
  // Under back-pressure the queue swings between full and half full; storage dropped on each swing
  // piles up outside the heap until a full garbage collection (tens of MB in the benchmark).
  it('reuses its storage chunks when it swings between full and half full', () => {
    const queue = new MessageQueue(10_000, 16 << 20);
    let next = 0;
    const allocated: number[] = [];
    for (let swing = 0; swing < 10; swing++) {
      fill(queue, next, queue.maxCount - queue.length, 200); // ~250 bytes each: ~2,000 per 512 KB chunk
      next = queue.nextSeq;
      while (!queue.belowLowWater) new BatchBody(queue, 100);
      allocated.push(queue.chunksAllocated);
    }
    expect(allocated[0]).toBeGreaterThanOrEqual(5);
    // The first swing reaches the most chunks in use at once; after it, none are allocated.
    expect(allocated.at(-1)).toBe(allocated[1]);
  });
});

describe('batches', () => {
  it('are cut by count: flushAt messages make a full batch', () => {
    const queue = new MessageQueue(1000, 16 << 20);
    fill(queue, 0, 19);
    expect(nextBatch(queue, 20)).toEqual({ count: 19, full: false });
    fill(queue, 19, 5);
    expect(nextBatch(queue, 20)).toEqual({ count: 20, full: true });
    expect(nextBatch(queue, 5000).count).toBeLessThanOrEqual(MAX_BATCH_EVENTS);
  });

  it('are cut by bytes so that no request body exceeds 500 KB', () => {
    const queue = new MessageQueue(1000, 16 << 20);
    fill(queue, 0, 100, 30_000); // 100 messages of ~30 KB: 3 MB
    const sizes: number[] = [];
    let total = 0;
    while (queue.length > 0) {
      const { count, full } = nextBatch(queue, 100);
      if (queue.length > count) expect(full).toBe(true);
      const body = new BatchBody(queue, count);
      body.stamp('2026-11-20T08:30:00.123Z');
      expect(body.body.length).toBeLessThanOrEqual(SEGMENT_MAX_REQUEST_BYTES);
      total += body.count;
      sizes.push(body.body.length);
    }
    expect(total).toBe(100);
    expect(sizes.length).toBeGreaterThanOrEqual(6);
    // Tight: each full batch could not have taken one more message.
    expect(sizes[0]! + 30_000).toBeGreaterThan(SEGMENT_MAX_REQUEST_BYTES - ENVELOPE_BYTES);
  });

  it('carry a valid JSON body whose sentAt is rewritten for each attempt', () => {
    const queue = new MessageQueue(10, 1 << 20);
    fill(queue, 0, 3);
    const batch = new BatchBody(queue, 3);
    batch.stamp('2026-11-20T08:30:00.123Z');
    expect(JSON.parse(batch.body.toString())).toEqual({
      batch: [0, 1, 2].map((i) => JSON.parse(message(i).json)),
      sentAt: '2026-11-20T08:30:00.123Z',
    });
    batch.stamp('2026-11-20T08:30:05.000Z');
    expect(JSON.parse(batch.body.toString()).sentAt).toBe('2026-11-20T08:30:05.000Z');
    batch.stamp('+010000-01-01T00:00:00.000Z');
    expect(JSON.parse(batch.body.toString()).sentAt).toBe('+010000-01-01T00:00:00.000Z');
    expect(batch.body.length).toBeLessThanOrEqual(ENVELOPE_BYTES + [0, 1, 2].reduce((s, i) => s + message(i).bytes + 1, 0));
  });

  it('read messageIds back from the body, escapes included, by index', () => {
    const queue = new MessageQueue(10, 1 << 20);
    for (const id of ['plain', 'with "quotes" and \\ backslash', 'ünïcødé ✓']) {
      const json = JSON.stringify({ type: 'track', messageId: id, properties: { messageId: 'not this one' } });
      queue.push(json, Buffer.byteLength(json));
    }
    const batch = new BatchBody(queue, 3);
    expect(batch.messageIds()).toEqual(['plain', 'with "quotes" and \\ backslash', 'ünïcødé ✓']);
    expect(batch.messageIds([2, 0])).toEqual(['ünïcødé ✓', 'plain']);
  });
});
