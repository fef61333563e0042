// The stream's counts and jumps through a real core and its contract handlers (the counting thread,
// store/message-counter.ts, count-worker.ts): "N of M" for filters and searches, the page at a
// position among the matches (the jump to the oldest), at a time, and the pages newer than a message
// (paging up after a jump) — each checked against the list read page by page from the newest.
import { afterEach, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

const cores: TestCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
});

async function filled(): Promise<TestCore> {
  const core = await startCore();
  cores.push(core);
  for (let b = 0; b < 3; b++) {
    const batch = Array.from({ length: 100 }, (_, i) => {
      const n = b * 100 + i;
      return n % 4 === 0
        ? { type: 'identify', userId: `u_${n % 30}`, traits: { email: `u_${n % 30}@example.com` } }
        : { type: 'track', event: n % 3 ? 'Order Completed' : 'Signed In', userId: `u_${n % 30}`, properties: { order_id: `ord_${n}`, total: n } };
    });
    expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
  }
  return core;
}

/** Every matching id, newest first, as the stream pages down. */
async function allIds(core: TestCore, filters: Record<string, unknown>): Promise<number[]> {
  const handlers = createHandlers(core);
  const ids: number[] = [];
  for (let before: number | undefined; ; ) {
    const page = await callOk(handlers, 'messages.list', { ...filters, limit: 50, ...(before !== undefined ? { beforeId: before } : {}) });
    ids.push(...page.messages.map((m) => m.id));
    if (page.next === null) return ids;
    before = page.next;
  }
}

const FILTERS: Record<string, unknown>[] = [
  {},
  { type: 'identify' },
  { search: 'order' },
  { search: 'properties.total:>=250' },
  { search: '-type:identify userId:u_1*' },
  { search: 'Signed', type: 'track' },
  { search: 'nothing_like_this' },
];

it('counts every message and the matching ones, for filters and searches', async () => {
  const empty = await startCore();
  cores.push(empty);
  expect(await callOk(createHandlers(empty), 'messages.count', {})).toEqual({ total: 0, matching: 0, newestId: 0 });
  const core = await filled();
  const handlers = createHandlers(core);
  // newestId: the newest message the counts hold, whatever the filters (the page adds arrivals above it).
  const newestId = (await allIds(core, {}))[0];
  expect(newestId).toBeGreaterThanOrEqual(300);
  for (const filters of FILTERS) {
    const want = await allIds(core, filters);
    expect(await callOk(handlers, 'messages.count', filters), JSON.stringify(filters)).toEqual({ total: 300, matching: want.length, newestId });
  }
  // A query that does not parse is refused with its problem, as the list refuses it.
  const bad = await invoke(handlers, 'messages.count', { search: 'propertys.total:1' });
  expect(bad.ok).toBe(false);
  if (!bad.ok) expect(bad.error.message).toMatch(/unknown field "propertys.total"/);
});

it('jumps to a position among the matches, to a time, and pages up from there to the newest', async () => {
  const core = await filled();
  const handlers = createHandlers(core);
  for (const filters of FILTERS.slice(0, 5)) {
    const want = await allIds(core, filters);
    for (const offset of [0, 1, 17, want.length - 10, want.length - 1]) {
      const page = await callOk(handlers, 'messages.list', { ...filters, offset, limit: 10 });
      expect(page.messages.map((m) => m.id), `${JSON.stringify(filters)} at ${offset}`).toEqual(want.slice(offset, offset + 10));
    }
    expect((await callOk(handlers, 'messages.list', { ...filters, offset: want.length, limit: 10 })).messages).toEqual([]);
    // From the oldest page up, newer pages until the newest: every match once, in order.
    const oldest = await callOk(handlers, 'messages.list', { ...filters, offset: Math.max(0, want.length - 10), limit: 10 });
    const up = [...oldest.messages.map((m) => m.id)];
    for (let after = oldest.newer; after !== null && after !== undefined; ) {
      const page = await callOk(handlers, 'messages.list', { ...filters, afterId: after, limit: 10 });
      up.unshift(...page.messages.map((m) => m.id));
      after = page.newer;
    }
    expect(up, `${JSON.stringify(filters)} paged up`).toEqual(want);
  }
  // At a time: the page starts at the newest message received at or before it.
  const all = await allIds(core, {});
  const middle = (await callOk(handlers, 'messages.get', { id: all[150]! })).receivedAt;
  const atTime = await callOk(handlers, 'messages.list', { at: middle, limit: 5 });
  expect(atTime.messages[0]!.receivedAt).toBeLessThanOrEqual(middle);
  const newerThan = all.filter((id) => id > atTime.messages[0]!.id);
  for (const id of newerThan.slice(-3)) expect((await callOk(handlers, 'messages.get', { id })).receivedAt).toBeGreaterThan(middle);
  expect((await callOk(handlers, 'messages.list', { at: 0, limit: 5 })).messages).toEqual([]); // before the first message
  // One way to say where a page starts.
  const both = await invoke(handlers, 'messages.list', { offset: 3, beforeId: 10 });
  expect(both.ok).toBe(false);
});

it('a count asked for while another waits answers the newer one; the older is superseded, not run', async () => {
  const core = await filled();
  const handlers = createHandlers(core);
  const asked = ['order', 'signed', 'u_1', 'u_2'].map((search) => invoke(handlers, 'messages.count', { search }));
  const answers = await Promise.all(asked);
  // The first runs at once; the second and third each wait and are superseded by the next; the last runs.
  expect(answers.map((a) => (a.ok ? 'ok' : a.error.code))).toEqual(['ok', 'superseded', 'superseded', 'ok']);
  const last = answers[3]!;
  if (last.ok) expect((last.value as { matching: number }).matching).toBe((await allIds(core, { search: 'u_2' })).length);
});
