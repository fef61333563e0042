// A client's event name may hold a NUL, the separator of the keys the writer groups its counts by: the
// tracking plan's counts (event_counts, what /stats and the Tracking plans view read) and the delivery
// hours (the Overview's), whose skip reason may quote the event. Before 2026-12-01 the key was split at
// every NUL: "a\u0000b" was counted as event "a" of a plan named "b", the count the deletes take back
// never matched, and a quoted reason was cut. A real core and SQLite file.
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';

let core: TestCore | undefined;
let hook: Receiver | undefined;
afterEach(async () => {
  await core?.dispose();
  await hook?.close();
});

it('counts an event holding a NUL as the event it is, under its plan, and takes the count back when it goes', async () => {
  hook = await startReceiver();
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'crm', enabled: true, sources: ['web'], webhooks: [{ url: `${hook.url}/crm`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
      trackingPlans: [{ name: 'shop', plan: { events: { Known: { type: 'object' } } }, unplanned: 'block', violations: 'flag' }],
    },
  });
  core.writeKey = 'wk_web';
  const odd = 'a\u0000b';
  expect((await post(core, '/v1/batch', { batch: [{ type: 'track', userId: 'u', event: odd }, { type: 'track', userId: 'u', event: 'Known' }] })).status).toBe(200);
  await core.delivery.idle();

  const db = new DatabaseSync(path.join(core.dataDir, DATABASE_FILE), { readOnly: true });
  try {
    const counts = () => db.prepare("SELECT event, plan, n FROM event_counts WHERE type = 'track' AND n > 0 ORDER BY event, plan").all();
    expect(counts()).toEqual([{ event: 'Known', plan: '', n: 1 }, { event: odd, plan: '', n: 1 }, { event: odd, plan: 'shop', n: 1 }]);
    expect((await core.queries.stats()).types).toEqual({ track: 2 });
    // The blocked delivery's hour is counted under its whole reason, the one the delivery has.
    const skipped = db.prepare("SELECT skip_reason AS reason FROM deliveries WHERE status = 'skipped'").all() as { reason: string }[];
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason).toContain(odd);
    expect(db.prepare("SELECT skip_reason AS reason, n FROM delivery_hours WHERE status = 'skipped'").all()).toEqual([{ reason: skipped[0]!.reason, n: 1 }]);
    // And the Overview shows it whole (it split its own key at every NUL too).
    const overview = await core.operations['overview.deliveries']({ window: 'all' });
    expect(overview.destinations.find((d) => d.name === 'crm')!.reasons.map((r) => r.reason)).toEqual([skipped[0]!.reason]);

    await core.operations['storage.clear']({ scope: { filter: { event: odd } }, dryRun: false });
    expect(counts()).toEqual([{ event: 'Known', plan: '', n: 1 }]);
    expect((await core.queries.stats()).types).toEqual({ track: 1 });
  } finally {
    db.close();
  }
});
