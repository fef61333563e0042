// Pruning removes the requests older than the oldest message left (retention/prune-writes.ts), and must
// never remove one a kept message still reads: its batch-level context, sentAt and loop chain are part of
// what the message says, and of every webhook body rebuilt from it (store/delivery-bodies.ts). A request
// that came through another Sluice and breaks a tracking plan that forwards its violations stores its
// Violation Generated events under a request of their own, made inside the violating request's unit:
// their rows sit between the violating request's messages, with a higher request id. Real relay, SQLite,
// HTTP, tracking plan; the destination of the violations is a closed port (their deliveries stay open).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DELETE_UNUSED_REQUESTS, pruneWrites } from '../../../electron/core/retention/prune-writes.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import { LOOP_HEADER } from '../../../shared/loop-guard.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { post, startCore, storedMessages, tempDir, type TestCore } from '../../helpers/core.ts';
import { closedPort } from '../../helpers/ports.ts';
import { scratchStores } from '../../helpers/scratch-store.ts';

const cores: TestCore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The ids of the requests the store holds, read beside the relay. */
function requestIds(dir: string): number[] {
  const db = new DatabaseSync(path.join(dir, DATABASE_FILE), { readOnly: true });
  try {
    return (db.prepare('SELECT id FROM requests ORDER BY id').all() as { id: number }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

const DAY = 86_400_000;

/** A relay whose clock the test moves, keeping 30 days. */
async function relay(dataDir: string, now: () => number): Promise<TestCore> {
  const core = await startCore({
    dataDir,
    clock: { now },
    config: configFileSchema.parse({
      sources: [{ name: 'web', writeKey: 'wk_web' }],
      destinations: [{ name: 'violations', kind: 'tracking-api', trackingApi: { url: `http://127.0.0.1:${await closedPort()}`, writeKey: 'wk_x', flushMs: 0 } }],
      trackingPlans: [{ name: 'shop', plan: { events: { Good: {} } }, unplanned: 'flag', forwardViolationsTo: 'violations' }],
      retention: { maxAgeDays: 30, maxMessages: null, maxBytes: null },
    }),
    scheduledPrunes: false,
  });
  core.writeKey = 'wk_web';
  cores.push(core);
  return core;
}

/** A batch through another Sluice with batch-level context: its first event is unplanned (one Violation Generated). */
const viaOther = (prefix: string, events: string[]) => ({
  context: { app: { name: 'shop', build: prefix } },
  sentAt: '2026-11-30T10:00:00.000Z',
  batch: events.map((event, i) => ({ type: 'track', event, userId: `${prefix}-u${i}`, messageId: `${prefix}-${i}` })),
});

describe('pruning keeps the requests of the messages it keeps', () => {
  it('a violating message pruned before its batch\'s others: they keep their request, context, sentAt and loop chain', async () => {
    const dir = tempDir();
    dirs.push(dir);
    let now = Date.UTC(2026, 0, 1);
    const core = await relay(dir, () => now);
    const sent = await post(core, '/v1/batch', viaOther('b1', ['Bad', 'Good', 'Good']), { headers: { [LOOP_HEADER]: 'upstream-sluice' } });
    expect(sent.status).toBe(200);
    // Stored in this order: b1-0 (the request), its Violation Generated (a request of its own, made after),
    // b1-1, b1-2 (the request again).
    const all = storedMessages(core, 'all');
    expect(all.map((m) => m.origin === 'plan' ? 'violation' : m.messageId)).toEqual(['b1-0', 'violation', 'b1-1', 'b1-2']);
    expect(all[1]!.requestId).toBeGreaterThan(all[0]!.requestId!);
    const before = all.slice(2).map((m) => m.message);
    expect(before[0]).toMatchObject({ context: { app: { name: 'shop', build: 'b1' } }, sentAt: '2026-11-30T10:00:00.000Z' });

    // 31 days on, b1-0 goes; the violation, b1-1 and b1-2 are pinned (the violation's delivery may be open
    // or not by then): the violation is now the oldest message left.
    const others = all.slice(1).map((m) => m.id);
    await core.operations['messages.pin']({ ids: others, pinned: true });
    now += 31 * DAY;
    expect(await core.pruner.run()).toMatchObject({ reason: 'maxAgeDays', messages: 1 });
    const left = storedMessages(core, 'all');
    expect(left.map((m) => m.messageId)).toEqual([all[1]!.messageId, 'b1-1', 'b1-2']);
    // b1-1 and b1-2 read as they did, their request and all: nothing they say was lost.
    expect(left.slice(1).map((m) => m.message)).toEqual(before);
    expect(left.slice(1).map((m) => m.via)).toEqual(['upstream-sluice', 'upstream-sluice']);
    expect(left[0]!.via).toBe('upstream-sluice'); // the Violation Generated event's own request is kept too
    expect(requestIds(dir)).toEqual([all[0]!.requestId, all[1]!.requestId]);

    // Unpinned, b1-1 and b1-2 go at the next prune, and their request with them. The violation goes too
    // if its delivery has failed by then (its 4 hours were over at its next attempt), else it stays with
    // its own request: either way, the requests left are exactly those of the messages left.
    await core.operations['messages.pin']({ ids: others, pinned: false });
    await post(core, '/v1/batch', viaOther('b2', ['Good']), { headers: { [LOOP_HEADER]: 'upstream-sluice' } });
    const second = await core.pruner.run();
    expect(second!.messages, JSON.stringify(second)).toBeGreaterThanOrEqual(2);
    const kept = storedMessages(core, 'all');
    expect(kept.map((m) => m.messageId).filter((id) => id?.startsWith('b'))).toEqual(['b2-0']);
    expect(requestIds(dir)).toEqual([...new Set(kept.map((m) => m.requestId!))].sort((x, y) => x - y));
    expect(requestIds(dir)).not.toContain(all[0]!.requestId);
    expect(kept.every((m) => m.via === 'upstream-sluice')).toBe(true);
  });
});

describe('the requests pruning keeps, in the store', () => {
  const scratch = scratchStores();
  /** A migrated store of its own, and its rows written as the writer writes them (request-writes.ts, audience-writer.ts). */
  function store() {
    const db = scratch('prune-requests');
    const insertRequest = db.prepare("INSERT INTO requests (source_id, endpoint, received_at, envelope) VALUES (1, ?, 0, '{\"via\":[\"x\"]}')");
    const insertMessage = db.prepare("INSERT INTO messages (request_id, source_id, type, status, origin, received_at, raw) VALUES (?, 1, 'identify', 'accepted', ?, 0, '{}')");
    const request = (endpoint: string) => Number(insertRequest.run(endpoint).lastInsertRowid);
    const message = (requestId: number | null, origin: string) => Number(insertMessage.run(requestId, origin).lastInsertRowid);
    const requests = () => (db.prepare('SELECT id FROM requests ORDER BY id').all() as { id: number }[]).map((r) => r.id);
    return { db, request, message, requests, prune: pruneWrites(db) };
  }

  it('an audience sync\'s identifies under two loop chains, interleaved: a chain\'s request stays while an identify uses it', () => {
    const { request, message, requests, prune } = store();
    const batch = request('batch');
    const a = message(batch, 'ingest');
    // One sync: a request per loop chain, made as the identifies need them.
    const chainX = request('audience');
    const chainY = request('audience');
    const i1 = message(chainX, 'audience');
    const i2 = message(chainY, 'audience');
    const i3 = message(chainX, 'audience');
    const later = request('batch');
    message(later, 'ingest');

    prune.remove([a, i1]); // i2 is the oldest left, under chain Y; i3 still uses chain X
    expect(requests()).toEqual([chainX, chainY, later]);
    // Chain Y's request is unused now, and stays while an older request is in use (a bound, not a count):
    // it goes with chain X's.
    prune.remove([i2]);
    expect(requests()).toEqual([chainX, chainY, later]);
    prune.remove([i3]);
    expect(requests()).toEqual([later]);
  });

  it('a window of 5,000 made messages without requests before a client\'s: no request is removed, not all of them', () => {
    const { db, request, message, requests, prune } = store();
    const old = request('batch');
    const first = message(old, 'ingest');
    db.exec('BEGIN');
    const identifies = Array.from({ length: 5_001 }, () => message(null, 'audience')); // a sync without loop chains
    db.exec('COMMIT');
    const batch = request('batch');
    message(batch, 'ingest');
    prune.remove([first, identifies[0]!]); // the client's message left is past the window of 5,000
    expect(requests()).toEqual([old, batch]); // old is unused, and stays until the window holds a client's message
    prune.remove(identifies.slice(1, 100));
    expect(requests()).toEqual([batch]);
  });

  it('finds the oldest request a made message uses through its index, not by reading the messages', () => {
    const db = scratch('prune-plan');
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${DELETE_UNUSED_REQUESTS}`).all() as { detail: string }[]).map((row) => row.detail).join('; ');
    expect(plan).toMatch(/SEARCH messages USING (COVERING )?INDEX messages_made_request/);
  });
});
