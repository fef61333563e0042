// Each test's own core and the UI server that serves its HTTP API, closed after the test: the UI server
// first (it answers for the core), then the core with its data folder.
import { request } from 'undici';
import { afterEach } from 'vitest';
import type { CoreOptions } from '../../electron/core/index.ts';
import { UiServer } from '../../electron/host/ui-server.ts';
import { startCore, type TestCore } from './core.ts';

/** Registers the closing; wrap each core and UI server a test starts: `core = closing.core(await startCore())`. */
export function closedAfterEach(): { core<T extends TestCore>(core: T): T; ui(ui: UiServer): UiServer } {
  const cores: TestCore[] = [];
  const uis: UiServer[] = [];
  afterEach(async () => {
    for (const ui of uis.splice(0)) await ui.close();
    for (const core of cores.splice(0)) await core.dispose();
  });
  return {
    core: (core) => (cores.push(core), core),
    ui: (ui) => (uis.push(ui), ui),
  };
}

/** A call of the UI server's HTTP API with its token: GET, or POST of `body` as JSON; the answer's status and parsed JSON. */
export function apiOf(ui: UiServer): <T = Record<string, unknown>>(path: string, body?: unknown) => Promise<{ status: number; json: T }> {
  return async (path, body) => {
    const res = await request(`${ui.apiUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${ui.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.statusCode, json: (await res.body.json()) as never };
  };
}

/**
 * A core (by default one web source, wk_web, no destination) and the UI server of its HTTP API, both closed
 * after the test by `closing`, with `api` to call it.
 */
export async function relayWithApi(
  closing: ReturnType<typeof closedAfterEach>,
  config: CoreOptions['config'] = { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] },
): Promise<{ core: TestCore; ui: UiServer; api: ReturnType<typeof apiOf> }> {
  const core = closing.core(await startCore({ config }));
  core.writeKey = core.sources.list()[0]!.writeKey;
  const ui = closing.ui(new UiServer({ core, host: '127.0.0.1', port: 0 }));
  await ui.listen();
  return { core, ui, api: apiOf(ui) };
}
