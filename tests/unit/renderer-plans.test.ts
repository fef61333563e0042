// Tracking plans in the inspector, without a DOM: the stream's violations filter (the messages.list
// request, the live test, the replay filter's words), violations in words and as tree notes, the plan
// view's "show in the stream" filters, schemas and re-check progress, and the re-check's store.
import { describe, expect, it } from 'vitest';
import type { CoreEvent, MessageSummary } from '../../shared/contract.ts';
import { messageFilterSchema } from '../../shared/operations.ts';
import type { RecheckProgress, TrackingPlan, Violation } from '../../shared/tracking-plan.ts';
import { createInspector, type Inspector } from '../../renderer/src/store/inspector.ts';
import { hasFilters, listQuery, matchesFilters, NO_FILTERS } from '../../renderer/src/store/filters.ts';
import type { RelayApi } from '../../renderer/src/transport/relay-api.ts';
import { blockedSentence, fieldOf, violationAnnotations, violationsLabel } from '../../renderer/src/views/stream/violation-words.ts';
import { describeFilters } from '../../renderer/src/views/replay/bulk-plan.ts';
import {
  mergeProgress,
  progressFraction,
  progressWords,
  schemaOf,
  shortVersion,
  sourcesWords,
  streamFiltersFor,
} from '../../renderer/src/views/plans/plan-words.ts';
import { recheckOf } from '../../renderer/src/views/plans/recheck-store.ts';
import { msg } from '../helpers/renderer-fixtures.ts';

const row = msg;

const progress = (id: number, done: number, state: RecheckProgress['state'] = 'running', extra: Partial<RecheckProgress> = {}): RecheckProgress => ({
  id,
  done,
  total: 10,
  changed: 0,
  state,
  ...extra,
});

describe('the violations filter', () => {
  const on = { ...NO_FILTERS, violations: true };

  it('asks messages.list for violations: true only when on, alongside the other filters', () => {
    expect(listQuery(NO_FILTERS, 0)).toEqual({});
    expect(listQuery({ ...NO_FILTERS, violations: false }, 0)).toEqual({});
    expect(listQuery(on, 0)).toEqual({ violations: true });
    expect(listQuery({ ...on, status: 'failed', type: 'track', search: ' Order ' }, 0)).toEqual({
      violations: true,
      status: 'accepted',
      delivery: 'failed',
      type: 'track',
      search: 'Order',
    });
  });

  it('makes a filter replay’s filter the core accepts (shared/operations.ts)', () => {
    const filter = messageFilterSchema.parse(listQuery({ ...on, sourceId: 2 }, 0));
    expect(filter).toEqual({ violations: true, sourceId: 2 });
  });

  it('counts as a filter (Esc clears it, the empty list says no match)', () => {
    expect(hasFilters(on)).toBe(true);
    expect(hasFilters({ ...NO_FILTERS, violations: false })).toBe(false);
  });

  it('keeps live rows with violations only', () => {
    expect(matchesFilters(row(1, { violations: 2 }), on)).toBe(true);
    expect(matchesFilters(row(2), on)).toBe(false);
    // A core that does not count violations yet: no violations.
    expect(matchesFilters({ ...row(3), violations: undefined } as unknown as MessageSummary, on)).toBe(false);
    expect(matchesFilters(row(2), NO_FILTERS)).toBe(true);
  });

  it('is said in a bulk replay’s confirmation', () => {
    expect(describeFilters({ ...on, type: 'track' }, String, String)).toBe('type track · with tracking plan violations');
  });
});

describe('violations in words', () => {
  const violations: Violation[] = [
    { type: 'Datatype-Mismatch', path: '/properties/price', message: 'price must be a number; got the string "12"', plan: 'web plan' },
    { type: 'Required-Missing', path: '/properties/currency', message: 'currency is required', plan: 'web plan' },
  ];

  it('labels counts', () => {
    expect(violationsLabel(1)).toBe('1 violation');
    expect(violationsLabel(2)).toBe('2 violations');
    expect(violationsLabel(1200)).toBe('1,200 violations');
  });

  it('names the field a pointer is about', () => {
    expect(fieldOf('/properties/price')).toBe('properties.price');
    expect(fieldOf('/properties/a~1b')).toBe('properties.a/b');
    expect(fieldOf('/event')).toBe('event');
    expect(fieldOf('')).toBe('the message');
  });

  it('turns violations into tree notes on their paths, with type and plan in the tooltip', () => {
    const notes = violationAnnotations(violations);
    expect(notes.map((n) => [n.pointer, n.text, n.tag])).toEqual([
      ['/properties/price', 'price must be a number; got the string "12"', 'Datatype-Mismatch'],
      ['/properties/currency', 'currency is required', 'Required-Missing'],
    ]);
    expect(notes[1]!.title).toBe('Required-Missing (required field missing) — plan “web plan”, at /properties/currency');
  });
});

describe('the plan view', () => {
  const sources = [
    { id: 1, name: 'web' },
    { id: 2, name: 'ios' },
  ];

  it('opens the stream on an event’s messages with violations, on the plan’s one source', () => {
    const stat = { type: 'track', event: 'Order Completed' };
    expect(streamFiltersFor(stat, { sources: ['ios'] }, sources, true)).toEqual({
      ...NO_FILTERS,
      type: 'track',
      search: 'Order Completed',
      sourceId: 2,
      violations: true,
    });
    // Several sources, or every source: no source filter; all its messages: no violations filter.
    const all = streamFiltersFor(stat, { sources: null }, sources, false);
    expect(all).toEqual({ ...NO_FILTERS, type: 'track', search: 'Order Completed', sourceId: null });
    expect(all.violations).toBeUndefined();
    expect(streamFiltersFor(stat, { sources: ['web', 'ios'] }, sources, true).sourceId).toBeNull();
    // A source the inspector does not know: none.
    expect(streamFiltersFor(stat, { sources: ['gone'] }, sources, true).sourceId).toBeNull();
    // A type's messages (identify): by type, no search; the query asks for violations.
    const identify = streamFiltersFor({ type: 'identify', event: null }, { sources: null }, sources, true);
    expect(listQuery(identify, 0)).toEqual({ type: 'identify', violations: true });
  });

  it('finds an event’s schema in the plan', () => {
    const plan: TrackingPlan = {
      events: { 'Order Completed': { type: 'object', required: ['price'] } },
      identify: { type: 'object' },
    };
    expect(schemaOf(plan, { type: 'track', event: 'Order Completed' })).toEqual({ type: 'object', required: ['price'] });
    expect(schemaOf(plan, { type: 'track', event: 'toString' })).toBeUndefined();
    expect(schemaOf(plan, { type: 'identify', event: null })).toEqual({ type: 'object' });
    expect(schemaOf(plan, { type: 'page', event: null })).toBeUndefined();
    expect(schemaOf(plan, { type: 'alias', event: null })).toBeUndefined();
    expect(schemaOf(null, { type: 'track', event: 'Order Completed' })).toBeUndefined();
  });

  it('says sources and versions', () => {
    expect(sourcesWords({ sources: null })).toBe('every source');
    expect(sourcesWords({ sources: ['web', 'ios'] })).toBe('web, ios');
    expect(shortVersion(null)).toBe('none loaded');
    expect(shortVersion('0123456789abcdef')).toBe('0123456789ab');
  });
});

describe('re-check progress', () => {
  it('keeps the newest view of a job, whichever order events and the answer come in', () => {
    expect(mergeProgress(null, progress(1, 0))).toEqual(progress(1, 0));
    expect(mergeProgress(progress(1, 5), progress(1, 3))).toEqual(progress(1, 5)); // an older event after a newer one
    expect(mergeProgress(progress(1, 5), progress(1, 7))).toEqual(progress(1, 7));
    expect(mergeProgress(progress(1, 10, 'finished'), progress(1, 0))).toEqual(progress(1, 10, 'finished')); // the call's answer after the end
    expect(mergeProgress(progress(1, 4), progress(1, 4, 'failed', { error: 'disk full' })).state).toBe('failed');
    expect(mergeProgress(progress(1, 10, 'finished'), progress(2, 0))).toEqual(progress(2, 0)); // a new job
    expect(mergeProgress(progress(2, 1), progress(1, 10, 'finished'))).toEqual(progress(2, 1));
  });

  it('measures and says it', () => {
    expect(progressFraction(progress(1, 5))).toBe(0.5);
    expect(progressFraction({ ...progress(1, 0), total: 0 })).toBe(0);
    expect(progressFraction({ ...progress(1, 0, 'finished'), total: 0 })).toBe(1);
    expect(progressWords(progress(1, 5, 'running', { changed: 1 }))).toBe('Re-checking… 5 of 10 messages · 1 changed its violations');
    expect(progressWords(progress(1, 10, 'finished', { changed: 3 }))).toBe('Finished: 10 messages re-checked · 3 changed their violations.');
    expect(progressWords(progress(1, 4, 'failed', { error: 'the store closed' }))).toBe(
      'Failed after 4 of 10 messages: the store closed. 0 changed their violations; run it again to finish.',
    );
  });
});

/** A transport that answers every call at once, and lets the test send events. */
function fakeApi(answers: Record<string, (request: any) => unknown>) {
  const listeners = new Set<(events: CoreEvent[]) => void>();
  const calls: { channel: string; request: unknown }[] = [];
  const api: RelayApi = {
    kind: 'websocket',
    invoke: (async (channel: string, request: unknown) => {
      calls.push({ channel, request });
      const answer = answers[channel];
      if (!answer) return { ok: false, error: { code: 'unknown', message: `no ${channel}` } };
      const value = answer(request);
      return value instanceof Error ? { ok: false, error: { code: 'refused', message: value.message } } : { ok: true, value };
    }) as RelayApi['invoke'],
    onEvents(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onState(listener) {
      listener({ kind: 'open' });
      return () => {};
    },
    close() {},
  };
  return { api, calls, emit: (...events: CoreEvent[]) => listeners.forEach((l) => l(events)) };
}

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
    expect(recheck.store.getState()).toEqual({ progress: progress(7, 4), starting: false, error: null });
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

  it('reads the stream and the open detail again when a re-check changed stored violations', async () => {
    const t = started({ 'messages.get': ({ id }) => ({ ...row(id), raw: '{}', message: {}, deliveries: [], violationList: [] }) });
    await tick();
    t.inspector.open(3);
    await tick();
    const count = (channel: string) => t.calls.filter((c) => c.channel === channel).length;
    const [lists, gets] = [count('messages.list'), count('messages.get')];
    t.emit({ type: 'plans.recheck', progress: progress(1, 5) });
    t.emit({ type: 'plans.recheck', progress: progress(1, 10, 'finished', { changed: 0 }) });
    await tick();
    expect([count('messages.list'), count('messages.get')]).toEqual([lists, gets]);
    t.emit({ type: 'plans.recheck', progress: progress(2, 10, 'finished', { changed: 4 }) });
    await tick();
    expect([count('messages.list'), count('messages.get')]).toEqual([lists + 1, gets + 1]);
  });
});

describe('a blocked message in words', () => {
  it('starts with the core’s reason when it already says blocked, and says so otherwise', () => {
    expect(blockedSentence('blocked by the tracking plan "web plan": properties.price is required (and 3 more)')).toBe(
      'Blocked by the tracking plan "web plan": properties.price is required (and 3 more).',
    );
    expect(blockedSentence('unplanned event "Signed Up".')).toBe('Blocked by a tracking plan: unplanned event "Signed Up".');
  });
});
