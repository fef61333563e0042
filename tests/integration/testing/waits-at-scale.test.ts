// Waits and reads that do not grow with the store (issue 26, point 1): past SMALL_STORE_ROWS stored
// messages a question is read by SQL on the counting thread, and a pending wait looks only at what each
// commit brings. 100 waits pending at once over 21,000 stored messages all resolve from one commit
// (reading the store again per wait per commit, as before, took minutes here); the first look of a wait
// finds the oldest matches through the indexes; lists, one message by id and the counts agree with
// every stored message filtered in JavaScript.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matches } from '../../../electron/core/queries/filters.ts';
import { SMALL_STORE_ROWS } from '../../../electron/core/queries/store-reader.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

const STORED = SMALL_STORE_ROWS + 1_000;
let core: TestCore;

beforeAll(async () => {
  core = await startCore();
  const batch: Record<string, unknown>[] = [];
  for (let i = 0; i < STORED; i++) {
    batch.push({
      type: i % 10 === 0 ? 'identify' : 'track',
      ...(i % 10 === 0 ? { traits: { plan: `plan ${i % 7}` } } : { event: `Stored ${i % 50}`, properties: { sku: `sku-${i}`, n: i } }),
      userId: `user-${i % 1000}`,
      messageId: `stored-${i}`,
    });
    if (batch.length === 500) expect((await post(core, '/v1/batch', { batch: batch.splice(0) })).status).toBe(200);
  }
  if (batch.length) expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
  await core.queries.waitForMessages({ messageId: `stored-${STORED - 1}` }, { timeoutMs: 30_000 });
}, 120_000);
afterAll(() => core?.close());

describe('waits and reads at scale', () => {
  it('100 waits pending over a large store all resolve from the commit that brings their messages', async () => {
    const waits = Array.from({ length: 100 }, (_, i) => core.queries.waitForMessages({ event: `New ${i}`, properties: { i } }, { timeoutMs: 20_000 }));
    // A message none of them wants, then all of theirs in one batch (one commit), each with a decoy.
    expect((await post(core, '/v1/track', { userId: 'x', event: 'Unrelated' })).status).toBe(200);
    const batch = Array.from({ length: 100 }, (_, i) => [
      { type: 'track', userId: `new-${i}`, event: `New ${i}`, properties: { i: i + 1000 }, messageId: `decoy-${i}` },
      { type: 'track', userId: `new-${i}`, event: `New ${i}`, properties: { i }, messageId: `new-${i}` },
    ]).flat();
    expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
    const found = await Promise.all(waits);
    expect(found.map((messages) => messages.map((m) => m.messageId))).toEqual(Array.from({ length: 100 }, (_, i) => [`new-${i}`]));
  });

  it("a wait's first look converts about as many stored messages as it waits for, not a whole read step", async () => {
    const rowsOf = core.queries.rowsOf.bind(core.queries);
    let converted = 0;
    core.queries.rowsOf = (ids) => ((converted += ids.length), rowsOf(ids));
    try {
      expect(await core.queries.waitForMessages({ type: 'track' })).toEqual([expect.objectContaining({ messageId: 'stored-1' })]);
      expect(await core.queries.waitForMessages({ event: 'Stored 5' }, { count: 3 })).toHaveLength(3);
    } finally {
      core.queries.rowsOf = rowsOf;
    }
    // 1 and 3 wanted, each read once more when its wait resolves (without the bound: 500 and 500).
    expect(converted).toBeLessThanOrEqual(2 + 1 + 6 + 3);
  });

  it("a wait's first look finds the oldest stored matches through SQL, whatever the filter names", async () => {
    // An id (trigram index), an event and a payload string (word index), a number (no index: the counting thread reads).
    expect((await core.queries.waitForMessages({ userId: 'user-7' }, { count: 3 })).map((m) => m.messageId)).toEqual(['stored-7', 'stored-1007', 'stored-2007']);
    expect((await core.queries.waitForMessages({ event: 'Stored 3', properties: { sku: 'sku-53' } })).map((m) => m.messageId)).toEqual(['stored-53']);
    expect((await core.queries.waitForMessages({ properties: { n: STORED - 2 } })).map((m) => m.messageId)).toEqual([`stored-${STORED - 2}`]);
    expect((await core.queries.waitForMessages({ type: 'identify', traits: { plan: 'plan 3' } }, { count: 2 })).map((m) => m.messageId)).toEqual(['stored-10', 'stored-80']);
    // A first look no index narrows (the counting thread reads), and a match landing meanwhile.
    const meanwhile = core.queries.waitForMessages({ type: 'identify', traits: { plan: 'plan 9' } });
    await post(core, '/v1/identify', { userId: 'late', traits: { plan: 'plan 9' }, messageId: 'late-identify' });
    expect((await meanwhile).map((m) => m.messageId)).toEqual(['late-identify']);
    // The count of what is stored comes with a timeout's answer, from the counting thread.
    await expect(core.queries.waitForMessages({ userId: 'nobody' }, { timeoutMs: 50 })).rejects.toThrow(new RegExp(`0 arrived \\(${STORED + 202} stored in all\\)`));
    // Its closest are of the newest 200 messages only: user-7's are all older (the oldest 200 hold one).
    const notClose = await core.queries.waitForMessages({ userId: 'user-7', event: 'Never Sent' }, { timeoutMs: 50 }).catch((e: Error) => e.message);
    expect(notClose).toMatch(/None comes close; the latest stored:\n {2}- identify of "late" \(accepted, late-identify\)\n/);
  });

  it('lists, a message by id and the counts agree with every stored message filtered in JavaScript', async () => {
    const everything = await core.queries.rows({});
    expect(everything.length).toBe(STORED + 202);
    for (const filter of [{ userId: 'user-42' }, { event: 'Stored 9' }, { type: 'identify', traits: { plan: 'plan 2' } }, { properties: { sku: 'sku-999' } }, { messageId: 'stored-12345' }]) {
      const expected = everything.filter((row) => matches(row.message, filter));
      expect(expected.length, JSON.stringify(filter)).toBeGreaterThan(0);
      expect(await core.queries.rows(filter), JSON.stringify(filter)).toEqual(expected);
      const page = await core.queries.page(filter, undefined, 0, 2, 'test');
      expect(page.rows).toEqual(expected.slice(0, 2));
      expect(page.more).toBe(expected.length > 2);
      if (page.more) expect(page.lastId).toBe(expected[1]!.id);
    }
    expect((await core.queries.messageById('stored-20500'))?.message).toMatchObject({ messageId: 'stored-20500', userId: 'user-500' });
    expect(await core.queries.messageById('no-such-id')).toBeUndefined();
    // The counts (read on the counting thread at this size), with a refused message and a retried copy.
    await post(core, '/v1/track', { userId: 'u', messageId: 'refused-at-scale' }); // no event: refused
    await post(core, '/v1/track', { userId: 'user-5', event: 'Stored 5', messageId: 'stored-5' }); // a duplicate
    await core.queries.waitForMessages({ messageId: 'stored-5', status: 'duplicate' });
    const stats = await core.queries.stats();
    expect(stats.messages).toEqual({ accepted: STORED + 202, rejected: 1, duplicate: 1 });
    expect(stats.types).toEqual({ identify: STORED / 10 + 1, track: STORED - STORED / 10 + 203 });
  });
});
