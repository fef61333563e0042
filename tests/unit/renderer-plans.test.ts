// Tracking plans in the inspector, without a DOM: the stream's violations filter (the messages.list
// request, the live test, the replay filter's words), violations in words and as tree notes, the plan
// view's "show in the stream" filters (exact event, plan), schemas and re-check progress in words. The
// re-check's store and the stream after a re-check: renderer-recheck.test.ts.
import { describe, expect, it } from 'vitest';
import type { MessageSummary } from '../../shared/contract.ts';
import { messageFilterSchema } from '../../shared/message-filter.ts';
import type { RecheckProgress, TrackingPlan, Violation } from '../../shared/tracking-plan.ts';
import { hasFilters, listQuery, matchesFilters, NO_FILTERS } from '../../renderer/src/store/filters.ts';
import { blockedSentence, fieldOf, violationAnnotations, violationsLabel } from '../../renderer/src/views/stream/violation-words.ts';
import { describeFilters } from '../../renderer/src/views/replay/bulk-plan.ts';
import {
  mergeProgress,
  progressFraction,
  progressWords,
  readOnlyFormat,
  schemaOf,
  shortVersion,
  sourcesWords,
  streamFiltersFor,
} from '../../renderer/src/views/plans/plan-words.ts';
import { msg, progress } from '../helpers/renderer-fixtures.ts';

const row = msg;


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

describe('the event and plan filters', () => {
  const event = { ...NO_FILTERS, event: 'Order Completed' };
  const plan = { ...NO_FILTERS, plan: 'web plan' };

  it('ask messages.list for the exact event and for the messages that break the plan', () => {
    expect(listQuery(event, 0)).toEqual({ event: 'Order Completed' });
    expect(listQuery(plan, 0)).toEqual({ plan: 'web plan' });
    expect(listQuery({ ...NO_FILTERS, event: '', plan: '' }, 0)).toEqual({});
    expect(messageFilterSchema.parse(listQuery({ ...event, ...plan, sourceId: 1 }, 0))).toEqual({ event: 'Order Completed', plan: 'web plan', sourceId: 1 });
  });

  it('count as filters (chips; Esc clears them)', () => {
    expect(hasFilters(event)).toBe(true);
    expect(hasFilters(plan)).toBe(true);
    expect(hasFilters({ ...NO_FILTERS, event: '', plan: '' })).toBe(false);
  });

  it('keep live rows of that exact name, and rows with violations for a plan (a summary does not name plans)', () => {
    expect(matchesFilters(row(1), event)).toBe(true);
    expect(matchesFilters(row(2, { event: 'Order Completed 2' }), event)).toBe(false);
    expect(matchesFilters(row(3, { event: 'order completed' }), event)).toBe(false);
    expect(matchesFilters(row(4, { event: null, type: 'identify' }), event)).toBe(false);
    expect(matchesFilters(row(5, { violations: 1 }), plan)).toBe(true);
    expect(matchesFilters(row(6), plan)).toBe(false);
  });

  it('are said in a bulk replay’s confirmation', () => {
    expect(describeFilters({ ...event, ...plan, type: 'track' }, String, String)).toBe('type track · event “Order Completed” · breaking the plan “web plan”');
    expect(describeFilters({ ...plan, violations: true }, String, String)).toBe('breaking the plan “web plan”');
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

  it('opens the stream on an event’s messages that break the plan: its exact name, the plan filter, the plan’s one source', () => {
    const stat = { type: 'track', event: 'Order Completed' };
    const violated = streamFiltersFor(stat, { name: 'ios plan', sources: ['ios'] }, sources, true);
    expect(violated).toEqual({ ...NO_FILTERS, type: 'track', event: 'Order Completed', plan: 'ios plan', sourceId: 2 });
    expect(violated.search).toBe(''); // an exact filter, not a search that matches names containing it
    expect(listQuery(violated, 0)).toEqual({ type: 'track', event: 'Order Completed', plan: 'ios plan', sourceId: 2 });
    // Every message of it (Seen): no plan filter; every source: no source filter.
    const all = streamFiltersFor(stat, { name: 'p', sources: null }, sources, false);
    expect(all).toEqual({ ...NO_FILTERS, type: 'track', event: 'Order Completed', sourceId: null });
    expect(all.plan).toBeUndefined();
    expect(all.violations).toBeUndefined();
    // Several sources: no single source filter; the plan filter narrows to what breaks this plan.
    const several = streamFiltersFor(stat, { name: 'p', sources: ['web', 'ios'] }, sources, true);
    expect([several.sourceId, several.plan]).toEqual([null, 'p']);
    // A source the inspector does not know: none.
    expect(streamFiltersFor(stat, { name: 'p', sources: ['gone'] }, sources, true).sourceId).toBeNull();
    // A type's messages (identify): by type, no event filter.
    const identify = streamFiltersFor({ type: 'identify', event: null }, { name: 'p', sources: null }, sources, true);
    expect(listQuery(identify, 0)).toEqual({ type: 'identify', plan: 'p' });
  });

  it('says which plans take no addition: those read from a vendor export', () => {
    expect(readOnlyFormat({ file: '/p/segment.json', format: 'segment' })).toBe('segment');
    expect(readOnlyFormat({ file: '/p/rudder.json', format: 'rudderstack' })).toBe('rudderstack');
    expect(readOnlyFormat({ file: '/p/plan.json', format: 'sluice' })).toBeNull();
    expect(readOnlyFormat({ file: null, format: null })).toBeNull(); // inline: in memory
    expect(readOnlyFormat({ file: '/p/never-loaded.json', format: null })).toBeNull();
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

describe('a blocked message in words', () => {
  it('starts with the core’s reason when it already says blocked, and says so otherwise', () => {
    expect(blockedSentence('blocked by the tracking plan "web plan": properties.price is required (and 3 more)')).toBe(
      'Blocked by the tracking plan "web plan": properties.price is required (and 3 more).',
    );
    expect(blockedSentence('unplanned event "Signed Up".')).toBe('Blocked by a tracking plan: unplanned event "Signed Up".');
  });
});
