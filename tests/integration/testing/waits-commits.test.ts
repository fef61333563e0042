// A pending wait looks only at what each commit brings (issue 26, point 1): waits are filed by the
// column a match must have, and each message is handed only to the waits its columns can satisfy. These
// are the messages whose columns do not tell the whole story — a refused one, another type's own
// `event` member, a numeric userId, a filter on the payload alone — and the first look meeting the commits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

let core: TestCore;
beforeAll(async () => {
  core = await startCore();
});
afterAll(() => core?.close());

describe('a wait checks each commit', () => {
  it('finds what the columns alone would miss', async () => {
    // Filed waits only: a commit's messages are sorted by SQL (MessagesRepo.idsHolding).
    const filed = [
      core.queries.waitForMessages({ event: 'Stray' }), // an identify's own "event" member: a filter on event matches it
      core.queries.waitForMessages({ status: 'rejected', messageId: 'refused-1' }), // refused: read from its text
      core.queries.waitForMessages({ userId: 42 }),
    ];
    await post(core, '/v1/identify', { userId: 'someone', event: 'Stray', messageId: 'stray-1' });
    await post(core, '/v1/track', { userId: 'u', messageId: 'refused-1' }); // a track without its event is refused
    await post(core, '/v1/track', { userId: 42, event: 'Numbers', messageId: 'numeric-1' });
    expect((await Promise.all(filed)).map((messages) => messages.map((m) => [m.messageId, m.status]))).toEqual([
      [['stray-1', 'accepted']],
      [['refused-1', 'rejected']],
      [['numeric-1', 'accepted']],
    ]);
    // Waits filed by no column: every new message is looked at.
    const unfiled = [
      core.queries.waitForMessages({ properties: { cart: { items: [{ sku: 'a-1' }] } } }),
      core.queries.waitForMessages({ type: 'page', context: { page: { path: '/x' } } }),
    ];
    await post(core, '/v1/track', { userId: 'u', event: 'Cart', properties: { cart: { items: [{ sku: 'a-1' }], total: 3 } }, messageId: 'cart-1' });
    await post(core, '/v1/page', { userId: 'u', name: 'X', context: { page: { path: '/x' } }, messageId: 'page-1' });
    expect((await Promise.all(unfiled)).map((messages) => messages.map((m) => m.messageId))).toEqual([['cart-1'], ['page-1']]);
  });

  it('a wait for more than is stored counts what was there and what comes, oldest first, each once', async () => {
    await post(core, '/v1/track', { userId: 'counted', event: 'Counted', messageId: 'counted-1' });
    const wait = core.queries.waitForMessages({ event: 'Counted' }, { count: 3 });
    await post(core, '/v1/batch', { batch: [
      { type: 'track', userId: 'counted', event: 'Counted', messageId: 'counted-2' },
      { type: 'track', userId: 'counted', event: 'Other', messageId: 'other-1' },
    ] });
    await post(core, '/v1/track', { userId: 'counted', event: 'Counted', messageId: 'counted-3' });
    expect((await wait).map((m) => m.messageId)).toEqual(['counted-1', 'counted-2', 'counted-3']);
    // A retried copy (duplicate) of a counted message does not count without a status.
    const again = core.queries.waitForMessages({ messageId: 'counted-1' }, { count: 2, timeoutMs: 300 });
    await post(core, '/v1/track', { userId: 'counted', event: 'Counted', messageId: 'counted-1' });
    await expect(again).rejects.toThrow(/1 arrived/);
    expect((await core.queries.waitForMessages({ messageId: 'counted-1', status: 'duplicate' })).length).toBe(1);
  });

  it('afterSequence: only messages stored after that one count, in the first look and in the commits', async () => {
    await post(core, '/v1/batch', { batch: [1, 2, 3].map((i) => ({ type: 'track', userId: 'seq', event: 'Seq', messageId: `seq-${i}` })) });
    const [first, second] = await core.queries.waitForMessages({ event: 'Seq' }, { count: 3 });
    // Two stored after the first: found by the first look.
    expect((await core.queries.waitForMessages({ event: 'Seq' }, { count: 2, afterSequence: first!.sequence })).map((m) => m.messageId)).toEqual(['seq-2', 'seq-3']);
    // One more than is stored after the second: the next commit's.
    const next = core.queries.waitForMessages({ event: 'Seq' }, { count: 2, afterSequence: second!.sequence });
    await post(core, '/v1/track', { userId: 'seq', event: 'Seq', messageId: 'seq-4' });
    expect((await next).map((m) => m.messageId)).toEqual(['seq-3', 'seq-4']);
    // A timeout says which messages counted.
    await expect(core.queries.waitForMessages({ event: 'Seq' }, { count: 5, afterSequence: first!.sequence, timeoutMs: 50 })).rejects.toThrow(
      new RegExp(`\\(only messages stored after sequence ${first!.sequence} count\\)$`),
    );
    // A bad value is refused (the HTTP API's is tested in http-api.test.ts).
    for (const bad of [-1, 1.5, '3']) {
      await expect(core.queries.waitForMessages({ event: 'Seq' }, { afterSequence: bad as number })).rejects.toThrow(/^waitForMessages\(\): afterSequence must be a message's sequence/);
    }
  });

  it('an id its column does not keep whole — empty, or past 1,024 characters — is found in the message', async () => {
    const long = `jwt.${'x'.repeat(1_100)}`; // refused (ids are at most 1,024 characters), and kept so
    const waits = [core.queries.waitForMessages({ userId: long, status: 'rejected' }), core.queries.waitForMessages({ anonymousId: '', event: 'Empty' })];
    await post(core, '/v1/track', { userId: long, event: 'Long', messageId: 'long-1' });
    await post(core, '/v1/track', { userId: 'someone', anonymousId: '', event: 'Empty', messageId: 'empty-1' });
    expect((await Promise.all(waits)).map((found) => found.map((m) => m.messageId))).toEqual([['long-1'], ['empty-1']]);
    // Lists and a first look too (the message is stored before the wait starts).
    expect((await core.queries.messages({ userId: long })).map((m) => m.messageId)).toEqual(['long-1']);
    expect((await core.queries.waitForMessages({ userId: long, status: 'rejected' })).map((m) => m.messageId)).toEqual(['long-1']);
  });

  it('a wait that names no status never takes a refused copy; a reset empties what a wait found', async () => {
    const wait = core.queries.waitForMessages({ messageId: 'later-1' }, { timeoutMs: 5_000 });
    await post(core, '/v1/track', { userId: 'u', messageId: 'later-1' }); // refused: no event
    await post(core, '/v1/track', { userId: 'u', event: 'Later', messageId: 'later-1' });
    expect((await wait).map((m) => [m.messageId, m.status])).toEqual([['later-1', 'accepted']]);
  });
});
