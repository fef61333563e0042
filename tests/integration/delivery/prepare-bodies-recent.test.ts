// The writer thread builds queued deliveries' bodies ahead (delivery/prepare-bodies.ts), and reads and
// normalizes each message once for all its destinations (their requests come one after another). What
// one destination's body does to the message must never show in another's, and a write that changes
// stored messages (forget()) must be seen by the next bodies. Real core, real SQLite file.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { bodiesPreparer } from '../../../electron/core/delivery/prepare-bodies.ts';
import { buildBody } from '../../../electron/core/delivery/body.ts';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { MessagesRepo, normalizedMessage } from '../../../electron/core/store/messages-repo.ts';
import type { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import type { BodyRecipe } from '../../../shared/webhook-body.ts';
import { post, startCore, tempDir, waitForStored } from '../../helpers/core.ts';

let db: DatabaseSync | undefined;
let dir: string | undefined;
afterEach(() => {
  db?.close();
  db = undefined;
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A store holding three messages sent through ingestion (with a batch envelope), and their ids. */
async function store(): Promise<number[]> {
  dir = tempDir();
  const core = await startCore({ dataDir: dir, config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
  core.writeKey = 'wk_web';
  const stored = waitForStored(core, 3);
  await post(core, '/v1/batch', {
    context: { library: { name: 'analytics-node', version: '6.2.0' } },
    batch: [
      { type: 'track', userId: 'u_1', event: 'Order Completed', properties: { revenue: 9.99, secret: 's1' }, context: { page: { path: '/a' } } },
      { type: 'identify', userId: 'u_2', traits: { email: 'a@example.com' } },
      { type: 'page', anonymousId: 'anon_3', name: 'Home', properties: { path: '/' } },
    ],
  });
  const ids = (await stored).map((m) => m.id);
  await core.dispose();
  db = openDatabase(dir);
  return ids;
}

/** The bodies as the builder makes them from a freshly read and normalized message (no reuse). */
function fresh(ids: number[], recipe: BodyRecipe): string[] {
  const payloads = new MessagesRepo(db!).payloads(ids);
  return ids.map((id) => buildBody(recipe, normalizedMessage(payloads.get(id)!)!).body);
}

describe('bodies built ahead for several destinations of the same messages', () => {
  it('are each what the builder makes from a fresh read, whatever was built for the other destinations before', async () => {
    const ids = await store();
    const prepare = bodiesPreparer(db!);
    const recipes: BodyRecipe[] = [
      { bodyShape: 'seed', sharedSecret: 'abc123' },
      { bodyShape: 'forward', sharedSecret: null },
      { bodyShape: 'full', sharedSecret: null },
      { bodyShape: 'forward', sharedSecret: null },
      { bodyShape: 'seed', sharedSecret: null },
    ];
    for (const recipe of recipes) {
      const prepared = prepare.prepare({ messageIds: ids, ...recipe });
      expect(prepared.bodies).toEqual(fresh(ids, recipe));
      expect(prepared.signatures).toEqual(ids.map((_, i) => (recipe.sharedSecret ? buildBody(recipe, prepared.bodies[i]!).signature : null)));
    }
  });

  it("a destination's field filter changes its own body only; the next destination's has the field", async () => {
    const ids = await store();
    const prepare = bodiesPreparer(db!);
    const recipe: BodyRecipe = { bodyShape: 'full', sharedSecret: null };
    const unfiltered = prepare.prepare({ messageIds: ids, ...recipe });
    const filtered = prepare.prepare({ messageIds: ids, ...recipe, filters: [{ if: '', blockFields: ['properties.secret'] }], sourceNames: [] });
    expect(JSON.parse(filtered.bodies[0]!).properties).toEqual({ revenue: 9.99 });
    expect(filtered.shapings?.[0]).toMatch(/secret/);
    const after = prepare.prepare({ messageIds: ids, ...recipe });
    expect(JSON.parse(after.bodies[0]!).properties).toEqual({ revenue: 9.99, secret: 's1' });
    expect(after.bodies).toEqual(unfiltered.bodies);
  });

  it('reads the messages afresh after forget() (the writer calls it after every write other than ingestion and results)', async () => {
    const ids = await store();
    const prepare = bodiesPreparer(db!);
    const recipe: BodyRecipe = { bodyShape: 'full', sharedSecret: null };
    expect(JSON.parse(prepare.prepare({ messageIds: ids, ...recipe }).bodies[0]!).event).toBe('Order Completed');
    // As a write would change it (the store's own writes go through the writer; this stands for one).
    const raw = JSON.parse((db!.prepare('SELECT raw FROM messages WHERE id = ?').get(ids[0]!) as { raw: string }).raw) as Record<string, unknown>;
    db!.prepare('UPDATE messages SET raw = ? WHERE id = ?').run(JSON.stringify({ ...raw, event: 'Order Refunded' }), ids[0]!);
    db!.prepare('DELETE FROM deliveries WHERE message_id = ?').run(ids[2]!);
    db!.prepare('DELETE FROM messages WHERE id = ?').run(ids[2]!);
    prepare.forget();
    const again = prepare.prepare({ messageIds: ids, ...recipe });
    expect(JSON.parse(again.bodies[0]!).event).toBe('Order Refunded');
    expect(again.bodies[2]).toBeNull(); // gone: no body, as for a purged message
  });
});
