// Fails on purpose (SLUICE_SHOW_FAILURE=1, vitest.config.mjs): the order's total is 42, the test
// expects 43. Vitest's report names this file and the expectation's line, and the message shows the
// closest message with what differs: properties.total: wanted 43, got 42.
import { Analytics } from '@segment/analytics-node';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startSluice } from 'sluice/testing';

let sluice;
beforeAll(async () => {
  sluice = await startSluice();
});
afterAll(() => sluice.close());

test('a wrong total fails with the difference', async () => {
  const analytics = new Analytics({ writeKey: sluice.writeKey, host: sluice.ingestUrl });
  analytics.track({ userId: 'u_1', event: 'Order Completed', properties: { total: 42 } });
  await analytics.closeAndFlush();
  await expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 43 } }, { timeoutMs: 300 });
});
