// Circuit breakers and 410 Gone in the delivery engine (issue 14): a dead receiver costs one probe per
// cooldown, not an attempt per message per round. Real core, SQLite and receivers; an injected clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASE_COOLDOWN_MS, FAILURE_THRESHOLD } from '../../../electron/core/delivery/circuit-breaker.ts';
import type { DestinationConfig } from '../../../shared/settings.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
let now = T0;
const clock = { now: () => now };
const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
beforeEach(() => {
  now = T0;
});
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function coreWith(destination: Partial<DestinationConfig> & Pick<DestinationConfig, 'webhooks'>, dataDir?: string) {
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'hooks', enabled: true, sources: ['web'], options: { bodyShape: 'seed', concurrency: 1 }, ...destination }],
    },
    clock,
    random: () => 0.5,
    webhookTimeoutMs: 500,
    ...(dataDir ? { dataDir } : {}),
  });
  core.writeKey = 'wk_web';
  return core;
}

async function sendMany(c: TestCore, n: number) {
  const res = await post(c, '/v1/batch', { batch: Array.from({ length: n }, (_, i) => ({ type: 'track', userId: 'u_1', event: `E${i}` })) });
  expect(res.status).toBe(200);
}

function advance(c: TestCore, ms: number) {
  now += ms;
  c.delivery.kick();
}

const pause = (ms = 250) => new Promise((r) => setTimeout(r, ms));
const health = (c: TestCore) => c.operations['destinations.list']({} as never) as unknown as { destinations: { health: { breaker: string; probeAt: number | null; gone: unknown; failures: number }[] }[] };
const statuses = (c: TestCore) => c.deliveries.countByStatus();

describe('circuit breaker', () => {
  it('a receiver answering 503: opens after 5 failures, one probe per cooldown, then everything flows once it is back', async () => {
    const r = await receiver();
    r.fallback = { status: 503 };
    const c = await coreWith({ webhooks: [{ url: r.url, headers: {} }] });
    await sendMany(c, 100);
    await r.waitFor(FAILURE_THRESHOLD);
    await until(() => c.delivery.breaker(r.url).state === 'open' || undefined);
    await pause();
    expect(r.received).toHaveLength(FAILURE_THRESHOLD); // not one per message
    expect(health(c).destinations[0]!.health[0]).toMatchObject({ breaker: 'open', failures: FAILURE_THRESHOLD, probeAt: T0 + BASE_COOLDOWN_MS });

    advance(c, 20_000); // the failed deliveries' own retries fall due (5 s, 15 s): still nothing
    await pause();
    expect(r.received).toHaveLength(FAILURE_THRESHOLD);
    advance(c, 10_000); // the cooldown is over: one probe, which fails
    await r.waitFor(FAILURE_THRESHOLD + 1);
    // The probe's answer reaches the engine after the receiver got the request: until it does, the
    // breaker is half-open. Wait for it to open again rather than count on the pause.
    await until(() => c.delivery.breaker(r.url).state === 'open' || undefined, 10_000, 'the failed probe to open the breaker again');
    await pause();
    expect(r.received).toHaveLength(FAILURE_THRESHOLD + 1);
    expect(c.delivery.breaker(r.url)).toMatchObject({ state: 'open', probeAt: now + 2 * BASE_COOLDOWN_MS });

    r.fallback = { status: 200, body: 'ok' };
    advance(c, 2 * BASE_COOLDOWN_MS); // the next probe succeeds: closed, and every waiting delivery goes
    await until(() => statuses(c).delivered === 100 || undefined, 20_000);
    expect(r.received).toHaveLength(FAILURE_THRESHOLD + 1 + 100);
    expect(c.delivery.breaker(r.url).state).toBe('closed');
    // Attempt rows: one per request, none for the rounds the breaker held back.
    const attempts = c.messages.list().flatMap((m) => c.deliveries.forMessage(m.id)).reduce((n, d) => n + c.deliveries.attempts(d.id).length, 0);
    expect(attempts).toBe(FAILURE_THRESHOLD + 1 + 100);
  });

  it('a destination with a dead URL and a live one keeps delivering to the live one, without requests to the dead', async () => {
    const dead = await receiver();
    dead.fallback = { reset: true };
    const live = await receiver();
    const c = await coreWith({ webhooks: [{ url: dead.url, headers: {} }, { url: live.url, headers: {} }], options: { bodyShape: 'seed', concurrency: 1 } });
    await sendMany(c, 20);
    await until(() => statuses(c).delivered === 20 || undefined);
    expect(dead.received.length).toBe(FAILURE_THRESHOLD);
    expect(live.received.length).toBe(20);
    expect(c.delivery.breaker(dead.url).state).toBe('open');
    // The dead URL's attempts say they were not retried, as the round settled them (they said "will retry").
    const first = c.deliveries.forMessage(c.messages.list().at(-1)!.id)[0]!;
    const deadAttempt = c.deliveries.attempts(first.id).find((a) => a.url === dead.url)!;
    expect(deadAttempt).toMatchObject({ outcome: 'final' });
    expect(deadAttempt.errorMessage).toMatch(/closed the connection before answering; not retried: another webhook took the event$/);
  });

  it('a URL its open breaker held back still counts: another URL\'s 4xx does not fail the message for good', async () => {
    const down = await receiver();
    down.fallback = { status: 503 };
    const refusing = await receiver();
    refusing.fallback = { status: 404 };
    const c = await coreWith({ webhooks: [{ url: down.url, headers: {} }, { url: refusing.url, headers: {} }] });
    await sendMany(c, FAILURE_THRESHOLD);
    await until(() => c.delivery.breaker(down.url).state === 'open' || undefined);
    await until(() => statuses(c).retrying === FAILURE_THRESHOLD || undefined);
    // The next message's round posts to the 404 alone (the other URL is held back): before 2026-12-01 it
    // failed for good there, "a 4xx is final", though the URL held back would have taken it.
    await post(c, '/v1/track', { userId: 'u_1', event: 'Sixth' });
    await refusing.waitFor(FAILURE_THRESHOLD + 1);
    await until(() => statuses(c).retrying === FAILURE_THRESHOLD + 1 || undefined, 10_000, 'the sixth to be retrying');
    expect(statuses(c).failed ?? 0).toBe(0);
    const sixth = c.deliveries.forMessage(c.messages.list().find((m) => m.event === 'Sixth')!.id)[0]!;
    expect(sixth.lastError).toBe('the receiver answered 404; will retry: a webhook its circuit breaker held back may take it');
    expect(c.deliveries.attempts(sixth.id).map((a) => [a.outcome, a.errorMessage])).toEqual([['retry', 'the receiver answered 404; a 4xx, but the delivery is retried for another webhook']]);
    expect(down.received).toHaveLength(FAILURE_THRESHOLD);

    down.fallback = { status: 200, body: 'ok' };
    advance(c, BASE_COOLDOWN_MS); // the breaker's probe succeeds, and every one is delivered there
    await until(() => statuses(c).delivered === FAILURE_THRESHOLD + 1 || undefined, 20_000);
  });

  it('failures below the threshold and the recovery are announced (at most once a second), so the inspector shows the count', async () => {
    const r = await receiver();
    r.fallback = { status: 503 };
    const c = await coreWith({ webhooks: [{ url: r.url, headers: {} }] });
    let announced = 0;
    c.bus.on('settings.changed', () => announced++);
    await sendMany(c, 2);
    await r.waitFor(2);
    await until(() => (announced > 0 && health(c).destinations[0]!.health[0]!.failures === 2) || undefined, 5_000);
    expect(announced).toBe(1); // two failures, one announcement
    expect(health(c).destinations[0]!.health[0]!.breaker).toBe('closed');
    r.fallback = { status: 200 };
    await until(() => statuses(c).retrying === 2 || undefined);
    await c.operations['deliveries.retryNow']({ ids: c.messages.list().flatMap((m) => c.deliveries.forMessage(m.id)).map((d) => d.id) });
    await until(() => statuses(c).delivered === 2 || undefined);
    await until(() => (announced > 1 && health(c).destinations[0]!.health[0]!.failures === 0) || undefined, 5_000);
  });

  it('a probe whose message was purged gives the probe back: the next delivery probes, nothing stays blocked', async () => {
    const r = await receiver();
    r.fallback = { status: 503 };
    const c = await coreWith({ webhooks: [{ url: r.url, headers: {} }] });
    await sendMany(c, 10); // all of user u_1
    await until(() => c.delivery.breaker(r.url).state === 'open' || undefined);
    await c.operations['deletions.create']({ userId: 'u_1', purge: true });
    r.fallback = { status: 200 };
    expect((await post(c, '/v1/track', { userId: 'u_2', event: 'Later' })).status).toBe(200);
    advance(c, BASE_COOLDOWN_MS); // the first probe goes to a purged message's delivery: no request
    await until(() => statuses(c).delivered === 2 || undefined, 5_000); // u_2's message and the deletion notice
    expect(c.delivery.breaker(r.url).state).toBe('closed');
  });

  it('"Retry now" tries the receiver at once, whatever the breaker says', async () => {
    const r = await receiver();
    r.fallback = { status: 500 };
    const c = await coreWith({ webhooks: [{ url: r.url, headers: {} }] });
    await sendMany(c, 10);
    await until(() => c.delivery.breaker(r.url).state === 'open' || undefined);
    // The failed rounds' results committed (a Retry now before that would find them still pending).
    await until(() => statuses(c).retrying === FAILURE_THRESHOLD || undefined);
    r.fallback = { status: 200 };
    const waiting = c.messages.list().flatMap((m) => c.deliveries.forMessage(m.id)).map((d) => d.id);
    await c.operations['deliveries.retryNow']({ ids: waiting });
    await until(() => statuses(c).delivered === 10 || undefined);
    expect(r.received).toHaveLength(FAILURE_THRESHOLD + 10);
  });
});

describe('410 Gone', () => {
  it('disables that URL with its reason; the other webhook still gets every message; Re-enable sends there again', async () => {
    const gone = await receiver();
    gone.fallback = { status: 410, body: 'endpoint removed' };
    const live = await receiver();
    const c = await coreWith({ webhooks: [{ url: gone.url, headers: {} }, { url: live.url, headers: {} }] });
    await sendMany(c, 1);
    await until(() => statuses(c).delivered === 1 || undefined);
    const [view] = health(c).destinations;
    expect(view!.health[0]!.gone).toMatchObject({ at: T0, reason: expect.stringMatching(/410 Gone: Sluice stops sending to this URL/) });
    expect(view!.health[1]!.gone).toBeNull();

    await sendMany(c, 3);
    await until(() => statuses(c).delivered === 4 || undefined);
    expect(gone.received).toHaveLength(1);
    expect(live.received).toHaveLength(4);

    gone.fallback = { status: 200 };
    const id = c.destinations.byName('hooks')!.id;
    const reenabled = c.operations['destinations.reenableUrl']({ id, url: gone.url }) as { health: { gone: unknown }[] };
    expect(reenabled.health[0]!.gone).toBeNull();
    await sendMany(c, 1);
    await until(() => statuses(c).delivered === 5 || undefined);
    expect(gone.received).toHaveLength(2);
    expect(() => c.operations['destinations.reenableUrl']({ id, url: gone.url })).toThrow(/not a disabled webhook/);
  });

  it('a destination whose only URL is gone holds its deliveries (nothing sent) across a restart, until it is edited', async () => {
    const gone = await receiver();
    gone.fallback = { status: 410 };
    const first = await coreWith({ webhooks: [{ url: gone.url, headers: {} }] });
    const dataDir = first.dataDir;
    await sendMany(first, 1);
    await until(() => statuses(first).failed === 1 || undefined);
    const [failed] = first.messages.list().flatMap((m) => first.deliveries.forMessage(m.id));
    expect(first.deliveries.attempts(failed!.id)[0]).toMatchObject({ responseStatus: 410, outcome: 'final' });
    await sendMany(first, 3);
    await pause();
    expect(gone.received).toHaveLength(1);
    expect(statuses(first).pending).toBe(3);
    // A test event would wait with them: refused, with the way out.
    await expect(first.operations['destinations.sendTest']({ id: first.destinations.byName('hooks')!.id })).rejects.toMatchObject({ code: 'webhooks_gone', message: expect.stringMatching(/re-enable one/) });
    // So would a replay, to its webhooks or to a typed URL.
    const someMessage = first.messages.list()[0]!.id;
    await expect(first.operations['deliveries.replay']({ messageIds: [someMessage] })).rejects.toMatchObject({ code: 'webhooks_gone' });
    await expect(first.operations['deliveries.replay']({ messageIds: [someMessage], targetUrl: 'http://127.0.0.1:9/typed' })).rejects.toMatchObject({ code: 'webhooks_gone' });

    // A restart applies the config again: the URL stays disabled.
    await first.close();
    core = undefined;
    const second = await coreWith({ webhooks: [{ url: gone.url, headers: {} }] }, dataDir);
    await pause();
    expect(gone.received).toHaveLength(1);
    expect(health(second).destinations[0]!.health[0]!.gone).not.toBeNull();

    gone.fallback = { status: 200 };
    const destination = second.destinations.byName('hooks')!;
    second.saveDestination({ id: destination.id, name: 'hooks', sources: ['web'], webhooks: [{ url: gone.url }], options: { bodyShape: 'seed', concurrency: 2 } } as never);
    await until(() => statuses(second).delivered === 3 || undefined);
    expect(gone.received).toHaveLength(4);
    await second.dispose();
    core = undefined;
  });
});
