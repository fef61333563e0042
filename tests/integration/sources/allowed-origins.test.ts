// A source's allowedOrigins: a web page elsewhere cannot write to it with a known write key. Real
// server on 127.0.0.1:0, real SQLite, real HTTP requests carrying the Origin header browsers send.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { configFileSchema, describeIssues } from '../../../shared/settings.ts';
import { post, startCore, storedMessages, tempDir, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

const APP = 'https://app.example.com';
const EVIL = 'https://evil.example';

const cores: TestCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
});

async function stop(core: TestCore): Promise<void> {
  cores.splice(cores.indexOf(core), 1);
  await core.dispose();
}

const SOURCES = [
  { name: 'web', writeKey: 'wk_web', kind: 'web', allowedOrigins: [APP, 'http://localhost:3000'] },
  { name: 'open', writeKey: 'wk_open', kind: 'web' }, // absent: any origin, as before
  { name: 'servers', writeKey: 'wk_servers', allowedOrigins: [] }, // no browser at all
  { name: 'star', writeKey: 'wk_star', allowedOrigins: ['*'] },
];

async function start(sources: unknown[] = SOURCES, dataDir?: string): Promise<TestCore> {
  const core = await startCore({ config: configFileSchema.parse({ sources }), ...(dataDir ? { dataDir } : {}) });
  cores.push(core);
  return core;
}

/** What analytics.js sends from a page: the key as Basic auth, or (older snippets) in a text/plain body. */
function send(core: TestCore, writeKey: string, origin: string | undefined, how: 'header' | 'body' = 'header', event = 'Clicked') {
  const headers: Record<string, string> = origin === undefined ? {} : { origin };
  if (how === 'header') return post(core, '/v1/t', { userId: 'u_1', event }, { writeKey, contentType: 'text/plain', headers });
  return post(core, '/v1/batch', { writeKey, batch: [{ type: 'track', userId: 'u_1', event }] }, { writeKey: null, contentType: 'text/plain', headers });
}

function expectRefused(res: Awaited<ReturnType<typeof send>>, origin: string) {
  expect(res.status).toBe(403);
  expect(res.json).toEqual({ success: false, error: { code: 'origin_not_allowed', message: expect.stringContaining(origin) } });
  expect(res.json.error.message).toContain('allowedOrigins');
  // The page may read why it was refused.
  expect(res.headers['access-control-allow-origin']).toBe(origin);
}

describe('allowedOrigins', () => {
  it.each(['header', 'body'] as const)('with the key in the %s: a listed origin is stored, another is refused 403 and nothing of it is stored but the refusal', async (how) => {
    const core = await start();
    expect((await send(core, 'wk_web', APP, how, 'From app')).status).toBe(200);
    expect((await send(core, 'wk_web', 'http://localhost:3000', how, 'From localhost')).status).toBe(200);
    const refused = [EVIL, 'http://app.example.com', 'https://app.example.com:8443', 'https://app.example.com.evil.example', 'null'];
    for (const origin of refused) {
      expectRefused(await send(core, 'wk_web', origin, how, `From ${origin}`), origin);
    }
    await until(() => core.messages.list().length === 2 + refused.length);
    expect(storedMessages(core).map((m) => m.event)).toEqual(['From app', 'From localhost']);
    expect(core.messages.countByStatus()).toEqual({ accepted: 2, rejected: refused.length, duplicate: 0 });
    // Each refusal is an entry that says so (ingest/refused-requests.ts), with nothing of the page's body.
    const entries = storedMessages(core, 'rejected');
    expect(entries.map((m) => m.rejectCode)).toEqual(refused.map(() => 'origin_not_allowed'));
    for (const entry of entries) expect(entry.raw).not.toContain('From ');
  });

  it('leaves requests without an Origin (servers) alone, and sources without allowedOrigins (or with "*") open to any page', async () => {
    const core = await start();
    expect((await send(core, 'wk_web', undefined, 'header', 'Server, header key')).status).toBe(200);
    expect((await send(core, 'wk_web', undefined, 'body', 'Server, body key')).status).toBe(200);
    expect((await send(core, 'wk_servers', undefined, 'header', 'Server only')).status).toBe(200);
    expect((await send(core, 'wk_open', EVIL, 'header', 'Open, header')).status).toBe(200);
    expect((await send(core, 'wk_open', EVIL, 'body', 'Open, body')).status).toBe(200);
    expect((await send(core, 'wk_star', EVIL, 'body', 'Star')).status).toBe(200);
    // An empty list: no page may send, whatever its origin.
    expectRefused(await send(core, 'wk_servers', APP, 'header'), APP);
    expectRefused(await send(core, 'wk_servers', APP, 'body'), APP);
    expect(storedMessages(core).map((m) => m.event)).toEqual([
      'Server, header key', 'Server, body key', 'Server only', 'Open, header', 'Open, body', 'Star',
    ]);
  });

  it('refuses the settings analytics.js loads for a page from an origin the source does not list', async () => {
    const core = await start();
    const settings = (origin: string) => request(`${core.ingestUrl}/v1/projects/wk_web/settings`, { headers: { origin } });
    const ok = await settings(APP);
    expect(ok.statusCode).toBe(200);
    expect((await ok.body.json()) as any).toMatchObject({ integrations: { 'Segment.io': { apiKey: 'wk_web' } } });
    const refused = await settings(EVIL);
    expect(refused.statusCode).toBe(403);
    expect(((await refused.body.json()) as any).error.code).toBe('origin_not_allowed');
  });

  it('answers a preflight for an origin some source accepts, and refuses one no source accepts, without CORS headers', async () => {
    const preflight = (core: TestCore, origin: string) =>
      request(`${core.ingestUrl}/v1/t`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
      });
    const restricted = await start([
      { name: 'web', writeKey: 'wk_web', allowedOrigins: [APP] },
      { name: 'servers', writeKey: 'wk_servers', allowedOrigins: [] },
    ]);
    const allowed = await preflight(restricted, APP);
    await allowed.body.dump();
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(APP);
    expect(allowed.headers['access-control-allow-headers']).toBe('authorization,content-type');
    const refused = await preflight(restricted, EVIL);
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(((await refused.body.json()) as any).error).toEqual({ code: 'origin_not_allowed', message: expect.stringContaining(EVIL) });
    // With a source open to any page, every origin passes the preflight (its request is then checked).
    const open = await start([{ name: 'open', writeKey: 'wk_open' }]);
    const any = await preflight(open, EVIL);
    await any.body.dump();
    expect(any.statusCode).toBe(204);
    expect(any.headers['access-control-allow-origin']).toBe(EVIL);
  });

  it('is kept in the store across a restart without config, and follows the config at each start', async () => {
    const dataDir = tempDir();
    try {
      await stop(await start([{ name: 'web', writeKey: 'wk_web', allowedOrigins: [APP] }], dataDir));
      const noConfig = await startCore({ dataDir });
      cores.push(noConfig);
      expect(noConfig.sources.byName('web')!.allowedOrigins).toEqual([APP]);
      expectRefused(await send(noConfig, 'wk_web', EVIL, 'body'), EVIL);
      await stop(noConfig);
      // The config no longer limits the source: any page again.
      const reopened = await start([{ name: 'web', writeKey: 'wk_web' }], dataDir);
      expect(reopened.sources.byName('web')!.allowedOrigins).toBeNull();
      expect((await send(reopened, 'wk_web', EVIL, 'body')).status).toBe(200);
      await stop(reopened);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('validates origins in the config file, naming the field', () => {
    const problems = (allowedOrigins: unknown) => {
      const parsed = configFileSchema.safeParse({ sources: [{ name: 'web', writeKey: 'wk_web', allowedOrigins }] });
      return parsed.success ? [] : describeIssues(parsed.error);
    };
    expect(problems([APP, 'http://localhost:3000', '*'])).toEqual([]);
    expect(problems([])).toEqual([]);
    expect(problems([`${APP}/`])).toEqual([
      `sources[0].allowedOrigins[0]: "${APP}/" is not an origin as browsers send it; write ${APP} (no path, no trailing slash)`,
    ]);
    expect(problems([APP, 'https://App.Example.com:443'])).toEqual([
      `sources[0].allowedOrigins[1]: "https://App.Example.com:443" is not an origin as browsers send it; write ${APP} (no path, no trailing slash)`,
    ]);
    for (const bad of ['app.example.com', 'ftp://files.example.com', 'https://app.example.com/path']) {
      expect(problems([bad])).toHaveLength(1);
      expect(problems([bad])[0]).toMatch(/^sources\[0\]\.allowedOrigins\[0\]: ".*" is not an origin/);
    }
    expect(problems('https://app.example.com')[0]).toMatch(/^sources\[0\]\.allowedOrigins: /);
  });
});
