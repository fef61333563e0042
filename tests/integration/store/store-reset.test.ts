// Reset (issue 15: sluice/testing's reset()): every message, delivery and profile forgotten, the
// configuration kept, and nothing of what was forgotten sent afterwards — not even what was in flight
// or retrying. Real core, SQLite and receivers; an injected clock for the retry schedule.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { startSlowReceiver } from '../../helpers/slow-receiver.ts';
import { until } from '../../helpers/wait.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
let now = T0;
const clock = { now: () => now };
const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
const closers: (() => Promise<void>)[] = [];
beforeEach(() => {
  now = T0;
});
afterEach(async () => {
  await core?.dispose();
  core = undefined;
  for (const close of closers.splice(0)) await close();
});

async function coreTo(url: string) {
  core = await startCore({
    config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }] },
    clock,
    random: () => 0.5,
  });
  core.writeKey = 'wk_web';
  return core;
}

const send = (c: TestCore, n: number, tag: string) =>
  post(c, '/v1/batch', { batch: Array.from({ length: n }, (_, i) => ({ type: 'track', userId: 'u_1', event: `${tag} ${i}`, messageId: `${tag}-${i}` })) });

it('forgets messages, deliveries and the receiver inbox, keeps the configuration; retrying deliveries are never sent again', async () => {
  const r = await receiver();
  r.fallback = { status: 503 };
  const c = await coreTo(`${r.url}/hook`);
  expect((await send(c, 3, 'old')).status).toBe(200);
  await until(() => c.deliveries.countByStatus().retrying === 3 || undefined);
  const sentBefore = r.received.length;
  await fetch(`${c.receiver.hookUrl('demo')}`, { method: 'POST', body: '{}' }).then((res) => res.text());
  expect(c.receiver.inbox()).toHaveLength(1);

  expect(await c.reset()).toEqual({ messages: 3 });
  expect(c.messages.list()).toEqual([]);
  expect(c.deliveries.countByStatus()).toEqual({});
  expect(c.receiver.inbox()).toEqual([]);
  expect(c.destinations.list().map((d) => d.name)).toEqual(['hooks']);
  expect(c.sources.byWriteKey('wk_web')?.name).toBe('web');

  now += 3_600_000; // far past every retry the forgotten deliveries had
  c.delivery.kick();
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(r.received).toHaveLength(sentBefore);

  // A new message after the reset: stored (its row id given again) and delivered, as any.
  r.fallback = { status: 200 };
  expect((await send(c, 1, 'new')).status).toBe(200);
  await until(() => c.deliveries.countByStatus().delivered === 1 || undefined);
  expect(c.messages.list().map((m) => m.messageId)).toEqual(['new-0']);
  expect(JSON.parse(r.received.at(-1)!.body).event).toBe('new 0');
});

it('a reset while requests are in flight waits for them, and sends nothing of the forgotten messages afterwards', async () => {
  const slow = await startSlowReceiver({ minDelayMs: 300, maxDelayMs: 300 });
  closers.push(() => slow.close());
  const c = await coreTo(`${slow.url}/hook`);
  expect((await send(c, 20, 'queued')).status).toBe(200);
  await until(() => slow.received.length >= 4 || undefined); // concurrency 4: four in flight, sixteen queued
  const announced: string[] = [];
  c.bus.on('store.reset', () => announced.push('reset'));
  await c.reset();
  expect(announced).toEqual(['reset']);
  const afterReset = slow.received.length;
  expect(afterReset).toBeLessThan(20);
  expect(c.deliveries.countByStatus()).toEqual({});
  await new Promise((resolve) => setTimeout(resolve, 800)); // rounds would have gone on by now
  expect(slow.received.length).toBe(afterReset);
});
