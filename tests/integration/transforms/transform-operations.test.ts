// The preview's operations (transforms.try, .get, .save) on a real core: real SQLite, the real
// transform runtime's worker, a real receiver. A try builds the bodies the destination would send
// (the same bytes a delivery sends), runs saved and unsaved transforms and filters, and sends and
// stores nothing; a save compiles first (refused with its line and column), writes the data folder's
// file whole, leaves a config's file untouched, and a null source removes the transform.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { invoke } from '../../../electron/core/api/contract-handlers.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
let folder: string | undefined;
let ui: UiServer | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await ui?.close();
  ui = undefined;
  await core?.dispose();
  core = undefined;
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

const RENAME = `async function onTrack(event, { settings, log }) {
  log('renaming', event.event);
  return { ...event, event: settings.prefix + event.event, properties: { ...event.properties, seen: true } };
}
`;
const versionOf = (source: string) => crypto.createHash('sha256').update(source).digest('hex').slice(0, 12);

async function setup(r: Receiver, destination: Record<string, unknown> = {}) {
  folder = tempDir('sluice-transform-config-');
  const configTransform = path.join(folder, 'rename.js');
  fs.writeFileSync(configTransform, RENAME);
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [
        {
          name: 'hooks',
          enabled: true,
          sources: ['web'],
          options: { bodyShape: 'seed', concurrency: 8 },
          sharedSecret: 'abc123',
          webhooks: [{ url: r.url, headers: {} }],
          transform: { file: configTransform, settings: { prefix: 'web: ' }, timeoutMs: 1000 },
          ...destination,
        },
        { name: 'plain', enabled: false, sources: ['web'], webhooks: [{ url: r.url, headers: {} }], options: { bodyShape: 'full', concurrency: 4 } },
      ],
    },
  });
  core.writeKey = 'wk_web';
  return { c: core, configTransform, hooks: core.destinations.byName('hooks')!.id, plain: core.destinations.byName('plain')!.id };
}

async function call(c: TestCore, channel: string, request: unknown) {
  return invoke(c.operations as never, channel, request);
}

describe('transforms.try', () => {
  it("runs the saved transform on a stored message: input, output, logs, version, and the bodies built as a delivery builds them; nothing sent or stored", async () => {
    const r = await receiver();
    const { c, plain } = await setup(r, { enabled: false });
    await post(c, '/v1/track', { userId: 'u1', event: 'Order Completed', properties: { price: 10 } });
    const message = await until(() => c.messages.list()[0]);
    const deliveriesBefore = c.deliveries.forMessage(message.id).length;

    const result = await call(c, 'transforms.try', { messageId: message.id, destinationId: c.destinations.byName('hooks')!.id });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const tried = (result as { value: any }).value;
    expect(tried.input).toMatchObject({ type: 'track', event: 'Order Completed', userId: 'u1', properties: { price: 10 } });
    expect(tried.filters).toEqual([]);
    expect(tried.transform).toMatchObject({ outcome: 'changed', version: versionOf(RENAME), logs: [{ level: 'log', text: 'renaming Order Completed' }] });
    expect(tried.transform.ms).toBeGreaterThanOrEqual(0);
    expect(tried.transform.output).toEqual([{ ...tried.input, event: 'web: Order Completed', properties: { price: 10, seen: true } }]);
    expect(tried.bodies).toHaveLength(1);
    expect(JSON.parse(tried.bodies[0])).toMatchObject({ event: 'web: Order Completed', properties: { price: 10, seen: true }, userId: 'u1' });
    expect(tried.summary).toMatch(/^transformed/);
    // Nothing was sent or stored: no request arrived, no delivery was made.
    expect(r.received).toHaveLength(0);
    expect(c.deliveries.forMessage(message.id)).toHaveLength(deliveriesBefore);

    // Without a transform, the body is exactly the one a delivery sends (the one body builder), byte for byte.
    c.saveDestination({ name: 'plain', enabled: true, sources: ['web'], webhooks: [{ url: r.url, headers: {} }], options: { bodyShape: 'full', concurrency: 4 } });
    await post(c, '/v1/track', { userId: 'u2', event: 'Sent', properties: { n: 1 }, context: { ip: '10.0.0.1' } });
    const [sent] = await r.waitFor(1);
    const stored = c.messages.list()[0]!;
    const plainTry = await call(c, 'transforms.try', { messageId: stored.id, destinationId: plain });
    expect(plainTry).toMatchObject({ ok: true, value: { transform: null, filters: [] } });
    expect((plainTry as { value: any }).value.bodies).toEqual([sent!.body]);
  });

  it('says and builds what the delivery of the same message said and sent: the transformed, signed body byte for byte', async () => {
    const r = await receiver();
    const { c, hooks } = await setup(r);
    await post(c, '/v1/track', { userId: 'u4', event: 'Delivered', properties: { price: 4 } });
    const [sent] = await r.waitFor(1);
    const stored = c.messages.list()[0]!;
    const delivery = await until(() => c.deliveries.forMessage(stored.id).find((d) => d.status === 'delivered'));
    const tried = await call(c, 'transforms.try', { messageId: stored.id, destinationId: hooks });
    expect(tried).toMatchObject({ ok: true, value: { summary: delivery.shaping, bodies: [sent!.body] } });
    expect(JSON.parse(sent!.body)).toMatchObject({ event: 'web: Delivered' });
  });

  it('builds a Tracking API forward’s body as the forward sends it (each message of its batch)', async () => {
    const r = await receiver();
    const { c } = await setup(r, { enabled: false });
    c.saveDestination({ name: 'forward', kind: 'tracking-api', sources: ['web'], trackingApi: { url: r.url, writeKey: 'wk_up', batchSize: 1, flushMs: 0 } });
    await post(c, '/v1/track', { userId: 'u3', event: 'Forwarded', properties: { n: 3 } });
    const [sent] = await r.waitFor(1);
    const stored = c.messages.list()[0]!;
    const tried = await call(c, 'transforms.try', { messageId: stored.id, destinationId: c.destinations.byName('forward')!.id });
    expect(tried).toMatchObject({ ok: true, value: { transform: null } });
    expect(sent!.body).toBe(`{"batch":[${(tried as { value: any }).value.bodies[0]}]}`);
  });

  it('runs an unsaved source: a fan-out shows each output, a null says it dropped, a throw shows its message and stack', async () => {
    const r = await receiver();
    const { c, hooks } = await setup(r, { enabled: false });
    await post(c, '/v1/track', { userId: 'u1', event: 'Split', properties: { a: 1 } });
    const message = await until(() => c.messages.list()[0]);
    const tryIt = async (source: string | null) => {
      const result = await call(c, 'transforms.try', { messageId: message.id, destinationId: hooks, source });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      return (result as { value: any }).value;
    };

    const fanOut = await tryIt('async function onTrack(event) { return [{ ...event, event: "one" }, { ...event, event: "two" }]; }');
    expect(fanOut.transform.outcome).toBe('changed');
    expect(fanOut.transform.output.map((e: { event: string }) => e.event)).toEqual(['one', 'two']);
    expect(fanOut.bodies.map((b: string) => JSON.parse(b).event)).toEqual(['one', 'two']);

    const dropped = await tryIt('async function onTrack(event) { return null; }');
    expect(dropped.transform).toMatchObject({ outcome: 'dropped', output: [] });
    expect(dropped.bodies).toEqual([]);
    expect(dropped.summary).toMatch(/^dropped by transform/);

    const failed = await tryIt('async function onTrack(event) { throw new Error("no price on " + event.event); }');
    expect(failed.transform).toMatchObject({ outcome: 'failed', message: expect.stringContaining('no price on Split') });
    expect(failed.transform.stack).toMatch(/no price on Split/);
    expect(failed.bodies).toEqual([]);

    // source: null skips the transform: the filters' message goes as it is.
    const skipped = await tryIt(null);
    expect(skipped.transform).toBeNull();
    expect(JSON.parse(skipped.bodies[0]).event).toBe('Split');
    expect(r.received).toHaveLength(0);
  });

  it('applies unsaved filters: a drop decides before the transform runs, fields are removed before it', async () => {
    const r = await receiver();
    const { c, hooks } = await setup(r, { enabled: false });
    await post(c, '/v1/identify', { userId: 'u1', traits: { email: 'a@b.c' } });
    await post(c, '/v1/track', { userId: 'u1', event: 'Kept', properties: { price: 3, secret: 'x' } });
    await until(() => (c.messages.list().length === 2 ? true : undefined));
    const [track, identify] = c.messages.list();

    const filters = [{ if: 'type:identify', drop: true }, { if: 'type:track', blockFields: ['properties.secret'] }];
    const droppedTry = await call(c, 'transforms.try', { messageId: identify!.id, destinationId: hooks, filters });
    expect(droppedTry).toMatchObject({ ok: true, value: { transform: null, bodies: [] } });
    const dropped = (droppedTry as { value: any }).value;
    expect(dropped.filters).toEqual([expect.objectContaining({ index: 0, if: 'type:identify', effect: 'dropped' })]);
    expect(dropped.summary).toMatch(/filter 1/);

    const keptTry = await call(c, 'transforms.try', { messageId: track!.id, destinationId: hooks, filters });
    const kept = (keptTry as { value: any }).value;
    expect(kept.filters).toEqual([expect.objectContaining({ index: 1, effect: 'fields' })]);
    expect(kept.transform.output[0].properties).toEqual({ price: 3, seen: true });

    const bad = await call(c, 'transforms.try', { messageId: track!.id, destinationId: hooks, filters: [{ if: 'type:(', drop: true }] });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('refuses an unknown message or destination, and a rejected message, with a sentence', async () => {
    const r = await receiver();
    const { c, hooks } = await setup(r, { enabled: false });
    expect(await call(c, 'transforms.try', { messageId: 999, destinationId: hooks })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('no message 999') } });
    await post(c, '/v1/track', { userId: 'u1' }); // no event: rejected
    const rejected = await until(() => c.messages.list({ status: 'rejected' })[0]);
    expect(await call(c, 'transforms.try', { messageId: rejected.id, destinationId: hooks })).toMatchObject({ ok: false, error: { code: 'not_deliverable' } });
    expect(await call(c, 'transforms.try', { messageId: rejected.id, destinationId: 999 })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('no destination 999') } });
  });
});

describe('transforms.get and transforms.save', () => {
  it("refuses a source that does not compile with its line and column, writing nothing; saves a good one as the data folder's copy, the config's file untouched", async () => {
    const r = await receiver();
    const { c, hooks, configTransform } = await setup(r, { enabled: false });
    const own = path.join(c.dataDir, 'transforms', `destination-${hooks}.js`);

    const before = await call(c, 'transforms.get', { destinationId: hooks });
    expect(before).toEqual({ ok: true, value: { file: configTransform, source: RENAME, version: versionOf(RENAME), error: null, inDataFolder: false } });

    const broken = 'async function onTrack(event) {\n  return {\n    event: event.event,,\n  };\n}\n';
    const refused = await call(c, 'transforms.save', { destinationId: hooks, source: broken });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_transform', message: expect.stringMatching(/at line 3, column \d+/) } });
    expect(fs.existsSync(own)).toBe(false);
    expect(c.destinations.byId(hooks)!.transform!.file).toBe(configTransform);

    const edited = RENAME.replace("log('renaming'", "log('edited'");
    const saved = await call(c, 'transforms.save', { destinationId: hooks, source: edited });
    expect(saved).toEqual({ ok: true, value: { file: own, source: edited, version: versionOf(edited), error: null, inDataFolder: true } });
    expect(fs.readFileSync(own, 'utf8')).toBe(edited);
    expect(fs.readFileSync(configTransform, 'utf8')).toBe(RENAME);
    const destination = c.destinations.byId(hooks)!;
    expect(destination.transform).toMatchObject({ file: own, settings: { prefix: 'web: ' }, timeoutMs: 1000 });
    expect(await call(c, 'transforms.get', { destinationId: hooks })).toEqual(saved);

    // The next try runs the saved version.
    await post(c, '/v1/track', { userId: 'u1', event: 'After' });
    const message = await until(() => c.messages.list()[0]);
    const tried = await call(c, 'transforms.try', { messageId: message.id, destinationId: hooks });
    expect(tried).toMatchObject({ ok: true, value: { transform: { version: versionOf(edited), logs: [{ level: 'log', text: 'edited After' }] } } });

    // A second save writes the same file again.
    const again = RENAME.replace("log('renaming'", "log('again'");
    expect(await call(c, 'transforms.save', { destinationId: hooks, source: again })).toMatchObject({ ok: true, value: { file: own, version: versionOf(again) } });
    expect(fs.readdirSync(path.dirname(own))).toEqual([`destination-${hooks}.js`]);
  });

  it('removes the transform with source null (its data folder file too); a destination without one reads as none', async () => {
    const r = await receiver();
    const { c, hooks, plain, configTransform } = await setup(r, { enabled: false });
    expect(await call(c, 'transforms.get', { destinationId: plain })).toEqual({ ok: true, value: { file: null, source: null, version: null, error: null, inDataFolder: false } });
    // A destination without a transform gets one, with the default time limit and no settings.
    const plainFile = path.join(c.dataDir, 'transforms', `destination-${plain}.js`);
    expect(await call(c, 'transforms.save', { destinationId: plain, source: RENAME })).toMatchObject({ ok: true, value: { file: plainFile, version: versionOf(RENAME) } });
    expect(c.destinations.byId(plain)!.transform).toEqual({ file: plainFile, timeoutMs: 1000, settings: {} });
    await call(c, 'transforms.save', { destinationId: hooks, source: RENAME });
    const own = path.join(c.dataDir, 'transforms', `destination-${hooks}.js`);
    expect(fs.existsSync(own)).toBe(true);
    expect(await call(c, 'transforms.save', { destinationId: hooks, source: null })).toEqual({ ok: true, value: { file: null, source: null, version: null, error: null, inDataFolder: false } });
    expect(c.destinations.byId(hooks)!.transform).toBeUndefined();
    expect(fs.existsSync(own)).toBe(false);
    expect(fs.readFileSync(configTransform, 'utf8')).toBe(RENAME);
    expect(await call(c, 'transforms.save', { destinationId: 999, source: null })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('POST /api/v1/transforms/try', () => {
  it("previews over HTTP for a CI script: a message by its messageId, a destination by its name, an unsaved source; unknown ones answer 404", async () => {
    const r = await receiver();
    const { c } = await setup(r, { enabled: false });
    ui = new UiServer({ core: c, host: '127.0.0.1', port: 0 });
    await ui.listen();
    await post(c, '/v1/track', { userId: 'u1', event: 'Checkout', messageId: 'ci-1' });
    await until(() => c.messages.list()[0]);
    const api = async (body: unknown) => {
      const res = await request(`${ui!.apiUrl}/transforms/try`, { method: 'POST', headers: { authorization: `Bearer ${ui!.token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.statusCode, json: (await res.body.json()) as any };
    };
    const saved = await api({ messageId: 'ci-1', destination: 'hooks' });
    expect(saved.status).toBe(200);
    expect(saved.json.transform).toMatchObject({ outcome: 'changed', output: [expect.objectContaining({ event: 'web: Checkout', messageId: 'ci-1' })] });
    const unsaved = await api({ messageId: 'ci-1', destination: 'hooks', source: 'async function onTrack() { return null; }' });
    expect(unsaved.json).toMatchObject({ transform: { outcome: 'dropped' }, bodies: [] });
    expect(await api({ messageId: 'nope', destination: 'hooks' })).toMatchObject({ status: 404, json: { error: { code: 'not_found', message: 'no stored message has messageId "nope"' } } });
    expect(await api({ messageId: 'ci-1', destination: 'nope' })).toMatchObject({ status: 404, json: { error: { code: 'not_found' } } });
    expect(await api({ messageId: 'ci-1' })).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
    expect(r.received).toHaveLength(0);
  });
});
