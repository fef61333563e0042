// Replays through a destination's filters and transform (issue 28, point 4), a transform that hangs or
// runs out of memory beside live traffic (point 3: nothing else lost), and the wording of the HTTP API's
// deliveries (point 6). A real core with its writer thread and the runtime's real worker threads, real
// receivers on loopback, the real HTTP API.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import type { DestinationConfig } from '../../../shared/settings.ts';
import { callOk } from '../../helpers/contract.ts';
import { closedAfterEach } from '../../helpers/api-host.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
let ui: UiServer | undefined;
const closing = closedAfterEach();

const tagging = (tag: string) => `async function onTrack(event) {\n  return { ...event, properties: { ...event.properties, tag: '${tag}' } };\n}\n`;
const versionOf = (source: string) => createHash('sha256').update(source).digest('hex').slice(0, 12);

function hooks(r: Receiver, name: string, change: Partial<DestinationConfig> = {}): DestinationConfig {
  return { name, enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${r.url}/${name}`, headers: {} }], options: { bodyShape: 'full', concurrency: 8 }, ...change };
}

async function setup(destinations: DestinationConfig[]) {
  core = closing.core(await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations } }));
  core.writeKey = 'wk_web';
  return core;
}

const bodiesTo = (r: Receiver, name: string) => r.received.filter((q) => q.path === `/${name}`).map((q) => JSON.parse(q.body) as { event: string; properties: Record<string, unknown> });

describe('replays through a transform', () => {
  it('run the current version after the file changed; an edited replay is sent as it is, or through the transform when it asks', async () => {
    const r = await receiver();
    const file = path.join(tempDir('sluice-transform-'), 'tag.js');
    fs.writeFileSync(file, tagging('v1'));
    const c = await setup([hooks(r, 'shaped', { transform: { file, timeoutMs: 1000, settings: {} } })]);
    const handlers = createHandlers(c);
    await post(c, '/v1/track', { userId: 'u', event: 'Replayed', properties: { n: 1 } });
    await r.waitFor(1);
    expect(bodiesTo(r, 'shaped')[0]!.properties).toEqual({ n: 1, tag: 'v1' });
    const messageId = c.messages.list()[0]!.id;

    // The file changes: the runtime reloads it, and a replay runs the new version.
    fs.writeFileSync(file, tagging('v2'));
    await until(() => c.transformer().loaded(file).version === versionOf(tagging('v2')), 10_000, 'the reload');
    const replay = await callOk(handlers, 'deliveries.replay', { messageIds: [messageId] });
    await r.waitFor(2);
    expect(bodiesTo(r, 'shaped')[1]!.properties).toEqual({ n: 1, tag: 'v2' });
    await until(() => c.deliveries.get(replay.deliveryIds[0]!)?.status === 'delivered');
    expect(c.deliveries.get(replay.deliveryIds[0]!)!.shaping).toBe(`transformed (version ${versionOf(tagging('v2'))})`);

    // An edited body is the body the destination receives: sent as it is, the transform not run.
    const edited = { type: 'track', event: 'Replayed', userId: 'u', properties: { n: 2, edited: true } };
    const asIs = await callOk(handlers, 'deliveries.replay', { messageIds: [messageId], body: edited });
    await r.waitFor(3);
    expect(bodiesTo(r, 'shaped')[2]).toEqual(edited);
    await until(() => c.deliveries.get(asIs.deliveryIds[0]!)?.status === 'delivered');
    expect(c.deliveries.get(asIs.deliveryIds[0]!)!.shaping).toBeNull();
    expect(c.deliveries.attempts(asIs.deliveryIds[0]!)[0]!.transform).toBeUndefined();

    // skipTransform: false — the edited body goes through the transform, its event sent as it returned it.
    const through = await callOk(handlers, 'deliveries.replay', { messageIds: [messageId], body: edited, skipTransform: false });
    await r.waitFor(4);
    expect(bodiesTo(r, 'shaped')[3]).toEqual({ ...edited, properties: { n: 2, edited: true, tag: 'v2' } });
    await until(() => c.deliveries.get(through.deliveryIds[0]!)?.status === 'delivered');
    expect(c.deliveries.attempts(through.deliveryIds[0]!)[0]!.transform).toMatchObject({ outcome: 'changed', version: versionOf(tagging('v2')) });

    // skipTransform goes with an edited body only.
    const refused = await invoke(handlers, 'deliveries.replay', { messageIds: [messageId], skipTransform: true });
    expect(refused).toMatchObject({ ok: false, error: { message: expect.stringMatching(/skipTransform goes with an edited body/) } });
  });

  it('run the current filters: a message replayed after a drop filter was saved is skipped', async () => {
    const r = await receiver();
    const c = await setup([hooks(r, 'filtered')]);
    await post(c, '/v1/track', { userId: 'u', event: 'Later Dropped' });
    await r.waitFor(1);
    c.saveDestination(hooks(r, 'filtered', { filters: [{ if: 'event:"Later Dropped"', drop: true }] }));
    const replay = await callOk(createHandlers(c), 'deliveries.replay', { messageIds: [c.messages.list()[0]!.id] });
    await until(() => c.deliveries.get(replay.deliveryIds[0]!)?.status === 'skipped');
    expect(c.deliveries.get(replay.deliveryIds[0]!)!.skipReason).toBe('dropped by filter 1 (if: event:"Later Dropped")');
    expect(r.received).toHaveLength(1);
  });
});

describe('a transform that hangs or runs out of memory beside live traffic', () => {
  it('fails only the deliveries it hung or ran out of memory on: every message stored, every other delivery delivered', async () => {
    const r = await receiver();
    const file = path.join(tempDir('sluice-transform-'), 'bad.js');
    // One message in ten spins for ever, one in ten fills the heap; the others pass unchanged.
    fs.writeFileSync(
      file,
      `async function onTrack(event) {
        const n = event.properties.n;
        if (n % 10 === 3) for (;;) {}
        if (n % 10 === 7) { const kept = []; for (;;) kept.push(new Array(100000).fill(kept.length)); }
        return event;
      }`,
    );
    const c = await setup([hooks(r, 'broken', { transform: { file, timeoutMs: 1000, settings: {} } }), hooks(r, 'healthy')]);
    const BATCHES = 10;
    const PER_BATCH = 20;
    const answers: number[] = [];
    // Ingestion goes on while the broken transform's calls are being stopped.
    for (let b = 0; b < BATCHES; b++) {
      const batch = Array.from({ length: PER_BATCH }, (_, i) => ({ type: 'track', userId: 'u', event: 'Live', messageId: `live-${b}-${i}`, properties: { n: b * PER_BATCH + i } }));
      answers.push((await post(c, '/v1/batch', { batch })).status);
    }
    expect(answers).toEqual(Array.from({ length: BATCHES }, () => 200));
    const total = BATCHES * PER_BATCH;
    const broken = c.destinations.byName('broken')!.id;
    const healthy = c.destinations.byName('healthy')!.id;
    const all = () => c.messages.list({ limit: 1000 }).flatMap((m) => c.deliveries.forMessage(m.id).map((d) => ({ ...d, n: Number(m.messageId!.split('-')[1]) * PER_BATCH + Number(m.messageId!.split('-')[2]) })));
    await until(() => all().filter((d) => d.destinationId === healthy && d.status === 'delivered').length === total, 60_000, 'the healthy deliveries');
    await until(() => all().filter((d) => d.destinationId === broken && (d.status === 'failed' || d.status === 'delivered')).length === total, 150_000, 'the broken destination’s deliveries to settle');
    expect(c.messages.list({ limit: 1000 })).toHaveLength(total);
    expect(new Set(bodiesTo(r, 'healthy').map((b) => b.properties.n)).size).toBe(total);
    const mine = all().filter((d) => d.destinationId === broken);
    const bad = (n: number) => n % 10 === 3 || n % 10 === 7;
    // The calls it hung or ran out of memory on failed, saying so; every other call of it was delivered.
    expect(mine.filter((d) => d.status === 'failed').map((d) => d.n).sort((a, b) => a - b)).toEqual(mine.map((d) => d.n).filter(bad).sort((a, b) => a - b));
    for (const d of mine.filter((x) => x.status === 'failed')) expect(d.lastError).toMatch(d.n % 10 === 3 ? /limit/ : /memory|limit/);
    expect(new Set(bodiesTo(r, 'broken').map((b) => b.properties.n)).size).toBe(total - mine.filter((d) => bad(d.n)).length);
  }, 240_000);
});

describe('the HTTP API’s deliveries', () => {
  it('say "transformed", "dropped by filter …" and "dropped by transform …"', async () => {
    const r = await receiver();
    const file = path.join(tempDir('sluice-transform-'), 'drop.js');
    fs.writeFileSync(file, `async function onTrack(event) {\n  if (event.event === 'Dropped By Transform') return null;\n  return event;\n}\n`);
    const c = await setup([hooks(r, 'shaped', { transform: { file, timeoutMs: 1000, settings: {} }, filters: [{ if: 'event:"Dropped By Filter"', drop: true }] })]);
    ui = closing.ui(new UiServer({ core: c, host: '127.0.0.1', port: 0 }));
    await ui.listen();
    await post(c, '/v1/batch', { batch: ['Sent', 'Dropped By Filter', 'Dropped By Transform'].map((event) => ({ type: 'track', userId: 'u', event })) });
    await until(() => c.messages.list().every((m) => c.deliveries.forMessage(m.id).every((d) => d.status === 'delivered' || d.status === 'skipped')) && c.messages.list().length === 3);
    const list = await request(`${ui.apiUrl}/deliveries`, { headers: { authorization: `Bearer ${ui.token}` } });
    const { deliveries: items } = (await list.body.json()) as { deliveries: { message: { event: string }; status: string; shaping: string | null; skipReason: string | null; attempts: { transform?: { version: string } }[] }[] };
    const by = Object.fromEntries(items.map((d) => [d.message.event, d]));
    expect(by['Sent']).toMatchObject({ status: 'delivered', shaping: expect.stringMatching(/^transformed \(version [0-9a-f]{12}, unchanged\)$/), attempts: [{ transform: { version: expect.any(String) } }] });
    expect(by['Dropped By Filter']).toMatchObject({ status: 'skipped', skipReason: 'dropped by filter 1 (if: event:"Dropped By Filter")', attempts: [] });
    expect(by['Dropped By Transform']).toMatchObject({ status: 'skipped', skipReason: expect.stringMatching(/^dropped by transform: /), attempts: [] });
  });
});
