// A test of a client's retry path with Node's own test runner and Segment's library: Sluice answers the
// first request with a 503 and drops the connection of the second (fault injection), and the client must
// retry and then deliver each event once. Run it with `node --test examples/client-retry/retry.test.mjs`
// (after `npm i -D sluice @segment/analytics-node`; Node 22.19 or newer).
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { Analytics } from '@segment/analytics-node';
import { startSluice } from 'sluice/testing';

let sluice;
before(async () => {
  sluice = await startSluice({ config: { sources: [{ name: 'shop', writeKey: 'wk_shop' }] } });
});
after(() => sluice.close());
beforeEach(() => sluice.reset()); // also ends the faults a test left

test('an order is delivered once after a 503 and a dropped connection', async () => {
  await sluice.faults.ingest({ status: 503, times: 1 });
  await sluice.faults.ingest({ drop: true, times: 1 });
  const analytics = new Analytics({ writeKey: sluice.writeKey, host: sluice.ingestUrl, maxRetries: 3 });
  analytics.track({ userId: 'u_1', event: 'Order Completed', properties: { total: 42 } });
  await analytics.closeAndFlush();

  const orders = await sluice.messages({ event: 'Order Completed' });
  assert.equal(orders.length, 1, 'stored once: the faulted attempts were not stored');
  const { faults, faulted } = await sluice.faults.list();
  assert.deepEqual(faults, [], 'both faults were used up');
  assert.deepEqual(faulted.map((request) => request.outcome), ['answered', 'dropped']);
});

test('a client without retries loses the event: the fault is what the test sees', async () => {
  await sluice.faults.ingest({ status: 503, times: 1 });
  const analytics = new Analytics({ writeKey: sluice.writeKey, host: sluice.ingestUrl, maxRetries: 0 });
  const failed = new Promise((resolve) => analytics.on('error', resolve));
  analytics.track({ userId: 'u_1', event: 'Order Completed', properties: { total: 42 } });
  await analytics.closeAndFlush();
  await failed;
  assert.deepEqual(await sluice.messages(), []);
  assert.equal((await sluice.faults.list()).faulted[0].status, 503);
});
