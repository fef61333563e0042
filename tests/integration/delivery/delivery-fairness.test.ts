// One slow destination must not stall the others: each destination's due deliveries are read and
// started on their own (per-destination ready queues, refilled per destination), within the global
// in-flight cap, with each destination's concurrency respected. Real receivers on loopback.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import type { Clock } from '../../../electron/core/clock.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

/** A receiver that answers 200 after `delayMs` and records how many requests it held at once. */
async function slowReceiver(delayMs: number) {
  const state = { url: '', received: 0, open: 0, maxOpen: 0 };
  const server = http.createServer((req, res) => {
    state.open++;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    req.resume();
    req.on('end', () => {
      state.received++;
      setTimeout(() => {
        state.open--;
        res.end('ok');
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  servers.push(server);
  return state;
}

const servers: http.Server[] = [];
let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

const destination = (name: string, source: string, url: string, concurrency: number) => ({
  name,
  enabled: true,
  sources: [source],
  webhooks: [{ url, headers: {} }],
  options: { bodyShape: 'seed' as const, concurrency },
});
const sources = [
  { name: 'a', writeKey: 'wk_a', kind: 'web' as const },
  { name: 'b', writeKey: 'wk_b', kind: 'web' as const },
];
const batch = (n: number, prefix: string) => ({ batch: Array.from({ length: n }, (_, i) => ({ type: 'track', userId: 'u', event: `${prefix}${i}` })) });

it('delivers to a destination promptly while another has a big backlog to a slow receiver', async () => {
  const slow = await slowReceiver(200);
  const fast = await receiver();
  const c = (core = await startCore({
    config: { sources, destinations: [destination('slow', 'a', slow.url, 1), destination('fast', 'b', fast.url, 8)] },
  }));
  await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_a' }, '/v1/batch', batch(1500, 'A'));
  await until(() => (slow.received >= 2 ? true : undefined), 10_000, 'the slow destination to start');

  await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_b' }, '/v1/track', { userId: 'v', event: 'B' });
  const [got] = await fast.waitFor(1, 10_000);
  expect(JSON.parse(got!.body)).toMatchObject({ event: 'B' });
  // B did not wait for A's backlog: before the fix it waited for the ~770 deliveries of A read before it.
  expect(slow.received).toBeLessThan(100);
  expect(c.deliveries.waitingCount()).toBeGreaterThan(1300);
  expect(slow.maxOpen).toBe(1);
});

it('keeps each destination within its own concurrency while both have backlogs', async () => {
  const a = await slowReceiver(30);
  const b = await slowReceiver(30);
  const c = (core = await startCore({
    config: { sources, destinations: [destination('a', 'a', a.url, 2), destination('b', 'b', b.url, 5)] },
  }));
  await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_a' }, '/v1/batch', batch(60, 'A'));
  await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_b' }, '/v1/batch', batch(100, 'B'));
  await until(() => (a.received === 60 && b.received === 100 ? true : undefined), 20_000, 'every delivery');
  await c.delivery.idle();
  expect([a.maxOpen, b.maxOpen]).toEqual([2, 5]);
  expect(c.deliveries.countByStatus()).toEqual({ delivered: 160 });
});

it('picks up a retrying delivery when it falls due (timer and kick), while another destination is busy', async () => {
  const slow = await slowReceiver(100);
  const r = await receiver();
  // The clock runs with real time (so the engine's own timer fires), until the test stops it to move it
  // by hand.
  let stoppedAt: number | null = null;
  const clock: Clock = { now: () => stoppedAt ?? Date.parse('2026-11-21T10:00:00.000Z') + performance.now() };
  const c = (core = await startCore({
    clock,
    random: () => 0.5, // no jitter: the first retry is exactly 5 s later
    config: { sources, destinations: [destination('slow', 'a', slow.url, 1), destination('hooks', 'b', r.url, 4)] },
  }));
  await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_a' }, '/v1/batch', batch(300, 'A'));
  await until(() => (slow.received >= 1 ? true : undefined), 10_000, 'the slow destination to start');

  // Retry-After: 1 — nobody kicks the engine: its timer must pick the delivery up.
  r.script({ status: 503, headers: { 'retry-after': '1' } });
  await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_b' }, '/v1/track', { userId: 'v', event: 'first' });
  const [failed, retried] = await r.waitFor(2, 10_000);
  expect([failed!.body, retried!.body].map((body) => JSON.parse(body).event)).toEqual(['first', 'first']);
  const first = await until(() => c.deliveries.forMessage(c.messages.list().find((m) => m.event === 'first')!.id).find((d) => d.status === 'delivered'));
  expect(c.deliveries.attempts(first.id).map((a) => [a.responseStatus, a.outcome])).toEqual([[503, 'retry'], [200, 'success']]);

  // A 500 retries after 5 s on the clock; the test moves the clock and kicks, as the brief for tests says.
  r.script({ status: 500 });
  await post({ ingestUrl: c.ingestUrl, writeKey: 'wk_b' }, '/v1/track', { userId: 'v', event: 'second' });
  await r.waitFor(3);
  const second = c.messages.list().find((m) => m.event === 'second')!.id;
  const retrying = await until(() => c.deliveries.forMessage(second).find((d) => d.status === 'retrying'));
  // 1 s before it is due, and standing still there: a clock running on would bring the retry due on
  // its own (the engine's timer) were the test held up past that second before it looks.
  stoppedAt = retrying.nextAttemptAt! - 1_000;
  c.delivery.kick();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(r.received).toHaveLength(3);
  stoppedAt = retrying.nextAttemptAt!;
  c.delivery.kick();
  await r.waitFor(4, 10_000);
  await until(() => c.deliveries.forMessage(second).find((d) => d.status === 'delivered'));
  // Meanwhile the slow destination kept to its one request at a time, and still has a backlog.
  expect(slow.maxOpen).toBe(1);
  expect(slow.received).toBeLessThan(300);
});
