// A test of an app's tracking with Jest and Segment's library, against a Sluice the test starts itself.
// Jest runs ES modules with Node's VM modules: `NODE_OPTIONS=--experimental-vm-modules npx jest
// --config examples/jest/jest.config.mjs` (after `npm i -D sluice @segment/analytics-node jest`).
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { Analytics } from '@segment/analytics-node';
import { startSluice } from 'sluice/testing';

let sluice;
beforeAll(async () => {
  sluice = await startSluice({ config: { sources: [{ name: 'app', writeKey: 'wk_app' }] } });
});
afterAll(() => sluice.close());

test('signing up identifies the user and tracks the plan', async () => {
  const analytics = new Analytics({ writeKey: sluice.writeKey, host: sluice.ingestUrl });
  analytics.identify({ userId: 'u_7', traits: { email: 'ada@example.com' } });
  analytics.track({ userId: 'u_7', event: 'Signed Up', properties: { plan: 'team' } });
  await analytics.closeAndFlush();
  const [identify, signedUp] = await sluice.waitForMessages({ userId: 'u_7' }, { count: 2 });
  expect(identify).toMatchObject({ type: 'identify', traits: { email: 'ada@example.com' } });
  expect(signedUp).toMatchObject({ type: 'track', event: 'Signed Up', properties: { plan: 'team' } });
});
