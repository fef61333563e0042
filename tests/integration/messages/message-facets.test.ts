// Issue 29, point 5: the stream's facets and timeline through a real core and its contract handlers
// (counted in the counting thread, count-worker.ts): the top values of event, type, source, userId and
// a payload field, exactly as ingested; each value's clause, added to the search, picks exactly the
// messages it counted (messages.count says so); a search narrows them; the timeline's buckets; and past
// FACET_SCAN matches, counts of the latest ones that say so (read on the store with a small scan).
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { openReadOnly } from '../../../electron/core/store/connection.ts';
import { databaseFile } from '../../../electron/core/store/database.ts';
import { exactTimeline, messageFacets, messageTimeline } from '../../../electron/core/store/message-facets.ts';
import type { FacetView } from '../../../shared/channels/facets.ts';
import { withClause } from '../../../shared/facets.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

const T0 = Date.UTC(2026, 0, 1, 10, 0, 0);
const cores: TestCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
});

/** 40 Order Completed at T0 (plans "pro" and "free plan"), 10 identifies and a refused body at T0+2 min, 6 Signed In at T0+9 min (plan 12). */
async function filled(): Promise<TestCore> {
  let now = T0;
  const core = await startCore({ clock: { now: () => now } });
  cores.push(core);
  const orders = Array.from({ length: 40 }, (_, i) => ({ type: 'track', event: 'Order Completed', userId: `u_${i % 4}`, properties: { plan: i % 2 ? 'pro' : 'free plan' } }));
  expect((await post(core, '/v1/batch', { batch: orders })).status).toBe(200);
  now = T0 + 120_000;
  const identifies = Array.from({ length: 10 }, () => ({ type: 'identify', userId: 'u_9', traits: { plan: 'pro' } }));
  expect((await post(core, '/v1/batch', { batch: identifies })).status).toBe(200);
  expect((await post(core, '/v1/batch', '{"batch": [')).status).toBe(400);
  await until(() => core.messages.list().length === 51 || undefined);
  now = T0 + 540_000;
  const signIns = Array.from({ length: 6 }, (_, i) => ({ type: 'track', event: 'Signed In', anonymousId: `a_${i}`, properties: { plan: 12 } }));
  expect((await post(core, '/v1/batch', { batch: signIns })).status).toBe(200);
  return core;
}

const values = (facet: FacetView | undefined) => facet!.values.map((v) => [v.value, v.count]);

describe('facets', () => {
  it('counts every field exactly as ingested, and each clause picks exactly the messages its value counted', async () => {
    const core = await filled();
    const handlers = createHandlers(core);
    const view = await callOk(handlers, 'messages.facets', { field: 'properties.plan' });
    expect(view).toMatchObject({ counted: 57, complete: true });
    const by = new Map(view.facets.map((f) => [f.field, f]));
    expect([...by.keys()]).toEqual(['event', 'type', 'source', 'userId', 'properties.plan']);
    expect(values(by.get('event'))).toEqual([['Order Completed', 40], [null, 11], ['Signed In', 6]]);
    expect(values(by.get('type'))).toEqual([['track', 46], ['identify', 10], [null, 1]]);
    expect(values(by.get('source'))).toEqual([[core.sources.list()[0]!.name, 57]]);
    expect(values(by.get('userId'))).toEqual([['u_0', 10], ['u_1', 10], ['u_2', 10], ['u_3', 10], ['u_9', 10], [null, 7]]);
    expect(values(by.get('properties.plan'))).toEqual([['free plan', 20], ['pro', 20], [null, 11], ['12', 6]]);
    expect(by.get('properties.plan')!.values.map((v) => v.clause)).toEqual(['properties.plan:"free plan"', 'properties.plan:pro', '-properties.plan:*', 'properties.plan:12']);
    expect(by.get('event')!.values[0]!.clause).toBe('event:"Order Completed"');

    // Every value's clause, as the inspector adds it to the search, matches exactly its count.
    for (const facet of view.facets) {
      for (const value of facet.values) {
        const { matching } = await callOk(handlers, 'messages.count', { search: withClause('', value.clause!) });
        expect([facet.field, value.value, matching]).toEqual([facet.field, value.value, value.count]);
      }
    }
  });

  it('a search narrows them, and a payload field it picks', async () => {
    const core = await filled();
    const handlers = createHandlers(core);
    const view = await callOk(handlers, 'messages.facets', { search: 'userId:u_1', field: 'properties.plan' });
    expect(view).toMatchObject({ counted: 10, complete: true });
    expect(values(view.facets[0])).toEqual([['Order Completed', 10]]);
    expect(values(view.facets[4])).toEqual([['pro', 10]]);
    const words = await callOk(handlers, 'messages.facets', { search: '"pro"', type: 'track' });
    expect(values(words.facets[3])).toEqual([['u_1', 10], ['u_3', 10]]);
  });

  it('refuses a field that is not a payload path, with the fix', async () => {
    const core = await filled();
    const result = await invoke(createHandlers(core), 'messages.facets', { field: 'plan' });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_request', message: expect.stringContaining('give a path such as properties.plan') } });
  });

  it('past the scan, counts the latest matches and says so', async () => {
    const core = await filled();
    const db = openReadOnly(databaseFile(core.dataDir));
    try {
      const view = messageFacets(db, {}, 5);
      expect(view).toMatchObject({ counted: 5, complete: false });
      expect(values(view.facets[0])).toEqual([['Signed In', 5]]);
      expect(messageFacets(db, { type: 'identify' }, 10)).toMatchObject({ counted: 10, complete: true });
      const timeline = messageTimeline(db, { type: 'track' }, 5);
      expect(timeline).toMatchObject({ exact: false, since: T0 + 540_000, counts: [5] });
      // Unfiltered, on the time index: past its scan, only the messages received after the one past it.
      const sum = (counts: number[]) => counts.reduce((a, b) => a + b, 0);
      const capped = exactTimeline(db, {}, 10)!;
      expect(capped).toMatchObject({ exact: false, since: T0 + 120_001 });
      expect(sum(capped.counts)).toBe(6);
      const whole = exactTimeline(db, {}, 57)!;
      expect(whole).toMatchObject({ exact: true, since: null, from: T0 });
      expect(sum(whole.counts)).toBe(57);
    } finally {
      db.close();
    }
  });
});

describe('timeline', () => {
  it('unfiltered and in a time range: every message, in 10 s buckets over 9 minutes', async () => {
    const core = await filled();
    const handlers = createHandlers(core);
    const all = (await callOk(handlers, 'messages.timeline', {}))!;
    expect(all).toMatchObject({ from: T0, bucketMs: 10_000, exact: true, since: null });
    expect(all.counts).toHaveLength(55);
    expect(Object.entries(all.counts).filter(([, n]) => n > 0)).toEqual([['0', 40], ['12', 11], ['54', 6]]);
    const later = (await callOk(handlers, 'messages.timeline', { from: T0 + 60_000 }))!;
    expect(later).toMatchObject({ from: T0 + 120_000, bucketMs: 10_000, exact: true });
    expect(Object.entries(later.counts).filter(([, n]) => n > 0)).toEqual([['0', 11], ['42', 6]]);
  });

  it('under a search: the matches only', async () => {
    const core = await filled();
    const handlers = createHandlers(core);
    const tracks = (await callOk(handlers, 'messages.timeline', { search: 'type:track' }))!;
    expect(tracks).toMatchObject({ from: T0, bucketMs: 10_000, exact: true });
    expect(Object.entries(tracks.counts).filter(([, n]) => n > 0)).toEqual([['0', 40], ['54', 6]]);
    expect(await callOk(handlers, 'messages.timeline', { search: 'nothing_matches_this' })).toBeNull();
  });
});
