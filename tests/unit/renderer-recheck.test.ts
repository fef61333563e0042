// The re-check of stored messages in the inspector, without a DOM: the re-check store (started from
// the view, followed through plans.recheck events and plans.list's answer) and the stream after a
// re-check changed stored violations (rows read again in place, not reloaded; model.ts's refreshRows).
import { describe, expect, it } from 'vitest';
import type { MessageSummary } from '../../shared/contract.ts';
import type { RecheckProgress } from '../../shared/tracking-plan.ts';
import { createInspector, type Inspector } from '../../renderer/src/store/inspector.ts';
import type { Filters } from '../../renderer/src/store/filters.ts';
import { addPage, addRows, emptyList, evictRows, refreshRows } from '../../renderer/src/store/model.ts';
import { isRunning, recheckOf } from '../../renderer/src/views/plans/recheck-store.ts';
import { fakeApi, msg as row, progress } from '../helpers/renderer-fixtures.ts';



const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function started(answers: Record<string, (request: any) => unknown> = {}) {
  const fake = fakeApi({
    'app.info': () => ({ version: '0', ingestUrl: 'http://x', receiverUrl: 'http://y', dataDir: '/tmp', sources: [] }),
    'destinations.list': () => ({ destinations: [] }),
    'messages.list': () => ({ messages: [], next: null }),
    ...answers,
  });
  const inspector: Inspector = createInspector(fake.api, { requestFrame: (cb) => setTimeout(cb, 0), now: () => 0 });
  inspector.start();
  return { ...fake, inspector };
}

describe('the re-check store', () => {
  it('starts a re-check, follows its events and refuses a second while it runs', async () => {
    const t = started({ 'plans.recheck': () => progress(7, 0) });
    const recheck = recheckOf(t.inspector);
    expect(recheckOf(t.inspector)).toBe(recheck); // one per inspector
    // An event may come before the call's answer.
    const starting = recheck.start();
    t.emit({ type: 'plans.recheck', progress: progress(7, 4) });
    await starting;
    expect(recheck.store.getState()).toEqual({ progress: progress(7, 4), lost: false, starting: false, error: null });
    await recheck.start();
    expect(t.calls.filter((c) => c.channel === 'plans.recheck')).toHaveLength(1);
    t.emit({ type: 'plans.recheck', progress: progress(7, 10, 'finished', { changed: 2 }) });
    expect(recheck.store.getState().progress?.state).toBe('finished');
  });

  it('says why a re-check could not start', async () => {
    const t = started({ 'plans.recheck': () => new Error('no tracking plan is configured') });
    const recheck = recheckOf(t.inspector);
    await recheck.start();
    expect(recheck.store.getState()).toMatchObject({ progress: null, starting: false, error: 'Could not start the re-check: no tracking plan is configured' });
  });

  it('follows plans.list: merges the re-check under way, and ends one the core no longer runs', async () => {
    const t = started();
    const recheck = recheckOf(t.inspector);
    recheck.follow(progress(5, 2), recheck.seen()); // under way before the page opened
    expect(recheck.store.getState()).toMatchObject({ progress: progress(5, 2), lost: false });
    expect(isRunning(recheck.store.getState())).toBe(true);
    // The core runs none now (its end event was missed): ended, how is not known; Re-check is on again.
    recheck.follow(null, recheck.seen());
    expect(recheck.store.getState()).toMatchObject({ progress: progress(5, 2), lost: true });
    expect(isRunning(recheck.store.getState())).toBe(false);
    // Its end arrives after all: shown as it is.
    t.emit({ type: 'plans.recheck', progress: progress(5, 10, 'finished', { changed: 1 }) });
    expect(recheck.store.getState()).toMatchObject({ progress: progress(5, 10, 'finished', { changed: 1 }), lost: false });
  });

  it('does not end a re-check learnt of after plans.list was asked (a list answer from before it started)', async () => {
    const t = started({ 'plans.recheck': () => progress(9, 0) });
    const recheck = recheckOf(t.inspector);
    const asked = recheck.seen();
    await recheck.start();
    recheck.follow(null, asked);
    expect(recheck.store.getState()).toMatchObject({ progress: progress(9, 0), lost: false });
    // A later re-check (a greater id: ids grow across restarts) replaces a lost one.
    recheck.follow(null, recheck.seen());
    expect(recheck.store.getState().lost).toBe(true);
    t.emit({ type: 'plans.recheck', progress: progress(10, 1) });
    expect(recheck.store.getState()).toMatchObject({ progress: progress(10, 1), lost: false });
  });
});

describe('the stream after a re-check', () => {
  /** A stream of rows 1..n (newest first), whose byIds answers come from `stored` (the rows as the core now has them). */
  async function stream(n: number, stored: Map<number, MessageSummary>, filters: Partial<Filters> = {}) {
    const t = started({
      'messages.list': (request) => {
        const rows = [...stored.values()].filter((m) => (request.violations || request.plan ? m.violations > 0 : true));
        return { messages: rows.sort((a, b) => b.id - a.id).slice(0, n), next: null };
      },
      'messages.byIds': ({ ids }: { ids: number[] }) => ({ messages: ids.flatMap((id) => (stored.has(id) ? [stored.get(id)!] : [])) }),
      'messages.get': ({ id }) => ({ ...row(id), raw: '{}', message: {}, deliveries: [], violationList: [] }),
    });
    if (Object.keys(filters).length > 0) t.inspector.setFilters(filters);
    await tick();
    await tick();
    return t;
  }
  const count = (t: ReturnType<typeof started>, channel: string) => t.calls.filter((c) => c.channel === channel).length;
  const badges = (t: ReturnType<typeof started>) => t.inspector.store.getState().list.order.map((id) => t.inspector.store.getState().list.byId.get(id)?.violations);

  it('reads the rows’ violations again in place (no reload: rows, pages and scroll stay), and the open detail', async () => {
    const stored = new Map([1, 2, 3].map((id) => [id, row(id, { violations: 1 })]));
    const t = await stream(3, stored);
    t.inspector.open(3);
    await tick();
    const [lists, gets] = [count(t, 'messages.list'), count(t, 'messages.get')];
    const before = t.inspector.store.getState().list;
    // A re-check still running, or one that changed nothing: nothing is read again.
    t.emit({ type: 'plans.recheck', progress: progress(1, 5) });
    t.emit({ type: 'plans.recheck', progress: progress(1, 10, 'finished', { changed: 0 }) });
    await tick();
    expect(count(t, 'messages.byIds')).toBe(0);
    stored.set(2, row(2, { violations: 0 }));
    t.emit({ type: 'plans.recheck', progress: progress(2, 10, 'finished', { changed: 1 }) });
    await tick();
    await tick();
    expect([count(t, 'messages.list'), count(t, 'messages.get')]).toEqual([lists, gets + 1]);
    expect(t.calls.filter((c) => c.channel === 'messages.byIds').map((c) => (c.request as { ids: number[] }).ids.sort())).toEqual([[1, 2, 3]]);
    const after = t.inspector.store.getState().list;
    expect(after.order).toEqual(before.order);
    expect(badges(t)).toEqual([1, 0, 1]);
    expect(after.byId.get(3)).toBe(before.byId.get(3)); // an unchanged row keeps its identity
  });

  it('drops the rows that no longer match the Violations or plan filter', async () => {
    const stored = new Map([1, 2, 3].map((id) => [id, row(id, { violations: 1 })]));
    for (const filters of [{ violations: true }, { plan: 'web plan' }] as Partial<Filters>[]) {
      const t = await stream(3, stored, filters);
      expect(t.inspector.store.getState().list.order).toEqual([3, 2, 1]);
      stored.set(2, row(2, { violations: 0 }));
      t.emit({ type: 'plans.recheck', progress: progress(3, 3, 'finished', { changed: 1 }) });
      await tick();
      await tick();
      expect(t.inspector.store.getState().list.order).toEqual([3, 1]);
      stored.set(2, row(2, { violations: 1 }));
    }
  });

  it('waits for the stream to resume when it is paused, and keeps the held count', async () => {
    const stored = new Map([1, 2].map((id) => [id, row(id, { violations: 1 })]));
    const t = await stream(2, stored);
    t.inspector.setPaused(true);
    t.emit({ type: 'messages.stored', ids: [3] });
    stored.set(3, row(3));
    stored.set(1, row(1, { violations: 0 }));
    t.emit({ type: 'plans.recheck', progress: progress(4, 3, 'finished', { changed: 1 }) });
    await tick();
    expect(count(t, 'messages.byIds')).toBe(0);
    expect(badges(t)).toEqual([1, 1]);
    expect(t.inspector.store.getState().held).toBe(1);
    t.inspector.setPaused(false);
    await tick();
    await tick();
    await tick();
    expect(t.inspector.store.getState().list.order).toEqual([3, 2, 1]);
    expect(badges(t)).toEqual([0, 1, 0]);
    expect(count(t, 'messages.list')).toBe(1); // never reloaded
  });

  it('reads a long list in calls of at most 5,000 ids', async () => {
    const stored = new Map(Array.from({ length: 5001 }, (_, i) => [i + 1, row(i + 1, { violations: 1 })]));
    const t = await stream(5001, stored);
    t.emit({ type: 'plans.recheck', progress: progress(5, 5001, 'finished', { changed: 1 }) });
    for (let i = 0; i < 4; i++) await tick();
    expect(t.calls.filter((c) => c.channel === 'messages.byIds').map((c) => (c.request as { ids: number[] }).ids.length)).toEqual([5000, 1]);
  });
});

describe('rows read again after a re-check', () => {
  it('take their new violations in place, leave when `keep` refuses them, and add nothing', () => {
    const page = () => evictRows(addPage(emptyList(), [row(3, { violations: 1 }), row(2, { violations: 2 }), row(1, { violations: 1 })], null), [[0, 2]]);
    // A new violations count alone is a change (for addRows too: a row fetched again after a re-check).
    expect(addRows(page(), [row(2, { violations: 0 })], null).byId.get(2)!.violations).toBe(0);
    const list = page(); // row 1 listed, not loaded
    expect(list.byId.has(1)).toBe(false);
    const row3 = list.byId.get(3);
    const refreshed = refreshRows(list, [row(3, { violations: 1 }), row(2, { violations: 0 }), row(1, { violations: 0 }), row(9, { violations: 1 })], (m) => m.violations > 0);
    expect(refreshed.order).toEqual([3]); // 2 and 1 (not loaded) no longer match; 9 is not listed: not added
    expect(refreshed.byId.get(3)).toBe(row3);
    expect(refreshed.counts.none).toBe(1);
    const all = addPage(emptyList(), [row(2, { violations: 2 }), row(1, { blocked: 'x' })], null);
    const kept = refreshRows(all, [row(2), row(1)], () => true);
    expect(kept.order).toBe(all.order);
    expect([kept.byId.get(2)!.violations, kept.byId.get(1)!.blocked]).toEqual([0, undefined]);
    expect(refreshRows(kept, [row(2), row(1)], () => true)).toBe(kept);
  });
});
