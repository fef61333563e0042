// Fault injection with a real client (issue 27, point 3): Segment's @segment/analytics-node, unmodified,
// retries through the faults `sluice.faults` injects (a 503, a dropped connection, a 429 with
// Retry-After) and then delivers each message once: exactly one stored copy per message.
import { Analytics } from '@segment/analytics-node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SluiceRequestError, startSluice, type Sluice } from '../../../electron/testing/index.ts';

let sluice: Sluice;
beforeAll(async () => {
  sluice = await startSluice({ config: { sources: [{ name: 'shop', writeKey: 'wk_shop' }] } });
});
afterAll(() => sluice.close());
beforeEach(() => sluice.reset());

/** The client's answers, as it saw them (its own http_response events). */
function client(): { analytics: Analytics; statuses: number[] } {
  const analytics = new Analytics({ writeKey: sluice.writeKey, host: sluice.ingestUrl, flushAt: 2, maxRetries: 3 });
  const statuses: number[] = [];
  analytics.on('http_request', () => statuses.push(0)); // 0 until answered: a dropped connection stays 0
  analytics.on('http_response', ({ status }) => (statuses[statuses.length - 1] = status));
  return { analytics, statuses };
}

describe('@segment/analytics-node through injected faults', () => {
  it('retries through a 503 and a dropped connection, then delivers each message once', async () => {
    await sluice.faults.ingest({ status: 503, times: 1 });
    await sluice.faults.ingest({ drop: true, times: 1 });
    const { analytics, statuses } = client();
    analytics.track({ userId: 'u_1', event: 'Order Completed', properties: { total: 42 } });
    analytics.track({ userId: 'u_1', event: 'Order Shipped', properties: { total: 42 } });
    await analytics.closeAndFlush({ timeout: 20_000 });
    expect(statuses).toEqual([503, 0, 200]);
    const stored = await sluice.messages();
    expect(stored.map((m) => m.event).sort()).toEqual(['Order Completed', 'Order Shipped']);
    expect(new Set(stored.map((m) => m.messageId)).size).toBe(2);
    const { faults, faulted } = await sluice.faults.list();
    expect(faults).toEqual([]);
    expect(faulted.map(({ outcome, status, source, retryCount }) => ({ outcome, status, source, retryCount }))).toEqual([
      { outcome: 'answered', status: 503, source: 'shop', retryCount: null },
      { outcome: 'dropped', status: null, source: 'shop', retryCount: 1 },
    ]);
  });

  it('waits out a 429 with Retry-After, then delivers once', async () => {
    await sluice.faults.ingest({ status: 429, retryAfter: 1, times: 1 });
    const { analytics, statuses } = client();
    analytics.track({ userId: 'u_2', event: 'Signed Up' });
    await analytics.closeAndFlush({ timeout: 20_000 });
    expect(statuses).toEqual([429, 200]);
    expect((await sluice.messages()).map((m) => m.event)).toEqual(['Signed Up']);
  });
});

describe('sluice.faults', () => {
  it('refuses bad input with a SluiceRequestError naming the field and the call', async () => {
    const refused = await sluice.faults.ingest({ status: 404 as 503 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SluiceRequestError);
    expect(refused).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/^faults\.ingest\(\): status: status must be 429, 500 or 503/) });
    expect((await sluice.faults.list()).faults).toEqual([]);
  });

  it('clear() ends the faults; reset() ends them too and forgets what was faulted', async () => {
    await sluice.faults.ingest({ status: 500 });
    expect(await sluice.faults.clear()).toEqual({ cleared: 1 });
    await sluice.faults.ingest({ status: 500, path: '/v1/batch' });
    await sluice.reset();
    expect(await sluice.faults.list()).toEqual({ faults: [], faulted: [] });
  });
});
