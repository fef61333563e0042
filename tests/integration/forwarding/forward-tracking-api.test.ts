// Forwarding to a Tracking API (destination kind "tracking-api", issue 14): one Sluice forwards into a
// second Sluice, and every stored message is compared field by field — across a restart of either side.
// Real cores, real SQLite files, Segment's own client library, loopback HTTP.
import fs from 'node:fs';
import { Analytics } from '@segment/analytics-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../../../electron/core/index.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { closedPort } from '../../helpers/ports.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
const cores = new Set<TestCore>();
const dirs: string[] = [];
afterEach(async () => {
  for (const core of cores) await core.dispose();
  cores.clear();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A clock on real time that a test can move forward (the retry schedule's waits). */
let offset = 0;
const clock = { now: () => Date.now() + offset };

async function upstream(port: number, dataDir: string): Promise<TestCore> {
  const core = await startCore({ dataDir, ingestPort: port, config: configFileSchema.parse({ sources: [{ name: 'team', writeKey: 'wk_team' }] }) });
  core.writeKey = 'wk_team';
  cores.add(core);
  return core;
}

async function forwarder(upstreamUrl: string, dataDir: string, api: Record<string, unknown> = {}): Promise<TestCore> {
  const core = await startCore({
    dataDir,
    clock,
    random: () => 0.5,
    config: configFileSchema.parse({
      sources: [{ name: 'laptop', writeKey: 'wk_laptop' }],
      destinations: [{ name: 'team', sources: ['laptop'], kind: 'tracking-api', trackingApi: { url: upstreamUrl, writeKey: 'wk_team', flushMs: 0, ...api } }],
    }),
  });
  core.writeKey = 'wk_laptop';
  cores.add(core);
  return core;
}

async function stop(core: TestCore): Promise<void> {
  cores.delete(core);
  await core.close();
}

/** The accepted messages of a core, normalized, by messageId. */
function accepted(core: Core): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  for (const m of core.messages.list({ status: 'accepted', limit: 10_000 })) out.set(m.messageId!, core.messages.get(m.id)!.message!);
  return out;
}

/** What must arrive unchanged: everything but this hop's receivedAt and the client's sentAt (a forward sends none). */
const comparable = ({ receivedAt: _r, sentAt: _s, ...rest }: Record<string, unknown>) => rest;

function calls(n: number, tag: string) {
  const out: { method: string; args: Record<string, unknown> }[] = [];
  for (let i = 0; i < n; i++) {
    const base = { messageId: `${tag}-${i}`, timestamp: new Date(Date.UTC(2026, 10, 20, 12, 0, i % 60)), context: { app: { name: 'shop', build: i } } };
    const integrations = i % 7 === 0 ? { integrations: { All: false } } : {}; // still forwarded: the API reads them
    switch (i % 6) {
      case 0: out.push({ method: 'track', args: { ...base, ...integrations, userId: `u${i}`, event: 'Order Completed', properties: { total: i * 1.5, items: [{ sku: `s${i}` }], é: '🎉' } } }); break;
      case 1: out.push({ method: 'identify', args: { ...base, userId: `u${i}`, traits: { email: `u${i}@example.com`, plan: 'pro' } } }); break;
      case 2: out.push({ method: 'page', args: { ...base, anonymousId: `a${i}`, category: 'Docs', name: 'Install', properties: { url: 'https://x.test/p' } } }); break;
      case 3: out.push({ method: 'screen', args: { ...base, userId: `u${i}`, name: 'Home' } }); break;
      case 4: out.push({ method: 'group', args: { ...base, userId: `u${i}`, groupId: `g${i}`, traits: { seats: i } } }); break;
      default: out.push({ method: 'alias', args: { ...base, userId: `u${i}`, previousId: `a${i}` } });
    }
  }
  return out;
}

async function sendWithSegmentsLibrary(core: TestCore, list: ReturnType<typeof calls>): Promise<void> {
  const analytics = new Analytics({ writeKey: core.writeKey, host: core.ingestUrl, flushAt: 50, maxRetries: 0 });
  const errors: unknown[] = [];
  analytics.on('error', (error) => errors.push(error));
  for (const call of list) (analytics as any)[call.method](call.args);
  await analytics.closeAndFlush();
  expect(errors).toEqual([]);
}

function expectSameMessages(from: Core, to: Core, count: number): void {
  const sent = accepted(from);
  const got = accepted(to);
  expect(sent.size).toBe(count);
  expect([...got.keys()].sort()).toEqual([...sent.keys()].sort());
  for (const [messageId, message] of sent) {
    const upstreamCopy = comparable(got.get(messageId)!);
    // A message sent without a timestamp has its time from Sluice (receivedAt); upstream, that time is
    // the client's as far as it can tell, and it derives originalTimestamp from it.
    if (message.originalTimestamp === undefined && upstreamCopy.originalTimestamp === message.timestamp) delete upstreamCopy.originalTimestamp;
    expect(upstreamCopy, messageId).toEqual(comparable(message));
  }
}

describe('forwarding to a Tracking API (another Sluice)', () => {
  it('forwards every accepted message unchanged, in batches of at most 100; rejected and duplicate ones are not forwarded', async () => {
    const port = await closedPort();
    const b = await upstream(port, tempDir());
    const a = await forwarder(b.ingestUrl, tempDir());
    await sendWithSegmentsLibrary(a, calls(250, 'm'));
    // A rejected message and a duplicate of an accepted one: stored at A, never forwarded.
    const res = await post(a, '/v1/batch', { batch: [{ type: 'track', userId: 'u', event: 42 }, { type: 'track', userId: 'u0', event: 'Again', messageId: 'm-0' }] });
    expect(res.status).toBe(200);
    await until(() => b.messages.list({ limit: 10_000 }).length >= 250 || undefined, 15_000);
    await until(() => a.deliveries.waitingCount() === 0 || undefined);
    expect(a.messages.list({ limit: 10_000 }).map((m) => m.status).sort().join()).toMatch(/duplicate.*rejected/);
    expect(b.messages.list({ limit: 10_000 })).toHaveLength(250); // nothing rejected or duplicated upstream
    expectSameMessages(a, b, 250);
    // "integrations: All false" turns webhooks off, not the forward.
    expect(accepted(b).get('m-0')!.integrations).toEqual({ All: false });

    // Batches: each request at B carried at most 100 messages; each delivery one attempt, delivered.
    const perRequest = new Map<number, number>();
    for (const m of b.messages.list({ limit: 10_000 })) perRequest.set(m.requestId!, (perRequest.get(m.requestId!) ?? 0) + 1);
    expect(Math.max(...perRequest.values())).toBeLessThanOrEqual(100);
    const deliveries = a.messages.list({ status: 'accepted', limit: 10_000 }).flatMap((m) => a.deliveries.forMessage(m.id, { bodies: true }));
    expect(deliveries).toHaveLength(250);
    expect(deliveries.every((d) => d.status === 'delivered' && d.attemptCount === 1)).toBe(true);
    const [attempt] = a.deliveries.attempts(deliveries[0]!.id);
    expect(attempt).toMatchObject({ url: `${b.ingestUrl}/v1/batch`, responseStatus: 200, outcome: 'success' });
    expect((attempt!.requestHeaders as Record<string, string>).Authorization).toBe(`Basic ${Buffer.from('wk_team:').toString('base64')}`);
    expect(JSON.parse(deliveries[0]!.body!).messageId).toBe(a.messages.get(deliveries[0]!.messageId!)!.messageId);
  });

  it('a partial batch waits flushMs for more: messages posted one by one go in one request', async () => {
    const port = await closedPort();
    const b = await upstream(port, tempDir());
    // Long enough that the five posts land inside it on a loaded machine (they took 1.1 s beside four
    // other test runs: with 1 s, the fifth went in a second request).
    const a = await forwarder(b.ingestUrl, tempDir(), { flushMs: 5_000 });
    for (let i = 0; i < 5; i++) expect((await post(a, '/v1/track', { userId: 'u', event: `One by one ${i}`, messageId: `o-${i}` })).status).toBe(200);
    await until(() => b.messages.list().length === 5 || undefined);
    expect(new Set(b.messages.list().map((m) => m.requestId)).size).toBe(1);
  });

  it('a test event is forwarded as a real track call; a deletion request sends no delete message to a Tracking API', async () => {
    const port = await closedPort();
    const b = await upstream(port, tempDir());
    const a = await forwarder(b.ingestUrl, tempDir());
    const id = a.destinations.byName('team')!.id;
    const { deliveryId } = await a.operations['destinations.sendTest']({ id: id });
    await until(() => a.deliveries.get(deliveryId)?.status === 'delivered' || undefined);
    const [stored] = b.messages.list();
    expect(stored).toMatchObject({ status: 'accepted', type: 'track', event: 'Sluice Test Event', userId: 'sluice-test-user' });
    expect(b.messages.get(stored!.id)!.message).not.toHaveProperty('version');

    await post(a, '/v1/track', { userId: 'gone-user', event: 'Anything' });
    await until(() => b.messages.list().length === 2 || undefined);
    const deletion = await a.operations['deletions.create']({ userId: 'gone-user', purge: false });
    expect(deletion.sourceIds).toHaveLength(1);
    expect(deletion.deliveryIds).toEqual([]);
  });

  it('two Sluices forwarding to each other: the message comes back once and is refused by the loop guard', async () => {
    const [portA, portB] = [await closedPort(), await closedPort()];
    const b = await startCore({
      dataDir: tempDir(),
      ingestPort: portB,
      config: configFileSchema.parse({
        sources: [{ name: 'team', writeKey: 'wk_team' }],
        destinations: [{ name: 'back', sources: ['team'], kind: 'tracking-api', trackingApi: { url: `http://127.0.0.1:${portA}`, writeKey: 'wk_laptop', flushMs: 0 } }],
      }),
    });
    cores.add(b);
    const a = await startCore({
      dataDir: tempDir(),
      ingestPort: portA,
      config: configFileSchema.parse({
        sources: [{ name: 'laptop', writeKey: 'wk_laptop' }],
        destinations: [{ name: 'team', sources: ['laptop'], kind: 'tracking-api', trackingApi: { url: `http://127.0.0.1:${portB}`, writeKey: 'wk_team', flushMs: 0 } }],
      }),
    });
    a.writeKey = 'wk_laptop';
    cores.add(a);
    expect((await post(a, '/v1/track', { userId: 'u', event: 'Round and round' })).status).toBe(200);
    const [back] = await until(() => {
      const message = b.messages.list()[0];
      const [d] = message ? b.deliveries.forMessage(message.id) : [];
      return d?.status === 'failed' ? [d] : undefined;
    });
    expect(back!.lastError).toMatch(/^refused by the loop guard \(409 loop_detected\)/);
    await new Promise((r) => setTimeout(r, 300));
    expect(a.messages.list()).toHaveLength(1);
    expect(b.messages.list()).toHaveLength(1);
  });

  it('batches are measured in UTF-8 bytes; a message over 32 KB as forwarded fails alone, before sending, with why', async () => {
    const port = await closedPort();
    const b = await upstream(port, tempDir());
    const a = await forwarder(b.ingestUrl, tempDir());
    // 100 messages of ~9 KB of UTF-8 each (3,000 CJK characters): ~900 KB, so at least two requests.
    const cjk = '漢'.repeat(3_000);
    a.delivery.setHeld(true); // all 100 in one round
    for (const half of [0, 50]) {
      const res = await post(a, '/v1/batch', { batch: Array.from({ length: 50 }, (_, i) => ({ type: 'track', userId: 'u', event: 'Wide', messageId: `w-${half + i}`, properties: { text: cjk } })) });
      expect(res.status).toBe(200); // a request may be 500 KB
    }
    a.delivery.setHeld(false);
    await until(() => b.messages.list({ limit: 1_000 }).length === 100 || undefined, 15_000);
    expect(new Set(b.messages.list({ limit: 1_000 }).map((m) => m.requestId)).size).toBeGreaterThanOrEqual(2);
    expectSameMessages(a, b, 100);

    // 20 KB of batch-level context + a 15 KB event: each was within 32 KB at ingestion, together they are not.
    const context = { blob: 'x'.repeat(20_000) };
    await post(a, '/v1/batch', { context, batch: [{ type: 'track', userId: 'u', event: 'Small', messageId: 's-1' }, { type: 'track', userId: 'u', event: 'Big', messageId: 'b-1', properties: { pad: 'y'.repeat(15_000) } }] });
    const big = await until(() => {
      const m = a.messages.list({ limit: 5 }).find((x) => x.messageId === 'b-1');
      const [d] = m ? a.deliveries.forMessage(m.id) : [];
      return d?.status === 'failed' ? d : undefined;
    });
    expect(big.lastError).toMatch(/^the message is \d+ bytes as forwarded; a Tracking API takes at most 32 KB per message, so it was not sent$/);
    expect(a.deliveries.attempts(big.id)).toEqual([]);
    await until(() => accepted(b).has('s-1') || undefined);
  });

  it('a 2xx that names refused messages (as a Sluice answers) fails those, and only those; a replay to a typed URL carries no write key', async () => {
    const r = await receiver();
    const a = await forwarder(r.url, tempDir());
    r.script({ status: 200, body: JSON.stringify({ success: true, rejected: [{ index: 1, code: 'invalid_message', message: 'event must be a string' }] }) });
    await post(a, '/v1/batch', { batch: ['A', 'B', 'C'].map((event) => ({ type: 'track', userId: 'u', event, messageId: `r-${event}` })) });
    const [got] = await r.waitFor(1);
    const secondId = (JSON.parse(got!.body) as { batch: { messageId: string }[] }).batch[1]!.messageId;
    await until(() => a.deliveries.waitingCount() === 0 || undefined);
    for (const m of a.messages.list()) {
      const [d] = a.deliveries.forMessage(m.id);
      if (m.messageId === secondId) {
        expect(d).toMatchObject({ status: 'failed', lastError: 'the API accepted the batch but rejected this message (invalid_message: event must be a string)' });
        expect(a.deliveries.attempts(d!.id)[0]).toMatchObject({ responseStatus: 200, outcome: 'final' });
      } else expect(d!.status).toBe('delivered');
    }
    expect(got!.headers.authorization).toBe(`Basic ${Buffer.from('wk_team:').toString('base64')}`);

    const typed = await receiver();
    await a.operations['deliveries.replay']({ messageIds: [a.messages.list()[0]!.id], targetUrl: `${typed.url}/local` });
    const [replayed] = await typed.waitFor(1);
    expect(replayed!.headers.authorization).toBeUndefined();
    expect(JSON.parse(replayed!.body).batch).toHaveLength(1);
  });

  it('the upstream restarting: its batches are retried and nothing is lost or doubled', async () => {
    offset = 0;
    const port = await closedPort();
    const bDir = tempDir();
    dirs.push(bDir);
    const b1 = await upstream(port, bDir);
    const a = await forwarder(b1.ingestUrl, tempDir());
    await sendWithSegmentsLibrary(a, calls(60, 'x'));
    await until(() => b1.messages.list().length === 60 || undefined);
    await stop(b1);
    await sendWithSegmentsLibrary(a, calls(90, 'y'));
    await until(() => a.deliveries.countByStatus().retrying === 90 || undefined);
    const [retrying] = a.messages.list({ limit: 1 }).flatMap((m) => a.deliveries.forMessage(m.id));
    expect(a.deliveries.attempts(retrying!.id)[0]).toMatchObject({ errorCode: 'connect', outcome: 'retry' });

    const b2 = await upstream(port, bDir);
    offset += 6_000; // past the first retry (5 s)
    a.delivery.kick();
    await until(() => a.deliveries.countByStatus().delivered === 150 || undefined, 15_000);
    expectSameMessages(a, b2, 150);
    expect(b2.messages.list({ limit: 10_000 }).filter((m) => m.status !== 'accepted')).toEqual([]);
  });

  it('the forwarder restarting: what it held is forwarded after the restart', async () => {
    const port = await closedPort();
    const b = await upstream(port, tempDir());
    const aDir = tempDir();
    dirs.push(aDir);
    const a1 = await forwarder(b.ingestUrl, aDir);
    a1.delivery.setHeld(true);
    await sendWithSegmentsLibrary(a1, calls(120, 'h'));
    await stop(a1);
    expect(b.messages.list()).toHaveLength(0);
    const a2 = await forwarder(b.ingestUrl, aDir);
    await until(() => b.messages.list({ limit: 10_000 }).length === 120 || undefined, 15_000);
    expectSameMessages(a2, b, 120);
  });

  it('gzip, a final 4xx with the API\'s reason, and replays (a plain one is a duplicate upstream, an edited one a new message)', async () => {
    const port = await closedPort();
    const b = await upstream(port, tempDir());
    const a = await forwarder(b.ingestUrl, tempDir(), { gzip: true });
    await sendWithSegmentsLibrary(a, calls(10, 'g'));
    await until(() => b.messages.list().length === 10 || undefined);
    await until(() => a.deliveries.waitingCount() === 0 || undefined);
    const [first] = a.messages.list({ limit: 10_000 }).slice(-1);
    expect((a.deliveries.attempts(a.deliveries.forMessage(first!.id)[0]!.id)[0]!.requestHeaders as Record<string, string>)['Content-Encoding']).toBe('gzip');
    expectSameMessages(a, b, 10);

    // Replays: the same messageId again (B keeps it as a duplicate), and an edited body with a new id.
    await a.operations['deliveries.replay']({ messageIds: [first!.id] });
    const original = a.messages.get(first!.id)!.message!;
    await a.operations['deliveries.replay']({ messageIds: [first!.id], body: { ...original, messageId: 'edited-1', event: 'Edited', receivedAt: undefined } });
    await until(() => b.messages.list().length === 12 || undefined);
    expect(b.messages.list().map((m) => m.status).filter((s) => s === 'duplicate')).toHaveLength(1);
    expect(accepted(b).get('edited-1')).toMatchObject({ event: 'Edited', userId: original.userId });

    // A wrong write key: B answers 401, a 4xx, final at once, with B's own sentence.
    const id = a.destinations.byName('team')!.id;
    a.saveDestination({ id, name: 'team', sources: ['laptop'], kind: 'tracking-api', trackingApi: { url: b.ingestUrl, writeKey: 'wk_wrong', flushMs: 0 } } as never);
    expect((await post(a, '/v1/track', { userId: 'u', event: 'Refused' })).status).toBe(200);
    const refused = a.messages.list({ limit: 1 })[0]!;
    const delivery = await until(() => {
      const [d] = a.deliveries.forMessage(refused.id);
      return d?.status === 'failed' ? d : undefined;
    });
    expect(delivery.attemptCount).toBe(1);
    expect(delivery.lastError).toMatch(/answered 401.*the API said: .*wk_wrong|the API said: .*write key/i);
  });
});
