// Messages Sluice makes itself carry the loop chain of the message that caused them (issue 24, point 7):
// two Sluices whose tracking plans each forward violations (`forwardViolationsTo`) to a Tracking API
// destination pointing at the other once ping-ponged forever — one unplanned track made 8,900 messages
// each in 20 s, and with a plan broken five ways per message 177,000 in 10 s. Two real relays on
// loopback, real SQLite files, real HTTP; each configuration must come to rest by itself.
import { afterEach, describe, expect, it } from 'vitest';
import { LOOP_HEADER } from '../../../shared/loop-guard.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import type { TrackingPlan } from '../../../shared/tracking-plan.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { closedPort } from '../../helpers/ports.ts';

const cores: TestCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
});

/** A relay with one source and a tracking-api destination "other" (pointed at its peer once both listen). */
async function relay(name: string, plan: TrackingPlan | null, extra: { routeAll?: boolean; audiences?: unknown[] } = {}): Promise<TestCore> {
  const writeKey = `wk_${name}`;
  const core = await startCore({
    config: configFileSchema.parse({
      sources: [{ name: 'web', writeKey }],
      destinations: [
        {
          name: 'other',
          kind: 'tracking-api',
          ...(extra.routeAll ? { sources: ['web'] } : {}),
          trackingApi: { url: `http://127.0.0.1:${await closedPort()}`, writeKey: 'wk_unset', flushMs: 0 },
        },
      ],
      trackingPlans: plan ? [{ name: `plan-${name}`, plan, unplanned: 'flag', forwardViolationsTo: 'other' }] : [],
      ...(extra.audiences ? { audiences: extra.audiences } : {}),
    }),
  });
  core.writeKey = writeKey;
  cores.push(core);
  return core;
}

/** Points `from`'s destination "other" at `to`'s ingestion endpoint, with `to`'s write key. */
function pointAt(from: TestCore, to: TestCore, routeAll = false): void {
  from.saveDestination({
    name: 'other',
    kind: 'tracking-api',
    ...(routeAll ? { sources: ['web'] } : {}),
    trackingApi: { url: to.ingestUrl, writeKey: to.writeKey, flushMs: 0 },
  } as never);
}

const total = (core: TestCore) => Object.values(core.messages.countByStatus()).reduce((a, b) => a + b, 0);

/**
 * Waits until neither relay stores anything more and nothing waits to be sent: the same totals at
 * five looks in a row, 200 ms apart, with nothing pending or retrying. A loop never comes to rest:
 * the wait then fails after `ms` with the totals it saw.
 */
async function quiescent(relays: TestCore[], ms = 30_000): Promise<number[]> {
  const end = Date.now() + ms;
  let last = '';
  let same = 0;
  for (;;) {
    const totals = relays.map(total);
    const key = totals.join(',');
    const idle = relays.every((r) => r.deliveries.waitingCount() === 0);
    same = key === last && idle ? same + 1 : 0;
    last = key;
    if (same >= 5) return totals;
    if (Date.now() > end) throw new Error(`still busy after ${ms} ms: ${key} messages stored, ${relays.map((r) => r.deliveries.waitingCount()).join(',')} deliveries waiting`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** An empty plan: every track is unplanned, one violation each. */
const EMPTY: TrackingPlan = { events: {} };
/** Broken five ways and more by each message: an event that lacks eight required numbers, and the same for Violation Generated. */
const required = (n: number) => ({ type: 'object' as const, required: Array.from({ length: n }, (_, i) => `f${i}`) });
const WIDE: TrackingPlan = { events: { 'Order Completed': required(8), 'Violation Generated': required(8) } };

const byOrigin = (core: TestCore, origin: string) => core.messages.list({ limit: 10_000 }).filter((m) => m.origin === origin);

describe('violation events between two Sluices that forward violations to each other', () => {
  for (const [label, plan, event, perMessage] of [
    ['one violation per message (an unplanned track)', EMPTY, 'Anything', 1],
    ['a plan broken several ways per message', WIDE, 'Order Completed', 5],
  ] as const) {
    it(`${label}: stops by itself; A's violations reach B, and B makes none of them`, async () => {
      const a = await relay('a', plan);
      const b = await relay('b', plan);
      pointAt(a, b);
      pointAt(b, a);
      expect((await post(a, '/v1/track', { userId: 'u1', event })).status).toBe(200);
      const [atA, atB] = await quiescent([a, b]);

      // A: the track and its violation events; B: those events, and nothing it made of them.
      expect(atA).toBe(1 + perMessage);
      expect(atB).toBe(perMessage);
      expect(byOrigin(a, 'plan')).toHaveLength(perMessage);
      expect(byOrigin(b, 'plan')).toHaveLength(0);
      const received = byOrigin(b, 'ingest');
      expect(received.map((m) => m.event)).toEqual(Array(perMessage).fill('Violation Generated'));
      // B still checks them against its plan (they break it), it only makes no violation of a violation.
      expect(received.every((m) => m.violations > 0)).toBe(true);
      for (const m of byOrigin(a, 'plan')) {
        const [delivery] = a.deliveries.forMessage(m.id);
        expect(delivery!.status).toBe('delivered');
      }
    });
  }

  it('a violation event carries the chain of the message that broke the plan: made at B of a message A forwarded, it is refused by A', async () => {
    const a = await relay('a', null, { routeAll: true }); // A forwards every message to B, checks nothing
    const b = await relay('b', EMPTY); // B forwards its violations to A
    pointAt(a, b, true);
    pointAt(b, a);

    expect((await post(a, '/v1/track', { userId: 'u1', event: 'Anything' })).status).toBe(200);
    const [atA, atB] = await quiescent([a, b]);
    expect(atA).toBe(1); // the violation B made of A's message does not come back to A
    expect(atB).toBe(2); // A's track, and the violation event B made of it
    const [violation] = byOrigin(b, 'plan');
    const [delivery] = b.deliveries.forMessage(violation!.id);
    expect(delivery!.status).toBe('failed');
    const [attempt] = b.deliveries.attempts(delivery!.id);
    const chain = String((attempt!.requestHeaders as Record<string, string>)[LOOP_HEADER]).split(', ');
    expect(chain).toHaveLength(2); // A's id (where the track came from), then B's
    expect(attempt!.responseStatus).toBe(409);
    expect(JSON.parse(attempt!.responseBody!).error.code).toBe('loop_detected');
    expect(b.messages.get(violation!.id)!.via).toBe(chain[0]);
  });
});

describe("an audience's identifies between two Sluices", () => {
  it("carry the chain of the user's messages: B forwards to A, A's audience syncs to B; B refuses the identify of a user whose data came from B", async () => {
    const rule = { match: 'all', conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] };
    const a = await relay('a', null, { audiences: [{ name: 'Pro Users', source: 'web', rule, destinations: ['other'], mode: 'realistic' }] });
    const b = await relay('b', null, { routeAll: true }); // B forwards every message to A
    pointAt(a, b);
    pointAt(b, a, true);

    // ada's identify reaches A through B; bob's comes to A from a client.
    expect((await post(b, '/v1/identify', { userId: 'ada', traits: { plan: 'pro' } })).status).toBe(200);
    expect((await post(a, '/v1/identify', { userId: 'bob', traits: { plan: 'pro' } })).status).toBe(200);
    await quiescent([a, b]);
    const audience = a.audiences.list().find((v) => v.name === 'Pro Users')!;
    const sync = await a.audiences.syncNow(audience.id);
    expect(sync.joined).toBe(2);
    await quiescent([a, b]);

    const sent = byOrigin(a, 'audience').map((m) => ({ user: m.userId, delivery: a.deliveries.forMessage(m.id)[0]! }));
    const ada = sent.find((s) => s.user === 'ada')!.delivery;
    const bob = sent.find((s) => s.user === 'bob')!.delivery;
    expect(ada.status).toBe('failed');
    const [attempt] = a.deliveries.attempts(ada.id);
    expect(attempt!.responseStatus).toBe(409);
    expect(JSON.parse(attempt!.responseBody!).error.code).toBe('loop_detected');
    expect(String((attempt!.requestHeaders as Record<string, string>)[LOOP_HEADER]).split(', ')).toHaveLength(2); // B's id, then A's
    expect(bob.status).toBe('delivered'); // a user whose data came from no other Sluice is synced as before
    // B: ada's identify from the client, and bob's from A's audience — not ada's back again.
    expect(b.messages.list({ limit: 100 }).map((m) => m.userId).sort()).toEqual(['ada', 'bob']);
  });
});
