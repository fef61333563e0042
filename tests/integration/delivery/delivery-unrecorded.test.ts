// A store that cannot record delivery results (a full disk, a damaged store; here a trigger that refuses
// them): the requests were sent, so they will be sent again — but after pauses that double while it
// lasts (1 s, 2 s, 4 s … a minute), not every second, and everything is recorded once it can be.
// A real core, SQLite file, writer and receiver.
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { failurePause } from '../../../electron/core/delivery/delivery-engine.ts';
import { databaseFile } from '../../../electron/core/store/database.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

it('rounds whose results cannot be recorded are sent again after doubling pauses, not every second; recorded once the store takes them', async () => {
  expect([1, 2, 3, 7, 8].map(failurePause)).toEqual([1_000, 2_000, 4_000, 60_000, 60_000]);
  const r = await receiver();
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: r.url, headers: {} }], options: { bodyShape: 'seed', concurrency: 8 } }],
    },
  });
  core.writeKey = 'wk_web';
  await core.operations['delivery.hold']({ held: true });
  const res = await post(core, '/v1/batch', { batch: Array.from({ length: 5 }, (_, i) => ({ type: 'track', userId: 'u', event: `E${i}` })) });
  expect(res.status).toBe(200);
  // From another connection, as a full disk would: no delivery's state can change.
  const db = new DatabaseSync(databaseFile(core.dataDir));
  db.exec(`CREATE TRIGGER refuse_results BEFORE UPDATE OF status ON deliveries BEGIN SELECT RAISE(ABORT, 'the test refuses delivery results'); END`);
  const quiet = console.error;
  const logged: string[] = [];
  console.error = (line: string) => void logged.push(line);
  try {
    const started = performance.now();
    await core.operations['delivery.hold']({ held: false });
    await r.waitFor(5);
    // 4.5 s: sends at 0, then after pauses of 1 s and 2 s (3 s), and the next not before 7 s. Before
    // 2026-12-01 the pause was 1 s each time: five or six rounds of the five deliveries by now.
    await new Promise((resolve) => setTimeout(resolve, 4_500 - (performance.now() - started)));
    expect(r.received.length).toBeLessThanOrEqual(15);
    expect(r.received.length).toBeGreaterThanOrEqual(10);
    expect(logged.some((line) => line.includes('the test refuses delivery results'))).toBe(true);
    expect(core.deliveries.countByStatus()).toMatchObject({ pending: 5 });
  } finally {
    console.error = quiet;
    db.exec('DROP TRIGGER refuse_results');
    db.close();
  }
  // The store takes results again: each is recorded at the next round (after the pause).
  await until(() => (core!.deliveries.countByStatus().delivered === 5 ? true : undefined), 20_000, 'the deliveries recorded');
});
