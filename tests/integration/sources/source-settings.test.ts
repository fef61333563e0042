// Sources created and edited through the contract (sources.save) over a real core: a real SQLite
// file, the real ingestion endpoint on 127.0.0.1, the writer thread's key lookup, the composer's
// client — and the config file's precedence (its sources are read-only here, and applied at start).
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import type { Result, SourceView } from '../../../shared/contract.ts';
import type { ConfigFile } from '../../../shared/settings.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';
import { callOk } from '../../helpers/contract.ts';

let cores: TestCore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const CONFIG: ConfigFile = { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] };

async function setup(options: Parameters<typeof startCore>[0] = {}): Promise<{ core: TestCore; handlers: Handlers }> {
  const core = await startCore({ config: CONFIG, configFile: '/projects/shop/sluice.config.json', ...options });
  cores.push(core);
  return { core, handlers: createHandlers(core) };
}

const save = (handlers: Handlers, request: Record<string, unknown>) => invoke(handlers, 'sources.save', request) as Promise<Result<SourceView>>;


/** A track with the key as Basic auth (checked on the main thread) or in the body (checked by the writer thread). */
function track(core: TestCore, writeKey: string, event: string, keyIn: 'header' | 'body' = 'header') {
  const body = { userId: 'u1', event, ...(keyIn === 'body' ? { writeKey } : {}) };
  return post({ ingestUrl: core.ingestUrl, writeKey }, '/v1/track', body, keyIn === 'body' ? { writeKey: null } : {});
}

const REFUSED = { success: false, error: { code: 'invalid_write_key', message: "unknown write key; copy it from Sluice's Sources view" } };

describe('a source created in the inspector', () => {
  it('accepts ingestion with its key at once, by header and in the body, and its messages are its own', async () => {
    const { core, handlers } = await setup();
    // Unknown before: the same request is refused.
    expect(await track(core, 'wk_new_ios', 'Before')).toMatchObject({ status: 401, json: REFUSED });

    const created = await callOk(handlers, 'sources.save', { name: 'ios', writeKey: 'wk_new_ios', kind: 'mobile' });
    expect(created).toMatchObject({ name: 'ios', writeKey: 'wk_new_ios', kind: 'mobile', fromConfig: null });

    expect(await track(core, 'wk_new_ios', 'By header')).toMatchObject({ status: 200, json: { success: true } });
    expect(await track(core, 'wk_new_ios', 'In body', 'body')).toMatchObject({ status: 200, json: { success: true } });
    const stored = await until(() => {
      const found = core.messages.list().filter((m) => m.event === 'By header' || m.event === 'In body');
      return found.length === 2 && found;
    });
    expect(stored.map((m) => [m.event, m.sourceId, m.status])).toEqual([
      ['In body', created.id, 'accepted'],
      ['By header', created.id, 'accepted'],
    ]);
    // Listed for every window (app.info), beside the config's.
    const info = await callOk(handlers, 'app.info', {});
    expect(info.sources.map((s) => [s.name, s.fromConfig])).toEqual([
      ['web', '/projects/shop/sluice.config.json'],
      ['ios', null],
    ]);
  });

  it('a new key is accepted and the old one refused (401, the usual JSON) as soon as the edit is saved; a rename keeps its messages', async () => {
    const { core, handlers } = await setup();
    const created = await callOk(handlers, 'sources.save', { name: 'ios', writeKey: 'wk_old', kind: 'mobile' });
    expect((await track(core, 'wk_old', 'Old key')).status).toBe(200);

    const edited = await callOk(handlers, 'sources.save', { id: created.id, name: 'ios-app', writeKey: 'wk_rotated', kind: 'server' });
    expect(edited).toEqual({ id: created.id, name: 'ios-app', writeKey: 'wk_rotated', kind: 'server', allowedOrigins: null, fromConfig: null });

    expect(await track(core, 'wk_old', 'Refused by header')).toMatchObject({ status: 401, json: REFUSED });
    const inBody = await track(core, 'wk_old', 'Refused in body', 'body');
    expect(inBody.status).toBe(401);
    expect(inBody.json).toMatchObject({ success: false, error: { code: 'invalid_write_key' } });
    expect((await track(core, 'wk_rotated', 'New key')).status).toBe(200);
    expect((await track(core, 'wk_rotated', 'New key in body', 'body')).status).toBe(200);

    const mine = await until(() => {
      const found = core.messages.list().filter((m) => m.sourceId === created.id && m.status === 'accepted');
      return found.length === 3 && found;
    });
    expect(mine.map((m) => m.event).sort()).toEqual(['New key', 'New key in body', 'Old key']);
    expect(core.messages.list().some((m) => m.event?.startsWith('Refused'))).toBe(false);
  });

  it("the composer's client sends with the new key after an edit (what it had queued went with the old one)", async () => {
    const { core, handlers } = await setup({ composer: { flushAt: 100, flushAfter: 60_000 } });
    const created = await callOk(handlers, 'sources.save', { name: 'app', writeKey: 'wk_app_1', kind: 'server' });
    await invoke(handlers, 'composer.send', { sourceId: created.id, type: 'track', fields: { userId: 'u', event: 'Queued before' } });
    await callOk(handlers, 'sources.save', { id: created.id, name: 'app', writeKey: 'wk_app_2', kind: 'server' });
    await invoke(handlers, 'composer.send', { sourceId: created.id, type: 'track', fields: { userId: 'u', event: 'Sent after' } });
    const state = await callOk(handlers, 'composer.flush', { sourceId: created.id });
    expect(state.lastResult).toMatchObject({ ok: true });
    const events = await until(() => {
      const found = core.messages.list().filter((m) => m.sourceId === created.id);
      return found.length === 2 && found.map((m) => [m.event, m.status]);
    });
    expect(events.sort()).toEqual([
      ['Queued before', 'accepted'],
      ['Sent after', 'accepted'],
    ]);
  });
});

describe('refusals', () => {
  it('a source the config file declares is read-only: the refusal names the file, and nothing changes', async () => {
    const { core, handlers } = await setup();
    const web = core.sources.byName('web')!;
    const refused = await save(handlers, { id: web.id, name: 'web', writeKey: 'wk_other', kind: 'web' });
    expect(refused).toEqual({
      ok: false,
      error: {
        code: 'declared_in_config',
        message: '“web” is declared in /projects/shop/sluice.config.json, which Sluice applies at every start; edit it there and restart Sluice',
      },
    });
    expect(core.sources.byName('web')).toMatchObject({ writeKey: 'wk_web' });
    expect((await track(core, 'wk_web', 'Still works')).status).toBe(200);
  });

  it('a taken name or write key, an empty key, an unknown kind and an unknown id, each on its field', async () => {
    const { core, handlers } = await setup();
    const nameTaken = 'another source is already called “web”; choose another name';
    expect(await save(handlers, { name: 'web', writeKey: 'wk_fresh', kind: 'web' })).toEqual({
      ok: false,
      error: { code: 'name_taken', message: nameTaken, issues: [{ path: ['name'], message: nameTaken }] },
    });
    const keyTaken = 'the source “web” already has this write key; each source needs its own (generate one)';
    expect(await save(handlers, { name: 'shop', writeKey: 'wk_web', kind: 'web' })).toEqual({
      ok: false,
      error: { code: 'write_key_taken', message: keyTaken, issues: [{ path: ['writeKey'], message: keyTaken }] },
    });
    // An edit may not take another source's key either.
    const mine = await callOk(handlers, 'sources.save', { name: 'shop', writeKey: 'wk_shop', kind: 'web' });
    expect(await save(handlers, { id: mine.id, name: 'shop', writeKey: 'wk_web', kind: 'web' })).toMatchObject({ ok: false, error: { code: 'write_key_taken' } });

    const empty = await save(handlers, { name: 'x', writeKey: '', kind: 'web' });
    // The first problem is the one a form shows beside the field.
    expect(empty).toMatchObject({ ok: false, error: { code: 'invalid_request', issues: [{ path: ['writeKey'], message: 'must not be empty' }, { path: ['writeKey'] }] } });
    const spaced = await save(handlers, { name: 'x', writeKey: 'wk with spaces', kind: 'web' });
    expect(spaced).toMatchObject({ ok: false, error: { issues: [{ path: ['writeKey'], message: 'may contain only letters, digits and _ - . ~' }] } });
    const kind = await save(handlers, { name: 'x', writeKey: 'wk_x', kind: 'desktop' });
    expect(kind).toMatchObject({ ok: false, error: { issues: [{ path: ['kind'], message: 'must be one of web, mobile, server' }] } });
    const noName = await save(handlers, { name: '  ', writeKey: 'wk_x', kind: 'web' });
    expect(noName).toMatchObject({ ok: false, error: { issues: [{ path: ['name'], message: 'must not be empty' }] } });
    expect(await save(handlers, { id: 999, name: 'x', writeKey: 'wk_x', kind: 'web' })).toEqual({
      ok: false,
      error: { code: 'not_found', message: 'there is no source 999; reload the list' },
    });
    // The core's own API validates too (not only the contract's handlers).
    await expect(core.operations['sources.save']({ name: 'x' } as never)).rejects.toMatchObject({ code: 'invalid_source' });
    expect(core.sources.list().map((s) => s.name)).toEqual(['web', 'shop']);
  });
});

describe("the config file's precedence", () => {
  it('sources made in the inspector are kept across restarts; the config applies its own at every start', async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    const { core, handlers } = await setup({ dataDir });
    const made = await callOk(handlers, 'sources.save', { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' });
    await core.close();
    cores = [];

    // The file now gives web another key; ios is not in it.
    const again = await startCore({ dataDir, config: { sources: [{ name: 'web', writeKey: 'wk_web_2', kind: 'web' }], destinations: [] } });
    cores.push(again);
    expect(again.sources.list().map((s) => [s.id, s.name, s.writeKey])).toEqual([
      [again.sources.byName('web')!.id, 'web', 'wk_web_2'],
      [made.id, 'ios', 'wk_ios'],
    ]);
    expect((await track(again, 'wk_ios', 'After restart')).status).toBe(200);
    expect((await track(again, 'wk_web', 'Old config key')).status).toBe(401);
    // Given without a file's path (sluice/testing's object), the refusal says --config.
    const refused = await save(createHandlers(again), { id: again.sources.byName('web')!.id, name: 'web', writeKey: 'wk_x', kind: 'web' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'declared_in_config', message: expect.stringContaining('is declared in --config') } });
  });
});
