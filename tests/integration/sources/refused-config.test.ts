// A config file the start refuses stores nothing of itself: its sources (and their write keys), its
// destinations and its audiences stay out of the store, and going back to the file before leaves the
// relay as it was. Real cores on one data folder, one after another.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const open: TestCore[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((core) => core.close()));
});

const BEFORE = {
  sources: [{ name: 'web', writeKey: 'wk_web' }],
  destinations: [{ name: 'hook', sources: ['web'], webhooks: [{ url: 'http://127.0.0.1:9/hook' }] }],
};

async function start(dataDir: string, config: unknown): Promise<TestCore> {
  const core = await startCore({ dataDir, config: parseConfig(JSON.stringify(config)), configFile: path.join(dataDir, 'sluice.json') });
  open.push(core);
  return core;
}

/** What the store holds of sources, destinations and audiences, by name. */
function names(core: TestCore) {
  return {
    sources: core.sources.list().map((s) => `${s.name}:${s.writeKey}`),
    destinations: core.destinations.list().map((d) => d.name),
    audiences: core.audiences.list().map((a) => a.name),
  };
}

describe('a config file the start refuses', () => {
  it('stores none of its sources or destinations when a tracking plan cannot be used', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir, BEFORE);
    const before = names(first);
    await first.close();

    const planFile = path.join(dataDir, 'plan.json');
    fs.writeFileSync(planFile, JSON.stringify({ events: { A: { type: 'object', properties: { x: { pattern: '([' } } } } }));
    const refused = {
      sources: [...BEFORE.sources, { name: 'app', writeKey: 'wk_app' }],
      destinations: [...BEFORE.destinations, { name: 'new-dest', sources: ['app'], webhooks: [{ url: 'http://127.0.0.1:9/new' }] }],
      trackingPlans: [{ name: 'broken', file: planFile }],
    };
    await expect(start(dataDir, refused)).rejects.toThrow(/trackingPlans\[0\] \("broken"\)/);

    // Back to the file before: the refused file's source and its key are not there.
    const again = await start(dataDir, BEFORE);
    expect(names(again)).toEqual(before);
    expect((await post(again, '/v1/track', { event: 'E', userId: 'u' }, { writeKey: 'wk_app' })).status).toBe(401);
    expect((await post(again, '/v1/track', { event: 'E', userId: 'u' }, { writeKey: 'wk_web' })).status).toBe(200);
  });

  it('stores nothing when one of its audiences would send a trait a stored audience sends', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir, BEFORE);
    const web = first.sources.byName('web')!;
    // Made in the inspector: not in the file.
    await first.audiences.save({ name: 'Paid Users', sourceId: web.id, rule: { conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'paid' }] } });
    const before = names(first);
    await first.close();

    const refused = {
      sources: [...BEFORE.sources, { name: 'app', writeKey: 'wk_app' }],
      destinations: [...BEFORE.destinations, { name: 'new-dest', sources: ['app'], webhooks: [{ url: 'http://127.0.0.1:9/new' }] }],
      audiences: [
        { name: 'Trial', source: 'app', rule: { conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'trial' }] } },
        { name: 'paid-users', source: 'web', rule: { conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'paid' }] } },
      ],
    };
    await expect(start(dataDir, refused)).rejects.toThrow(
      'audiences[1].name: the stored audience "Paid Users" already sends the trait paid_users for the source "web"',
    );
    const again = await start(dataDir, BEFORE);
    // Before the fix the first audience ("Trial") and the source "app" with its key were stored.
    expect(names(again)).toEqual(before);
    expect((await post(again, '/v1/track', { event: 'E', userId: 'u' }, { writeKey: 'wk_app' })).status).toBe(401);
  });

  it('accepts an audience the file moves onto the trait a stored one it also renames gave up', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir, {
      ...BEFORE,
      audiences: [{ name: 'Pro', source: 'web', rule: { conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] } }],
    });
    await first.close();
    // "Pro" stays by name and is given a trait of another name; a new audience on the trait "pro" is then
    // no clash — the check follows the file's audiences in order, as they are saved.
    const second = await start(dataDir, {
      ...BEFORE,
      sources: [...BEFORE.sources, { name: 'app', writeKey: 'wk_app' }],
      audiences: [
        { name: 'Pro', source: 'app', rule: { conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] } },
        { name: 'pro!', source: 'web', rule: { conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] } },
      ],
    });
    expect(second.audiences.list().map((a) => [a.name, second.sources.byId(a.sourceId)!.name, a.property])).toEqual([
      ['Pro', 'app', 'pro'],
      ['pro!', 'web', 'pro'],
    ]);
  });
});
