// The stream after messages were pruned or cleared (storage.pruned), without a DOM: the rows that went
// leave the list cheaply — the oldest ids checked first after a prune, a short list checked in one call
// after a clear, a long one reloaded — the open message says it went, nothing moves while paused; and
// the import of a dropped file (read, sent with the chosen source, its outcome kept; a failure said).
import { describe, expect, it } from 'vitest';
import type { CoreEvent, MessageSummary } from '../../shared/contract.ts';
import type { ImportOutcome, PruneReport } from '../../shared/storage.ts';
import { createInspector, type Inspector } from '../../renderer/src/store/inspector.ts';
import { PRUNE_FIRST_CHECK } from '../../renderer/src/store/inspector/prune-refresh.ts';
import { addPage, dropRows, emptyList, evictRows } from '../../renderer/src/store/model.ts';
import { createImportController } from '../../renderer/src/views/storage/import-store.ts';
import { fakeApi, msg as row } from '../helpers/renderer-fixtures.ts';


const tick = async (n = 4) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

const pruned = (reason: PruneReport['reason'], messages = 10, kept: Partial<PruneReport> = {}): CoreEvent => ({
  type: 'storage.pruned',
  report: { at: 0, messages, deliveries: 0, attempts: 0, reason, keptPending: 0, tookMs: 1, ...kept },
});

/** A stream listing rows 1..n (newest first) whose byIds answers come from `stored`. */
async function stream(n: number, stored: Map<number, MessageSummary>, next: number | null = null) {
  const fake = fakeApi({
    'app.info': () => ({ version: '0', ingestUrl: 'http://x', receiverUrl: 'http://y', dataDir: '/tmp', sources: [] }),
    'destinations.list': () => ({ destinations: [] }),
    'messages.list': (request: { beforeId?: number }) =>
      request.beforeId === undefined ? { messages: [...stored.values()].sort((a, b) => b.id - a.id).slice(0, n), next } : { messages: [], next: null },
    'messages.byIds': ({ ids }: { ids: number[] }) => ({ messages: ids.flatMap((id) => (stored.has(id) ? [stored.get(id)!] : [])) }),
    'messages.count': () => ({ total: stored.size, matching: stored.size, newestId: Math.max(0, ...stored.keys()) }),
    'messages.get': ({ id }: { id: number }) => (stored.has(id) ? { ...stored.get(id)!, raw: '{}', message: {}, deliveries: [], violationList: [] } : new Error('not found')),
  });
  const inspector: Inspector = createInspector(fake.api, { requestFrame: (cb) => setTimeout(cb, 0), now: () => 0 });
  inspector.start();
  await tick();
  const count = (channel: string) => fake.calls.filter((c) => c.channel === channel).length;
  const byIdsSizes = () => fake.calls.filter((c) => c.channel === 'messages.byIds').map((c) => c.request.ids.length as number);
  return { ...fake, inspector, count, byIdsSizes, order: () => inspector.store.getState().list.order };
}

const rows = (from: number, to: number) => new Map(Array.from({ length: to - from + 1 }, (_, i) => [from + i, row(from + i)]));

describe('the stream after a prune', () => {
  it('drops the oldest rows that went, checking the oldest ids first, without reloading', async () => {
    const stored = rows(1, 1000);
    const t = await stream(1000, stored);
    expect(t.order()).toHaveLength(1000);
    t.inspector.open(3);
    await tick();
    for (let id = 1; id <= 450; id++) stored.delete(id);
    t.emit(pruned('maxAgeDays', 450));
    await tick(8);
    expect(t.order()).toHaveLength(550);
    expect(t.order().at(-1)).toBe(451);
    // 200 oldest (all gone), then 800 more (partly gone): the cut found; no reload.
    expect(t.byIdsSizes()).toEqual([PRUNE_FIRST_CHECK, 800]);
    expect(t.count('messages.list')).toBe(1);
    const { detail } = t.inspector.store.getState();
    expect(detail?.id).toBe(3);
    expect(detail?.error).toBe('This message is no longer stored: retention, a clear or a purge removed it.');
  });

  it('checks past the rows retention kept (pinned, still being delivered) until the cut is passed', async () => {
    const stored = rows(1, 1000);
    const t = await stream(1000, stored);
    // Everything up to 450 went but 1 (pinned) and 300 (a delivery still retrying).
    for (let id = 2; id <= 450; id++) if (id !== 300) stored.delete(id);
    t.emit(pruned('maxAgeDays', 448, { keptPending: 1, keptPinned: 1 }));
    await tick(8);
    // The 200 oldest hold one stored row — the pinned one, not the cut — so the check goes on.
    expect(t.byIdsSizes()).toEqual([PRUNE_FIRST_CHECK, 800]);
    expect(t.order()).toHaveLength(552);
    expect(t.order().slice(-3)).toEqual([451, 300, 1]);
  });

  it('stops at the first chunk still stored whole, however many retention kept (they lie below the list)', async () => {
    const stored = rows(501, 1000);
    const t = await stream(500, stored, 500);
    t.emit(pruned('maxMessages', 300, { keptPending: 5000 }));
    await tick(8);
    expect(t.byIdsSizes()).toEqual([PRUNE_FIRST_CHECK]);
    expect(t.order()).toHaveLength(500);
  });

  it('checks one small call when nothing listed went', async () => {
    const stored = rows(500, 1000);
    const t = await stream(501, stored, 500);
    t.emit(pruned('maxMessages', 499));
    await tick();
    expect(t.byIdsSizes()).toEqual([PRUNE_FIRST_CHECK]);
    expect(t.order()).toHaveLength(501);
  });

  it('ignores a report of nothing removed', async () => {
    const t = await stream(3, rows(1, 3));
    t.emit(pruned('maxAgeDays', 0));
    await tick();
    expect(t.count('messages.byIds')).toBe(0);
  });

  it('loads again when every listed row went and older pages were left', async () => {
    const stored = rows(1, 5);
    const t = await stream(5, stored, 1);
    for (let id = 1; id <= 5; id++) stored.delete(id);
    t.emit(pruned('maxBytes', 5));
    await tick(8);
    // The first page again (then, empty, the older pages: none here).
    expect(t.calls.filter((c) => c.channel === 'messages.list' && c.request.beforeId === undefined)).toHaveLength(2);
    expect(t.order()).toEqual([]);
  });

  it('waits for the stream to resume when it is paused', async () => {
    const stored = rows(1, 10);
    const t = await stream(10, stored);
    t.inspector.setPaused(true);
    stored.delete(1);
    stored.delete(2);
    t.emit(pruned('maxAgeDays', 2));
    await tick();
    expect(t.count('messages.byIds')).toBe(0);
    expect(t.order()).toHaveLength(10);
    t.inspector.setPaused(false);
    await tick(8);
    expect(t.order()).toEqual([10, 9, 8, 7, 6, 5, 4, 3]);
  });
});

describe('the stream after a clear', () => {
  it('checks a short list in one call and drops the rows that went, wherever they are', async () => {
    const stored = rows(1, 6);
    const t = await stream(6, stored);
    t.inspector.select(4);
    stored.delete(4);
    stored.delete(2);
    t.emit(pruned('clear', 2));
    await tick(8);
    expect(t.byIdsSizes()).toEqual([6]);
    expect(t.order()).toEqual([6, 5, 3, 1]);
    expect(t.inspector.store.getState().selectedId).toBeNull();
    expect(t.count('messages.list')).toBe(1);
  });

  it('loads a long list’s first page again instead of reading it all', async () => {
    const stored = rows(1, 5001);
    const t = await stream(5001, stored);
    expect(t.inspector.store.getState().counts).toEqual({ total: 5001, matching: 5001 });
    stored.delete(1);
    t.emit(pruned('clear', 1));
    await tick(8);
    expect(t.count('messages.byIds')).toBe(0);
    expect(t.count('messages.list')).toBe(2);
    // The reload's count, asked after the clear, is the one shown (not dropped as one asked before it).
    expect(t.inspector.store.getState().counts).toEqual({ total: 5000, matching: 5000 });
  });
});

describe('the open and selected message after a removal', () => {
  /** A new message given id `id` again (ids restart once the newest went), with a delivery change the page hears of. */
  const reused = (t: Awaited<ReturnType<typeof stream>>, stored: Map<number, MessageSummary>, id: number) => {
    stored.set(id, row(id, { messageId: `another-${id}`, receivedAt: 1_800_000_000_000 }));
    t.emit({ type: 'messages.stored', ids: [id] });
    t.emit({ type: 'deliveries.changed', changes: [{ deliveryId: 1, messageId: id, status: 'delivered', attemptCount: 1, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null, destinationId: 1, trigger: 'automatic', targetUrl: null }] });
  };
  const gets = (t: Awaited<ReturnType<typeof stream>>) => t.calls.filter((c) => c.channel === 'messages.get').length;

  it('a clear of a long list (reloaded, not checked row by row) still lets the open and selected messages go, and never shows another under their id', async () => {
    const stored = rows(1, 5001);
    const t = await stream(5001, stored);
    t.inspector.open(3);
    await tick();
    t.inspector.select(4);
    stored.delete(3);
    stored.delete(4);
    t.emit(pruned('clear', 2));
    await tick(8);
    expect(t.count('messages.list')).toBe(2); // reloaded
    expect(t.inspector.store.getState().selectedId).toBeNull();
    expect(t.inspector.store.getState().detail).toEqual({ id: 3, data: null, error: 'This message is no longer stored: retention, a clear or a purge removed it.', loading: false, gone: true });
    const asked = gets(t);
    reused(t, stored, 3);
    await new Promise((resolve) => setTimeout(resolve, 300)); // past the detail's refresh after a change
    expect(gets(t)).toBe(asked);
    expect(t.inspector.store.getState().detail).toMatchObject({ id: 3, data: null, gone: true });
  });

  it('a clear of a short list checks the open message by identity: another message that took its id before the check is not it', async () => {
    const stored = rows(1, 5);
    const t = await stream(5, stored);
    t.inspector.open(5);
    await tick();
    // Cleared, and a new message took id 5 before the page's check ran.
    stored.clear();
    stored.set(5, row(5, { messageId: 'another-5', receivedAt: 1_800_000_000_000 }));
    t.emit(pruned('clear', 5));
    await tick(8);
    expect(t.inspector.store.getState().detail).toMatchObject({ id: 5, data: null, gone: true });
  });

  it('a reset lets the open and selected messages go: the message that takes the id next is not shown in their place', async () => {
    const stored = rows(1, 5);
    const t = await stream(5, stored);
    t.inspector.open(2);
    await tick();
    stored.clear();
    t.emit({ type: 'store.reset' });
    await tick(8);
    expect(t.inspector.store.getState().selectedId).toBeNull();
    expect(t.inspector.store.getState().detail).toMatchObject({ id: 2, data: null, error: 'This message is no longer stored: the store was reset.', gone: true });
    reused(t, stored, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(t.inspector.store.getState().detail).toMatchObject({ id: 2, data: null, gone: true });
    expect(t.inspector.store.getState().selectedId).toBeNull();
  });

  it('a detail read again that finds another message under its id says its own went (an event missed while disconnected)', async () => {
    const stored = rows(1, 5);
    const t = await stream(5, stored);
    t.inspector.open(5);
    await tick();
    expect(t.inspector.store.getState().detail?.data?.messageId).toBe('m-5');
    stored.set(5, row(5, { messageId: 'another-5', receivedAt: 1_800_000_000_000 }));
    t.inspector.refreshDetail();
    await tick();
    expect(t.inspector.store.getState().detail).toMatchObject({ id: 5, data: null, gone: true });
    // Opened again (the row clicked): whatever message the id is now.
    t.inspector.open(5);
    await tick();
    expect(t.inspector.store.getState().detail?.data?.messageId).toBe('another-5');
  });
});

describe('dropRows', () => {
  it('removes listed rows, loaded or not, and leaves others alone', () => {
    const list = evictRows(addPage(emptyList(), [row(4), row(3), row(2), row(1)], 1), [[0, 2]]); // 2 and 1 not loaded
    const dropped = dropRows(list, [3, 1, 99]);
    expect(dropped.order).toEqual([4, 2]);
    expect([...dropped.byId.keys()]).toEqual([4]);
    expect(dropped.next).toBe(1);
    expect(dropped.counts.none).toBe(1);
    expect(dropRows(dropped, [99])).toBe(dropped);
  });
});

describe('importing a dropped file', () => {
  const outcome: ImportOutcome = { format: 'ndjson', sent: 2, accepted: 1, refusedCount: 1, refused: [{ line: 2, reason: 'no type' }], refusedAgain: 0, unreadableCount: 0, unreadable: [], skipped: [] };
  const file = (name: string, text: string) => ({ name, size: text.length, text: async () => text });

  it('reads the first file, sends it with the chosen source and keeps the outcome', async () => {
    let answer: (value: unknown) => void = () => {};
    const calls: unknown[] = [];
    const controller = createImportController({ call: ((_channel: string, request: unknown) => (calls.push(request), new Promise((resolve) => (answer = resolve)))) as never });
    await controller.take([file('a.ndjson', '{"type":"track"}\n{}\n'), file('b.ndjson', '{}')]);
    expect(controller.store.getState()).toMatchObject({ step: { kind: 'ready', name: 'a.ndjson' }, skipped: 1 });
    const sending = controller.send(2);
    expect(controller.store.getState().step).toMatchObject({ kind: 'sending', sourceId: 2 });
    controller.close(); // not while sending
    await controller.take([file('c.ndjson', '{}')]); // nor another file
    expect(controller.store.getState().step?.kind).toBe('sending');
    answer({ ok: true, value: outcome });
    await sending;
    expect(calls).toEqual([{ sourceId: 2, fileName: 'a.ndjson', text: '{"type":"track"}\n{}\n' }]);
    expect(controller.store.getState().step).toEqual({ kind: 'done', name: 'a.ndjson', sourceId: 2, outcome });
    controller.close();
    expect(controller.store.getState().step).toBeNull();
  });

  it('says why nothing was imported and lets the user try again', async () => {
    const controller = createImportController({ call: (async () => ({ ok: false, error: { code: 'not_found', message: 'source 9 not found' } })) as never });
    await controller.take([file('a.ndjson', '{}')]);
    await controller.send(9);
    expect(controller.store.getState().step).toMatchObject({ kind: 'ready', problem: 'Nothing was imported: source 9 not found.' });
  });

  it('refuses a file too big to send from the page, naming the command to use', async () => {
    const controller = createImportController({ call: (async () => ({ ok: true, value: outcome })) as never });
    await controller.take([{ name: 'big.ndjson', size: 64 * 1024 * 1024, text: async () => '' }]);
    expect(controller.store.getState().step).toEqual({
      kind: 'refused',
      name: 'big.ndjson',
      message: 'big.ndjson is 64 MB: a file imported here may be at most 16 MB. Import it from a terminal instead: sluice import big.ndjson',
    });
  });
});
