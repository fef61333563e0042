// Live rows whose read fails (a timeout, an internal error that leaves the connection open), without a
// DOM: the read is asked once more a moment later, and a second failure is said in the page's problem
// banner. Before 2026-12-01 the rows were dropped without a word: missing from the list for good while
// the counts had them.
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import type { MessageSummary } from '../../shared/contract.ts';
import { createInspector } from '../../renderer/src/store/inspector.ts';
import { REFETCH_DELAY_MS } from '../../renderer/src/store/inspector/row-fetcher.ts';
import { fakeApi, msg } from '../helpers/renderer-fixtures.ts';

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

async function started(failures: number) {
  const stored = new Map<number, MessageSummary>([[1, msg(1)]]);
  let failing = failures;
  const fake = fakeApi({
    'app.info': () => ({ version: '0', ingestUrl: 'http://x', receiverUrl: 'http://y', dataDir: '/tmp', sources: [] }),
    'destinations.list': () => ({ destinations: [] }),
    'messages.list': () => ({ messages: [...stored.values()].sort((a, b) => b.id - a.id), next: null }),
    'messages.byIds': ({ ids }: { ids: number[] }) => (failing-- > 0 ? new Error('the read timed out') : { messages: ids.flatMap((id) => (stored.has(id) ? [stored.get(id)!] : [])) }),
    'messages.count': () => ({ total: stored.size, matching: stored.size, newestId: Math.max(...stored.keys()) }),
  });
  const inspector = createInspector(fake.api, { requestFrame: (cb) => setTimeout(cb, 0), now: () => 0 });
  inspector.start();
  await vi.advanceTimersByTimeAsync(0);
  const arrive = async (id: number) => {
    stored.set(id, msg(id));
    fake.emit({ type: 'messages.stored', ids: [id] } as never);
    await vi.advanceTimersByTimeAsync(0);
  };
  return { inspector, arrive, order: () => [...inspector.store.getState().list.order], reads: () => fake.calls.filter((c) => c.channel === 'messages.byIds').length };
}

it('asks a failed read once more, and the row comes', async () => {
  const t = await started(1);
  expect(t.order()).toEqual([1]);
  await t.arrive(2);
  expect(t.order()).toEqual([1]);
  await vi.advanceTimersByTimeAsync(REFETCH_DELAY_MS);
  await vi.advanceTimersByTimeAsync(10); // the answer, and the frame that applies it
  expect(t.order()).toEqual([2, 1]);
  expect(t.inspector.store.getState().problem).toBeNull();
});

it('says a read that failed twice, rather than leaving the row out without a word', async () => {
  const t = await started(2);
  await t.arrive(2);
  await vi.advanceTimersByTimeAsync(REFETCH_DELAY_MS);
  expect(t.order()).toEqual([1]);
  expect(t.reads()).toBe(2); // asked once more, not again and again
  await vi.advanceTimersByTimeAsync(REFETCH_DELAY_MS * 5);
  expect(t.reads()).toBe(2);
  expect(t.inspector.store.getState().problem).toMatch(/Could not read 1 message that arrived \(the read timed out\)/);
});
