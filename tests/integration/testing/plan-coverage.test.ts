// Coverage of the current test run (issue 30, point 2): sluice/testing's coverage(), the HTTP API's
// GET /api/v1/plans/coverage and sluice/matchers' toCoverPlan(), against a real relay in this process
// whose tracking plans check what real HTTP ingestion stores — and the same relay reached as one in
// another process is, by its HTTP API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SluiceRequestError, startSluice, type Sluice } from '../../../electron/testing/index.ts';
import { sluiceMatchers, type SluiceMatchers } from '../../../electron/testing/matchers/index.ts';
import type { CoverageReport } from '../../../shared/plan-coverage.ts';
import { post } from '../../helpers/core.ts';

declare module 'vitest' {
  interface Assertion<R, T> extends SluiceMatchers<Promise<void>> {}
}

expect.extend(sluiceMatchers);

const CONFIG = {
  sources: [{ name: 'shop', writeKey: 'wk_shop' }],
  trackingPlans: [
    {
      name: 'checkout',
      sources: ['shop'],
      plan: {
        events: { 'Cart Viewed': { type: 'object' }, 'Order Completed': { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] } },
        identify: { type: 'object' },
      },
    },
    { name: 'marketing', plan: { events: { 'Newsletter Joined': { type: 'object' } } }, unplanned: 'allow' as const },
  ],
};

let sluice: Sluice;
let remote: { apiUrl: string; token: string };
beforeAll(async () => {
  sluice = await startSluice({ config: CONFIG });
  remote = { apiUrl: sluice.apiUrl, token: sluice.token };
});
afterAll(() => sluice.close());

const track = (event: string, properties: Record<string, unknown> = {}) => post(sluice, '/v1/track', { userId: 'u_1', event, properties });
const api = async (route: string) => {
  const res = await fetch(`${sluice.apiUrl}/${route}`, { headers: { authorization: `Bearer ${sluice.token}` } });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
};

/** What the assertion threw (it must throw). */
async function failure(assertion: Promise<unknown>): Promise<Error> {
  const outcome = await assertion.then(() => null, (error: unknown) => error as Error);
  if (outcome === null) throw new Error('the assertion passed; it should have failed');
  return outcome;
}

describe('coverage of the test run', () => {
  it('coverage(): each plan\'s planned events seen, with violations or never, and the unplanned ones; the HTTP API answers the same', async () => {
    expect((await track('Order Completed', { total: 42 })).status).toBe(200);
    expect((await track('Order Completed', { total: 'lots' })).status).toBe(200);
    expect((await track('Debug Ping')).status).toBe(200);
    const report = await sluice.coverage();
    expect(report).toEqual({
      plans: [
        {
          plan: 'checkout',
          events: [
            { type: 'track', event: 'Cart Viewed', state: 'missing', seen: 0, violated: 0 },
            { type: 'track', event: 'Order Completed', state: 'violated', seen: 2, violated: 1 },
            { type: 'identify', event: null, state: 'missing', seen: 0, violated: 0 },
          ],
          unplanned: [{ type: 'track', event: 'Debug Ping', seen: 1 }],
          totals: { planned: 3, seen: 1, violated: 1, missing: 2, unplanned: 1 },
        },
        {
          plan: 'marketing',
          events: [{ type: 'track', event: 'Newsletter Joined', state: 'missing', seen: 0, violated: 0 }],
          unplanned: [
            { type: 'track', event: 'Order Completed', seen: 2 },
            { type: 'track', event: 'Debug Ping', seen: 1 },
          ],
          totals: { planned: 1, seen: 0, violated: 0, missing: 1, unplanned: 2 },
        },
      ],
      missing: 3,
    } satisfies CoverageReport);
    expect((await sluice.coverage({ plan: 'marketing' })).plans.map((p) => p.plan)).toEqual(['marketing']);
    await expect(sluice.coverage({ plan: 'nope' })).rejects.toThrow(SluiceRequestError);
    await expect(sluice.coverage({ plan: 'nope' })).rejects.toThrow('plans.coverage(): there is no tracking plan "nope"');

    expect(await api('plans/coverage')).toEqual({ status: 200, json: report });
    expect((await api('plans/coverage?plan=checkout')).json).toEqual({ plans: [report.plans[0]], missing: 2 });
    expect(await api('plans/coverage?plan=nope')).toEqual({ status: 404, json: { error: { code: 'not_found', message: 'there is no tracking plan "nope"' } } });
    expect((await api('plans/coverage?plans=checkout')).json.error.code).toBe('unknown_parameter');
  });

  it('toCoverPlan() fails naming the planned events never seen, here and over the HTTP API; passes once each fired; violations: false fails on a broken one', async () => {
    const here = await failure(expect(sluice).toCoverPlan({ plan: 'checkout' }));
    expect(here.message).toBe('expected every event of the plan "checkout" to be seen; 2 of 3 planned events never seen:\n  - track "Cart Viewed"\n  - identify');
    const all = await failure(expect(remote).toCoverPlan());
    expect(all.message).toBe('expected every event of the 2 plans to be seen; 3 of 4 planned events never seen:\n  - "checkout": track "Cart Viewed"\n  - "checkout": identify\n  - "marketing": track "Newsletter Joined"');
    await expect(sluice).not.toCoverPlan();

    expect((await track('Cart Viewed')).status).toBe(200);
    expect((await post(sluice, '/v1/identify', { userId: 'u_1', traits: { email: 'a@b.c' } })).status).toBe(200);
    await expect(sluice).toCoverPlan({ plan: 'checkout' });
    await expect(remote).toCoverPlan({ plan: 'checkout' });
    const strict = await failure(expect(sluice).toCoverPlan({ plan: 'checkout', violations: false }));
    expect(strict.message).toBe('expected every event of the plan "checkout" to be seen without violations; 1 seen breaking it:\n  - track "Order Completed": 1 of 2 broke the plan');
    await failure(expect(sluice).toCoverPlan()); // marketing's event still never fired
    expect((await failure(expect(remote).toCoverPlan({ plan: 'nope' }))).message).toBe('Sluice\'s HTTP API answered 404 not_found: there is no tracking plan "nope"');
  });

  it('a relay without a tracking plan: toCoverPlan() says how to give it one', async () => {
    const bare = await startSluice({});
    try {
      expect(await bare.coverage()).toEqual({ plans: [], missing: 0 });
      const error = await failure(expect(bare).toCoverPlan());
      expect(error.message).toMatch(/^toCoverPlan\(\): the relay has no tracking plan: give its config one/);
    } finally {
      await bare.close();
    }
  });
});
