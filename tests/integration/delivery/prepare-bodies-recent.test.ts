// The writer thread builds queued deliveries' bodies ahead (delivery/prepare-bodies.ts), and reads and
// normalizes each message once for all its destinations (their requests come one after another); the
// messages of a request it has just stored it does not read at all (remember()). What one destination's
// body does to the message must never show in another's, a remembered message must give the bodies a
// fresh read gives, and a write that changes stored messages (forget()) must be seen by the next
// bodies. Real core, real SQLite file, the writer's own ingestion code.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { bodiesPreparer } from '../../../electron/core/delivery/prepare-bodies.ts';
import { buildBody } from '../../../electron/core/delivery/body.ts';
import { prepareRequest } from '../../../electron/core/ingest/prepare-request.ts';
import { connect } from '../../../electron/core/store/connection.ts';
import { databaseFile, openDatabase } from '../../../electron/core/store/database.ts';
import { deliveryHours } from '../../../electron/core/store/delivery-hours.ts';
import { MessagesRepo, normalizedMessage, type DeliveredPayload } from '../../../electron/core/store/messages-repo.ts';
import { requestStorer, storedPayload } from '../../../electron/core/store/request-writes.ts';
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

  it("a request's messages just stored: built from what the writer has in hand, as a fresh read builds them", () => {
    dir = tempDir();
    openDatabase(dir).close(); // every migration
    db = connect(databaseFile(dir), 'writer');
    db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'web', 'wk_web', 'server', 0);
      INSERT INTO destinations (id, name, kind, enabled, settings, created_at, updated_at) VALUES (1, 'hook', 'webhooks', 1, '{}', 0, 0);
      INSERT INTO destination_sources VALUES (1, 1);`);
    const body = {
      sentAt: '2026-11-30T10:00:00.000Z',
      context: { library: { name: 'analytics-node', version: '6.2.0' }, page: { path: '/a' } },
      batch: [
        { type: 'track', messageId: 'm-1', userId: 'u_1', event: 'Order Completed', properties: { revenue: 9.99 } },
        { type: 'identify', messageId: 'm-2', userId: 'u_2', traits: { email: 'a@example.com' } },
        { type: 'track', messageId: 'm-1', userId: 'u_1', event: 'Order Completed' }, // a duplicate: no delivery
        { type: 'track', messageId: 'm-3', userId: 'u_3' }, // rejected (no event): no delivery
        { type: 'track', messageId: 'm-4', userId: 'u_4', event: 'Muted', integrations: { All: false } }, // its webhook skipped
        // A lone surrogate (a messageId holding one is refused since 2026-12-01): the body keeps the raw text's escape.
        { type: 'track', messageId: 'm-5', userId: 'u_5', event: 'Odd \ud800 Event' },
      ],
    };
    const prepared = prepareRequest(
      { id: 1, body: Buffer.from(JSON.stringify(body)), sourceId: 1, endpoint: 'batch', singleType: null, receivedAt: Date.now(), ip: '127.0.0.1' },
      () => 1,
    );
    const hours = deliveryHours(db);
    db.exec('BEGIN IMMEDIATE');
    const committed = requestStorer(db, hours)(prepared, [1]);
    hours.write();
    db.exec('COMMIT');
    const ids = [...committed.ids];
    expect([...committed.statuses]).toEqual([0, 0, 2, 1, 0, 0]);
    expect(committed.due?.length).toBe(9); // m-1, m-2 and m-5, one delivery each

    // What the writer has in hand is the row payloads() reads, field for field.
    const read = new MessagesRepo(db).payloads(ids);
    for (const i of [0, 1, 4, 5]) {
      const { id: _id, ...row } = read.get(ids[i]!) as DeliveredPayload & { id: number };
      expect(storedPayload(prepared, prepared.messages[i]!)).toEqual(row);
    }

    const recipe: BodyRecipe = { bodyShape: 'full', sharedSecret: 'abc123' };
    const expected = fresh([ids[0]!, ids[1]!, ids[5]!], recipe);
    const prepare = bodiesPreparer(db);
    prepare.remember(prepared, committed);
    // The rows gone behind the preparer's back: only what it remembered can still be built.
    db.exec('DELETE FROM deliveries; DELETE FROM messages;');
    const built = prepare.prepare({ messageIds: ids, ...recipe });
    expect(built.bodies).toEqual([expected[0], expected[1], null, null, null, expected[2]]);
    expect(JSON.parse(built.bodies[5]!).event).toBe('Odd \ud800 Event'); // the raw text's escape, in hand as read back
    expect(JSON.parse(built.bodies[0]!)).toMatchObject({ messageId: 'm-1', sentAt: body.sentAt, context: { page: { path: '/a' } } });
  });
});
