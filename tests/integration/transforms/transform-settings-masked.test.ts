// A transform's settings may hold the function's credentials (an upstream API key). The destination
// view — the inspector's list, and what the editor saves back — shows each credential-named setting
// masked; a save that sends the mask keeps the stored value, and the transform keeps running with
// the real one (checked at a real receiver). Real core, real SQLite, the real transform runtime.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { invoke } from '../../../electron/core/api/contract-handlers.ts';
import { SECRET_MASK } from '../../../shared/credential-headers.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

let core: TestCore | undefined;
let folder: string | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

const STAMP = `async function onTrack(event, { settings }) {
  return { ...event, properties: { ...event.properties, key: settings.apiKey, region: settings.region } };
}
`;

async function setup() {
  const r = await receiver();
  folder = tempDir('sluice-transform-secret-');
  const file = path.join(folder, 'stamp.js');
  fs.writeFileSync(file, STAMP);
  core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [
        {
          name: 'hooks',
          enabled: true,
          sources: ['web'],
          options: { bodyShape: 'full', concurrency: 2 },
          webhooks: [{ url: r.url, headers: {} }],
          transform: { file, settings: { apiKey: 'sk_live_secret', region: 'eu', emptyToken: '', amplitude: { apiKey: 'sk_nested', project: 7 }, headers: [{ Authorization: 'Bearer abc' }] }, timeoutMs: 1000 },
        },
      ],
    },
  });
  core.writeKey = 'wk_web';
  return { c: core, r };
}

const call = (c: TestCore, channel: string, request: unknown) => invoke(c.operations as never, channel, request) as Promise<any>;

describe('transform settings that are credentials', () => {
  it('are masked in the destination view; other settings and empty values are shown', async () => {
    const { c } = await setup();
    const listed = await call(c, 'destinations.list', {});
    const view = listed.value.destinations.find((d: any) => d.name === 'hooks');
    expect(view.transform.settings).toEqual({ apiKey: SECRET_MASK, region: 'eu', emptyToken: '', amplitude: { apiKey: SECRET_MASK, project: 7 }, headers: [{ Authorization: SECRET_MASK }] });
    for (const secret of ['sk_live_secret', 'sk_nested', 'Bearer abc']) expect(JSON.stringify(listed.value)).not.toContain(secret);
  });

  it('a save that sends the view back keeps the stored value, and the transform runs with it', async () => {
    const { c, r } = await setup();
    const listed = await call(c, 'destinations.list', {});
    const view = listed.value.destinations.find((d: any) => d.name === 'hooks');
    const saved = await call(c, 'destinations.save', {
      id: view.id,
      name: 'hooks', // declared in the config: its name stays (a rename is refused, declared_in_config)
      enabled: true,
      sources: ['web'],
      options: view.options,
      webhooks: view.webhooks,
      transform: view.transform, // as the inspector's editor sends it: masked
    });
    expect(saved.ok, JSON.stringify(saved)).toBe(true);
    expect(saved.value.transform.settings.apiKey).toBe(SECRET_MASK);
    expect(c.destinations.byId(view.id)!.transform!.settings).toEqual({ apiKey: 'sk_live_secret', region: 'eu', emptyToken: '', amplitude: { apiKey: 'sk_nested', project: 7 }, headers: [{ Authorization: 'Bearer abc' }] });

    await post(c, '/v1/track', { userId: 'u1', event: 'Signed Up' });
    const [received] = await r.waitFor(1);
    const body = JSON.parse(received!.body);
    expect(body.properties).toMatchObject({ key: 'sk_live_secret', region: 'eu' });
  });

  it('a new value replaces the stored one; the mask under a name nothing is stored under is refused on that field', async () => {
    const { c } = await setup();
    const id = c.destinations.byName('hooks')!.id;
    const base = { id, name: 'hooks', enabled: true, sources: ['web'], webhooks: c.destinations.byId(id)!.webhooks, transform: { ...c.destinations.byId(id)!.transform! } };

    const replaced = await call(c, 'destinations.save', { ...base, transform: { ...base.transform, settings: { apiKey: 'sk_new', region: 'us' } } });
    expect(replaced.ok, JSON.stringify(replaced)).toBe(true);
    expect(c.destinations.byId(id)!.transform!.settings).toEqual({ apiKey: 'sk_new', region: 'us' });

    const refused = await call(c, 'destinations.save', { ...base, transform: { ...base.transform, settings: { apiKey: SECRET_MASK, password: SECRET_MASK, amplitude: { apiKey: SECRET_MASK } } } });
    expect(refused.ok).toBe(false);
    expect(refused.error.code).toBe('invalid_destination');
    expect(refused.error.issues).toEqual([
      { path: ['transform', 'settings', 'password'], message: expect.stringContaining('stores none at “password”') },
      { path: ['transform', 'settings', 'amplitude', 'apiKey'], message: expect.stringContaining('stores none at “amplitude.apiKey”') },
    ]);
    expect(c.destinations.byId(id)!.transform!.settings).toEqual({ apiKey: 'sk_new', region: 'us' });
  });
});
