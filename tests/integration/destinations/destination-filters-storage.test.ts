// A destination's filters and transform kept with it (issue 28): saved by destinations.save and by the
// config file, shown in its view, the same after a restart and a config reload; a transform file that is
// not there refused with a sentence naming the field. A real core (real SQLite file), the contract's handlers.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import { ConfigError, loadConfigFile } from '../../../electron/core/config/load-config.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { startSluice } from '../../../electron/testing/index.ts';
import type { DestinationView, Result } from '../../../shared/contract.ts';
import { startCore, tempDir, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await core?.dispose();
  core = undefined;
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function dir(): string {
  const d = tempDir('sluice-filters-');
  dirs.push(d);
  return d;
}

const FILTERS = [
  { if: 'type:identify', drop: true },
  { if: 'event:"Order*"', sample: 0.25 },
  { if: '', allowFields: ['properties.price', 'context.library'] },
  { if: '-source:ios', blockFields: ['context.ip'] },
];

const save = (handlers: Handlers, request: Record<string, unknown>) => invoke(handlers, 'destinations.save', request) as Promise<Result<DestinationView>>;
const list = async (handlers: Handlers) => ((await invoke(handlers, 'destinations.list', {})) as Result<{ destinations: DestinationView[] }>);

function value<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

function transformFile(folder: string, name = 'amp.js'): string {
  const file = path.join(folder, 'transforms', name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, 'export async function onTrack(event) { return event; }\n');
  return file;
}

describe('destinations.save', () => {
  it('keeps filters and transform: saved, listed, and the same after a restart', async () => {
    const data = dir();
    const file = transformFile(dir());
    core = await startCore({ dataDir: data });
    let handlers = createHandlers(core);
    const saved = value(await save(handlers, { name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/a' }], filters: FILTERS, transform: { file, settings: { key: 'k' } } }));
    expect(saved.filters).toEqual(FILTERS);
    // The transform's defaults are filled in as stored.
    expect(saved.transform).toEqual({ file, timeoutMs: 1000, settings: { key: 'k' } });
    expect(value(await list(handlers)).destinations).toEqual([saved]);

    await core.close();
    core = await startCore({ dataDir: data });
    handlers = createHandlers(core);
    const [reopened] = value(await list(handlers)).destinations;
    expect(reopened).toMatchObject({ id: saved.id, filters: FILTERS, transform: { file, timeoutMs: 1000, settings: { key: 'k' } } });

    // Saved without them: they are gone (the view says none), and a destination that never had any says so too.
    const cleared = value(await save(handlers, { id: saved.id, name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/a' }] }));
    expect(cleared).toMatchObject({ filters: [], transform: null });
    expect(value(await list(handlers)).destinations[0]).toMatchObject({ filters: [], transform: null });
  });

  it('keeps them when the engine marks a URL gone and when the URL is re-enabled', async () => {
    core = await startCore();
    const handlers = createHandlers(core);
    const saved = value(await save(handlers, { name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/a' }], filters: FILTERS }));
    expect(core.destinations.markGone(saved.id, 'http://127.0.0.1:9/a', '410', 1)).toBe(true);
    expect(core.destinations.byId(saved.id)?.filters).toEqual(FILTERS);
    expect(core.destinations.reenable(saved.id, 'http://127.0.0.1:9/a')).toBe(true);
    expect(core.destinations.byId(saved.id)?.filters).toEqual(FILTERS);
  });

  it('refuses a transform file that is not there, or not named by its full path, on transform.file', async () => {
    core = await startCore();
    const handlers = createHandlers(core);
    const missing = path.join(dir(), 'nope.js');
    const refused = await save(handlers, { name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/a' }], transform: { file: missing } });
    const sentence = `there is no file ${missing}: write the transform there, or correct the path`;
    expect(refused).toEqual({
      ok: false,
      error: { code: 'invalid_destination', message: `transform.file: ${sentence}`, issues: [{ path: ['transform', 'file'], message: sentence }] },
    });
    const relative = await save(handlers, { name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/a' }], transform: { file: 'transforms/amp.js' } });
    expect(relative).toMatchObject({
      ok: false,
      error: { code: 'invalid_destination', issues: [{ path: ['transform', 'file'], message: "transforms/amp.js is not an absolute path: name the transform's file by its full path" }] },
    });
    const folder = await save(handlers, { name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/a' }], transform: { file: dir() } });
    expect(folder).toMatchObject({ ok: false, error: { issues: [{ path: ['transform', 'file'], message: expect.stringMatching(/is not a file: name the transform's JavaScript file$/) }] } });
    expect(core.destinations.list()).toEqual([]);
  });

  // The contract checks a request's schema before the operation runs: invalid_request, the issue on the filter.
  it('refuses a filter on status:, and a bad query, on the filter', async () => {
    core = await startCore();
    const handlers = createHandlers(core);
    const refused = await save(handlers, { name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/a' }], filters: [{ if: 'type:track', drop: true }, { if: 'status:failed', drop: true }] });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_request', issues: [{ path: ['filters', 1, 'if'], message: expect.stringMatching(/^status: is the outcome of the message's deliveries, not known before this one is made/) }] } });
    const bad = await save(handlers, { name: 'hooks', webhooks: [{ url: 'http://127.0.0.1:9/a' }], filters: [{ if: 'properties.price:>abc', drop: true }] });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_request', issues: [{ path: ['filters', 0, 'if'], message: 'properties.price:>abc: > compares with a number, e.g. properties.price:>10 (at character 1)' }] } });
  });
});

describe('the config file', () => {
  function writeConfig(folder: string, transform: string): string {
    const file = path.join(folder, 'sluice.config.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        sources: [{ name: 'web', writeKey: 'wk_web' }],
        destinations: [{ name: 'amp', sources: ['web'], webhooks: [{ url: 'http://127.0.0.1:9/amp' }], filters: FILTERS, transform: { file: transform, timeoutMs: 250 } }],
      }),
    );
    return file;
  }

  it('names the transform relative to itself, wherever Sluice starts; a reload gives the same destination', async () => {
    const folder = dir();
    const expected = transformFile(folder);
    const configFile = writeConfig(folder, 'transforms/amp.js');
    const config = loadConfigFile(configFile);
    expect(config.destinations[0]!.transform).toEqual({ file: expected, timeoutMs: 250, settings: {} });

    const data = dir();
    core = await startCore({ dataDir: data, config, configFile });
    const first = value(await list(createHandlers(core))).destinations;
    expect(first).toMatchObject([{ name: 'amp', filters: FILTERS, transform: { file: expected, timeoutMs: 250, settings: {} } }]);

    await core.close();
    core = await startCore({ dataDir: data, config: loadConfigFile(configFile), configFile });
    expect(value(await list(createHandlers(core))).destinations).toEqual(first);
  });

  it('refuses a transform file that is not there, naming the field and the path', () => {
    const folder = dir();
    const configFile = writeConfig(folder, 'transforms/missing.js');
    let error: unknown;
    try {
      loadConfigFile(configFile);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      `destinations[0].transform.file: there is no file transforms/missing.js (${path.join(folder, 'transforms', 'missing.js')}): write the transform there, or correct the path (relative to the config file)`,
    ]);
  });

  it('refuses a filter on status: with the field named', () => {
    const folder = dir();
    const file = path.join(folder, 'sluice.config.json');
    fs.writeFileSync(file, JSON.stringify({ destinations: [{ name: 'amp', webhooks: [{ url: 'http://127.0.0.1:9/amp' }], filters: [{ if: 'status:delivered', drop: true }] }] }));
    expect(() => loadConfigFile(file)).toThrow(/destinations\[0\]\.filters\[0\]\.if: status: is the outcome of the message's deliveries/);
  });

  it("sluice/testing's config object names it relative to the working directory", async () => {
    const folder = dir();
    const file = transformFile(folder);
    const relative = path.relative(process.cwd(), file);
    const destination = { name: 'amp', webhooks: [{ url: 'http://127.0.0.1:9/amp' }], filters: FILTERS, transform: { file: relative } };
    const data = dir();
    const sluice = await startSluice({ config: { destinations: [destination] }, dataDir: data });
    await sluice.close();
    // What the store kept of it (sluice/testing lists no destinations): the file made absolute.
    const db = new DatabaseSync(path.join(data, DATABASE_FILE), { readOnly: true });
    try {
      const { settings } = db.prepare("SELECT settings FROM destinations WHERE name = 'amp'").get() as { settings: string };
      expect(JSON.parse(settings)).toMatchObject({ filters: FILTERS, transform: { file } });
    } finally {
      db.close();
    }
    const missing = { ...destination, transform: { file: 'no/such/transform.js' } };
    await expect(startSluice({ config: { destinations: [missing] } })).rejects.toThrow(
      `startSluice({ config }): destinations[0].transform.file: there is no file no/such/transform.js (${path.resolve('no/such/transform.js')}): write the transform there, or correct the path (relative to the working directory)`,
    );
  });
});
