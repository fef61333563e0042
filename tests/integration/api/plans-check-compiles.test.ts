// POST /api/v1/plans/check (sluice mcp's check_event) compiles each plan version once: checks that
// alternate between sources' plans reuse what is compiled (ajv's work, on the main thread), and a plan
// file edited since is compiled once in its new version. A real core and UI server on loopback; the
// plan compiler is the real one, wrapped only to count its calls.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { request } from 'undici';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const compiled = vi.hoisted(() => [] as string[]);
vi.mock('../../../electron/core/plans/compile-plan.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../electron/core/plans/compile-plan.ts')>();
  return {
    ...real,
    compilePlan: (...args: Parameters<typeof real.compilePlan>) => {
      compiled.push(args[0]);
      return real.compilePlan(...args);
    },
  };
});

let core: TestCore | undefined;
let ui: UiServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await ui?.close();
  await core?.dispose();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const planOf = (type: string) => ({ events: { 'Order Completed': { type: 'object', properties: { price: { type } }, required: ['price'] } } });

async function api(route: string, body?: unknown) {
  const res = await request(`${ui!.apiUrl}${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${ui!.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, json: (await res.body.json()) as any };
}

it('checks alternating between two sources\' plans compile each plan once; an edited plan file is compiled once in its new version', async () => {
  dir = tempDir();
  const webFile = path.join(dir, 'web-plan.json');
  fs.writeFileSync(webFile, JSON.stringify(planOf('number')));
  const config = parseConfig(
    JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }],
      destinations: [],
      trackingPlans: [{ name: 'web-plan', sources: ['web'], file: webFile }, { name: 'ios-plan', sources: ['ios'], plan: planOf('string') }],
    }),
  );
  core = await startCore({ config });
  ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
  await ui.listen();
  const check = (source: string) => api('/plans/check', { message: { type: 'track', event: 'Order Completed', properties: { price: 12 } }, source });

  compiled.length = 0; // what start compiled to find the plans' errors is not counted
  for (const source of ['web', 'ios', 'web', 'ios', 'web', 'ios']) {
    const answer = await check(source);
    expect(answer.status).toBe(200);
    // Each source's own plan answers (the right one: a number is fine for web, not for ios).
    expect(answer.json).toMatchObject(source === 'web' ? { plans: ['web-plan'], violations: [] } : { plans: ['ios-plan'], violations: [{ type: 'Datatype-Mismatch', plan: 'ios-plan' }] });
  }
  expect(compiled.sort()).toEqual(['ios-plan', 'web-plan']);

  // The web plan's file changes: its new version is compiled once (at reload, and for the checks), the ios plan's is kept.
  const before = (await api('/plans')).json.plans.find((p: { name: string }) => p.name === 'web-plan').version;
  fs.writeFileSync(webFile, JSON.stringify(planOf('string')));
  const webVersion = async () => (await api('/plans')).json.plans.find((p: { name: string }) => p.name === 'web-plan').version as string;
  for (let i = 0; i < 100 && (await webVersion()) === before; i++) await new Promise((resolve) => setTimeout(resolve, 100));
  expect(await webVersion()).not.toBe(before);
  compiled.length = 0;
  for (const source of ['web', 'ios', 'web', 'ios']) {
    const answer = await check(source);
    expect(answer.json.violations).toMatchObject([{ type: 'Datatype-Mismatch', plan: `${source}-plan` }]); // the new web plan wants a string
  }
  expect(compiled).toEqual(['web-plan']);
});
