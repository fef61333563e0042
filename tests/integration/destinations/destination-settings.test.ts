// Renaming and deleting destinations, structured refusals, and deliveries.get — through the contract's
// handlers over a real core (real SQLite file, real receivers on 127.0.0.1).
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import type { ConfigFile } from '../../../shared/settings.ts';
import type { DeliveryView, DestinationView, Result } from '../../../shared/contract.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
const dirs: string[] = [];
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const SOURCES: ConfigFile['sources'] = [
  { name: 'web', writeKey: 'wk_web', kind: 'web' },
  { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
];

async function setup(options: Parameters<typeof startCore>[0] = {}) {
  core = await startCore({ config: { sources: SOURCES, destinations: [] }, ...options });
  core.writeKey = 'wk_web';
  return { c: core, handlers: createHandlers(core) };
}

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

const save = (handlers: Handlers, request: Record<string, unknown>) => invoke(handlers, 'destinations.save', request) as Promise<Result<DestinationView>>;

async function deliveredMessage(c: TestCore, event: string) {
  await post(c, '/v1/track', { userId: 'u', event });
  const message = await until(() => c.messages.list().find((m) => m.event === event));
  return until(() => c.deliveries.forMessage(message.id).find((d) => d.status === 'delivered'));
}

describe('renaming a destination', () => {
  it('keeps its id, so its deliveries (past and next) stay its own; the old name is free again', async () => {
    const { c, handlers } = await setup();
    const r = await receiver();
    const created = value(await save(handlers, { name: 'hooks', sources: ['web'], sharedSecret: 'k1', webhooks: [{ url: `${r.url}/a` }] }));
    const before = await deliveredMessage(c, 'Before');
    expect(before.destinationId).toBe(created.id);

    const renamed = value(await save(handlers, { id: created.id, name: 'renamed', sources: ['web'], sharedSecret: 'k1', webhooks: [{ url: `${r.url}/b` }] }));
    expect(renamed).toMatchObject({ id: created.id, name: 'renamed', webhooks: [{ url: `${r.url}/b` }] });
    expect(value(await invoke(handlers, 'destinations.list', {})) as { destinations: DestinationView[] }).toEqual({ destinations: [renamed] });
    expect(c.deliveries.get(before.id)).toMatchObject({ destinationId: created.id, status: 'delivered' });

    const after = await deliveredMessage(c, 'After');
    expect(after.destinationId).toBe(created.id);
    expect(r.received.map((req) => req.path)).toEqual(['/a', '/b']);

    // The old name belongs to nobody now: a new destination may take it.
    const again = value(await save(handlers, { name: 'hooks', webhooks: [{ url: `${r.url}/c` }] }));
    expect(again.id).not.toBe(created.id);
  });

  it('refuses a name another destination has, on the name field, and changes nothing', async () => {
    const { c, handlers } = await setup();
    const a = value(await save(handlers, { name: 'a', webhooks: [{ url: 'http://127.0.0.1:9/a' }] }));
    const b = value(await save(handlers, { name: 'b', webhooks: [{ url: 'http://127.0.0.1:9/b' }] }));
    const message = 'another destination is already called “a”; choose another name';
    expect(await save(handlers, { id: b.id, name: 'a', webhooks: [{ url: 'http://127.0.0.1:9/b2' }] })).toEqual({
      ok: false,
      error: { code: 'name_taken', message, issues: [{ path: ['name'], message }] },
    });
    // Creating under a taken name from the inspector is refused too, instead of replacing `a`.
    expect(await save(handlers, { name: 'a', webhooks: [{ url: 'http://127.0.0.1:9/new' }] })).toMatchObject({ ok: false, error: { code: 'name_taken' } });
    expect(c.destinations.list().map((d) => [d.id, d.name, d.webhooks[0]!.url])).toEqual([
      [a.id, 'a', 'http://127.0.0.1:9/a'],
      [b.id, 'b', 'http://127.0.0.1:9/b'],
    ]);
    // Keeping its own name is no clash; the core's API (config, samples) still replaces by name.
    expect(await save(handlers, { id: a.id, name: 'a', enabled: false, webhooks: [{ url: 'http://127.0.0.1:9/a' }] })).toMatchObject({ ok: true, value: { id: a.id, enabled: false } });
    expect(c.saveDestination({ name: 'b', webhooks: [{ url: 'http://127.0.0.1:9/b3' }] }).id).toBe(b.id);
  });

  it('refuses an id that is not a destination (deleted meanwhile) with the fix', async () => {
    const { handlers } = await setup();
    expect(await save(handlers, { id: 99, name: 'x', webhooks: [{ url: 'http://127.0.0.1:9/x' }] })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: expect.stringContaining('reload the list') },
    });
  });
});

describe('structured refusals', () => {
  it('place each schema problem on its path, a header name with dots as one segment, and keep the joined message', async () => {
    const { handlers } = await setup();
    const result = await save(handlers, {
      name: 'hooks',
      webhooks: [{ url: 'http://127.0.0.1:9/x', headers: { 'X-Api.Key': 'a\nb', 'X-Signature': 'forged' } }, { url: 'ftp://example.com/in' }],
      options: { concurrency: 0 },
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid_request');
    expect(result.error.issues).toEqual([
      { path: ['webhooks', 0, 'headers', 'X-Api.Key'], message: 'header values may not contain line breaks or NUL' },
      { path: ['webhooks', 0, 'headers', 'X-Signature'], message: '"X-Signature" is set by Sluice and cannot be overridden' },
      { path: ['webhooks', 1, 'url'], message: 'must use http or https (or sluice://receiver/<hook> for the built-in receiver), not ftp' },
      { path: ['options', 'concurrency'], message: expect.stringContaining('>=1') },
    ]);
    expect(result.error.message).toContain('webhooks[1].url: must use http or https (or sluice://receiver/<hook> for the built-in receiver), not ftp; ');
  });

  it('place the core’s own refusal (an unknown source) on the source it names', async () => {
    const { c, handlers } = await setup();
    const result = await save(handlers, { name: 'hooks', sources: ['web', 'gone'], webhooks: [{ url: 'http://127.0.0.1:9/x' }] });
    expect(result).toEqual({
      ok: false,
      error: {
        code: 'invalid_destination',
        message: 'sources[1]: unknown source "gone"; choose one of the sources listed',
        issues: [{ path: ['sources', 1], message: 'unknown source "gone"; choose one of the sources listed' }],
      },
    });
    expect(c.destinations.list()).toEqual([]);
    // Errors without field problems carry no issues.
    const missing = await invoke(handlers, 'destinations.sendTest', { id: 5 });
    expect(missing.ok === false && 'issues' in missing.error).toBe(false);
  });
});

describe('deleting a destination', () => {
  it('cancels its pending and retrying deliveries, keeps delivered ones and every attempt readable, and routes nothing more to it', async () => {
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const { c, handlers } = await setup({ clock: { now: () => now } });
    const r = await receiver();
    const other = await receiver();
    const doomed = value(await save(handlers, { name: 'doomed', sources: ['web'], webhooks: [{ url: r.url }] }));
    const kept = value(await save(handlers, { name: 'kept', sources: ['web'], webhooks: [{ url: other.url }] }));

    await post(c, '/v1/track', { userId: 'u', event: 'Delivered' });
    const first = await until(() => c.messages.list().find((m) => m.event === 'Delivered'));
    const history = await until(() => c.deliveries.forMessage(first.id).find((d) => d.destinationId === doomed.id && d.status === 'delivered'));

    r.script({ status: 503 });
    await post(c, '/v1/track', { userId: 'u', event: 'Retrying' });
    const second = await until(() => c.messages.list().find((m) => m.event === 'Retrying'));
    const retrying = await until(() => c.deliveries.forMessage(second.id).find((d) => d.destinationId === doomed.id && d.status === 'retrying'));

    c.delivery.setHeld(true); // the next message's deliveries stay pending
    await post(c, '/v1/track', { userId: 'u', event: 'Pending' });
    const third = await until(() => c.messages.list().find((m) => m.event === 'Pending'));
    const pending = await until(() => c.deliveries.forMessage(third.id).find((d) => d.destinationId === doomed.id));
    expect(pending.status).toBe('pending');

    // The dry run counts what a deletion would cancel, and changes nothing.
    expect(value(await invoke(handlers, 'destinations.delete', { id: doomed.id, dryRun: true }))).toEqual({ deleted: false, cancelledDeliveries: 2 });
    expect(c.destinations.list()).toHaveLength(2);

    const settingsChanged: null[] = [];
    c.bus.on('settings.changed', (x) => settingsChanged.push(x));
    expect(value(await invoke(handlers, 'destinations.delete', { id: doomed.id }))).toEqual({ deleted: true, cancelledDeliveries: 2 });
    expect(settingsChanged).toHaveLength(1);
    expect(c.destinations.list().map((d) => d.id)).toEqual([kept.id]);
    expect(c.deliveries.get(retrying.id)).toMatchObject({ status: 'cancelled', nextAttemptAt: null });
    expect(c.deliveries.get(pending.id)).toMatchObject({ status: 'cancelled' });

    // History stays: the delivered delivery and its attempt, through the contract.
    const read = value(await invoke(handlers, 'deliveries.get', { id: history.id })) as DeliveryView;
    expect(read).toMatchObject({ id: history.id, destinationId: doomed.id, status: 'delivered', attempts: [{ url: r.url, responseStatus: 200, outcome: 'success' }] });
    const retried = value(await invoke(handlers, 'deliveries.get', { id: retrying.id })) as DeliveryView;
    expect(retried.attempts.map((a) => a.responseStatus)).toEqual([503]);
    const detail = value(await invoke(handlers, 'messages.get', { id: second.id })) as { deliveries: DeliveryView[] };
    expect(detail.deliveries.find((d) => d.destinationId === doomed.id)).toMatchObject({ status: 'cancelled' });

    // Released and past the retry time: nothing more reaches its webhook; the other destination goes on.
    c.delivery.setHeld(false);
    now += 3_600_000;
    c.delivery.kick();
    await post(c, '/v1/track', { userId: 'u', event: 'After' });
    const fourth = await until(() => c.messages.list().find((m) => m.event === 'After'));
    await until(() => c.deliveries.forMessage(fourth.id).find((d) => d.status === 'delivered'));
    await c.delivery.idle();
    expect(c.deliveries.forMessage(fourth.id).map((d) => d.destinationId)).toEqual([kept.id]);
    expect(r.received).toHaveLength(2); // Delivered, and the one 503 attempt
    await until(() => (other.received.length === 4 ? true : undefined));

    // Gone for every operation; deleting again says so.
    expect(await invoke(handlers, 'destinations.sendTest', { id: doomed.id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await invoke(handlers, 'destinations.revealSecret', { id: doomed.id })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await invoke(handlers, 'destinations.delete', { id: doomed.id })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('reload the list') } });
    // Its name is free: a new destination of that name is another destination.
    const reborn = value(await save(handlers, { name: 'doomed', webhooks: [{ url: r.url }] }));
    expect(reborn.id).not.toBe(doomed.id);
  });

  it('stays deleted after a restart, while the config file still creates or updates destinations by name', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const config = (url: string): ConfigFile => ({
      sources: SOURCES,
      destinations: [{ name: 'cfg', enabled: true, sources: ['web'], webhooks: [{ url, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
    });
    let started = await startCore({ dataDir, config: config('http://127.0.0.1:9/one') });
    core = started;
    const cfg = started.destinations.byName('cfg')!;
    const handlers = createHandlers(started);
    const mine = value(await save(handlers, { name: 'mine', webhooks: [{ url: 'http://127.0.0.1:9/mine' }] }));
    value(await invoke(handlers, 'destinations.delete', { id: mine.id }));
    await started.dispose();

    // Same config, new URL: the same destination is updated by name; the deleted one stays deleted.
    started = await startCore({ dataDir, config: config('http://127.0.0.1:9/two') });
    core = started;
    expect(started.destinations.list().map((d) => [d.id, d.name, d.webhooks[0]!.url])).toEqual([[cfg.id, 'cfg', 'http://127.0.0.1:9/two']]);
    value(await invoke(createHandlers(started), 'destinations.delete', { id: cfg.id }));
    await started.dispose();

    // Deleted in the inspector, the config's destination comes back at the next start, as a new one.
    started = await startCore({ dataDir, config: config('http://127.0.0.1:9/three') });
    core = started;
    const back = started.destinations.list();
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({ name: 'cfg', webhooks: [{ url: 'http://127.0.0.1:9/three' }] });
    expect(back[0]!.id).not.toBe(cfg.id);
  });
});

describe('a destination the config file declares', () => {
  it('is marked with the file, edited until the next start, and refused a rename (it would come back beside the copy, every message sent twice)', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const r = await receiver();
    const configFile = `${dataDir}/sluice.json`;
    const config: ConfigFile = {
      sources: SOURCES,
      destinations: [{ name: 'cfg', enabled: true, sources: ['web'], webhooks: [{ url: `${r.url}/cfg`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
    };
    let started = await startCore({ dataDir, config, configFile });
    started.writeKey = 'wk_web';
    core = started;
    const handlers = createHandlers(started);
    const listed = (value(await invoke(handlers, 'destinations.list', {})) as { destinations: DestinationView[] }).destinations;
    expect(listed.map((d) => [d.name, d.fromConfig])).toEqual([['cfg', configFile]]);
    const cfg = listed[0]!;

    const renamed = await save(handlers, { id: cfg.id, name: 'cfg-copy', sources: ['web'], webhooks: [{ url: `${r.url}/cfg` }] });
    expect(renamed).toMatchObject({ ok: false, error: { code: 'declared_in_config', issues: [{ path: ['name'] }] } });
    expect(!renamed.ok && renamed.error.message).toContain(`“cfg” is declared in ${configFile}`);
    expect(started.destinations.list().map((d) => d.name)).toEqual(['cfg']);
    // Its other settings may change, until the next start.
    const edited = value(await save(handlers, { id: cfg.id, name: 'cfg', sources: ['web'], webhooks: [{ url: `${r.url}/edited` }] }));
    expect(edited).toMatchObject({ id: cfg.id, fromConfig: configFile, webhooks: [{ url: `${r.url}/edited` }] });
    // One made in the inspector is renamed as before.
    const mine = value(await save(handlers, { name: 'mine', webhooks: [{ url: `${r.url}/mine` }] }));
    expect(mine.fromConfig).toBeNull();
    expect(value(await save(handlers, { id: mine.id, name: 'mine2', webhooks: [{ url: `${r.url}/mine` }] }))).toMatchObject({ name: 'mine2' });
    await started.dispose();

    // At the next start: one "cfg", as the file says, and each message reaches it once.
    started = await startCore({ dataDir, config, configFile });
    started.writeKey = 'wk_web';
    core = started;
    expect(started.destinations.list().map((d) => [d.id, d.name])).toEqual([[cfg.id, 'cfg'], [mine.id, 'mine2']]);
    r.received.length = 0;
    await post(started, '/v1/track', { userId: 'u', event: 'Once' });
    await until(() => (r.received.some((q) => q.path === '/cfg') ? true : undefined));
    await started.delivery.idle();
    expect(r.received.filter((q) => q.path !== '/mine').map((q) => q.path)).toEqual(['/cfg']);
  });
});

describe('replaying after a deletion', () => {
  it('leaves a deleted destination’s failed deliveries out of “all failed”, and replays the others', async () => {
    const { c, handlers } = await setup();
    const gone = await receiver();
    const live = await receiver();
    gone.fallback = { status: 404 };
    live.script({ status: 404 });
    const doomed = value(await save(handlers, { name: 'doomed', sources: ['web'], webhooks: [{ url: gone.url }] }));
    const kept = value(await save(handlers, { name: 'kept', sources: ['web'], webhooks: [{ url: live.url }] }));
    await post(c, '/v1/track', { userId: 'u', event: 'Fails' });
    const message = await until(() => c.messages.list()[0]);
    await until(() => (c.deliveries.forMessage(message.id).filter((d) => d.status === 'failed').length === 2 ? true : undefined));
    value(await invoke(handlers, 'destinations.delete', { id: doomed.id }));

    const { deliveryIds } = await c.operations['deliveries.replay']({ allFailed: true });
    expect(deliveryIds.map((id) => c.deliveries.get(id)!.destinationId)).toEqual([kept.id]);
    await until(() => (c.deliveries.get(deliveryIds[0]!)?.status === 'delivered' ? true : undefined));
    expect(gone.received).toHaveLength(1); // only the first, failed attempt
  });
});

describe('deliveries.get', () => {
  it('answers one delivery with its attempts, and not_found for an unknown id', async () => {
    const { c, handlers } = await setup();
    const r = await receiver();
    r.script({ status: 500 }, { status: 200 });
    const saved = value(await save(handlers, { name: 'hooks', webhooks: [{ url: r.url }] }));
    const { deliveryId } = value(await invoke(handlers, 'destinations.sendTest', { id: saved.id })) as { deliveryId: number };
    const retrying = await until(() => (c.deliveries.get(deliveryId)?.status === 'retrying' ? c.deliveries.get(deliveryId) : undefined));
    const view = value(await invoke(handlers, 'deliveries.get', { id: deliveryId })) as DeliveryView;
    expect(view).toMatchObject({ id: deliveryId, trigger: 'test', destinationId: saved.id, status: 'retrying', attemptCount: 1, nextAttemptAt: retrying.nextAttemptAt });
    expect(view.attempts).toEqual([expect.objectContaining({ url: r.url, responseStatus: 500, outcome: 'retry', retryAt: retrying.nextAttemptAt })]);
    expect(await invoke(handlers, 'deliveries.get', { id: 424242 })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await invoke(handlers, 'deliveries.get', { id: 0 })).toMatchObject({ ok: false, error: { code: 'invalid_request', issues: [{ path: ['id'] }] } });
  });
});
