// Settings' storage figures (electron/core/store/storage-figures.ts): their values on a small store,
// estimates once counting would read too much, and — instead of timings — every statement they run on
// a large store held to index searches by its query plan.
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { EXACT_COUNT_BELOW, storageFigures } from '../../../electron/core/store/storage-figures.ts';
import { scratchStores } from '../../helpers/scratch-store.ts';

const scratch = scratchStores();

function dataDirOf(db: DatabaseSync): string {
  return path.dirname((db.prepare('PRAGMA database_list').get() as { file: string }).file);
}

/** Messages with the given ids (a recursive CTE: fast for hundreds of thousands), received at 1000 + id. */
function insertMessages(db: DatabaseSync, from: number, to: number, step = 1): void {
  db.exec(`
    WITH RECURSIVE ids(id) AS (SELECT ${from} UNION ALL SELECT id + ${step} FROM ids WHERE id + ${step} <= ${to})
    INSERT INTO messages (id, source_id, message_id, type, status, received_at, raw)
      SELECT id, 1, 'm' || id, 'track', 'accepted', 1000 + id, '{}' FROM ids`);
}

function insertDeliveries(db: DatabaseSync, messageIds: number[], attemptsEach: number): void {
  db.exec(`INSERT OR IGNORE INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (1, 'hooks', 1, '{}', 0, 0)`);
  const delivery = db.prepare(`INSERT INTO deliveries (message_id, destination_id, trigger, status, created_at, updated_at) VALUES (?, 1, 'automatic', 'delivered', 0, 0)`);
  const attempt = db.prepare(`INSERT INTO attempts (delivery_id, url, started_at, request_headers, outcome) VALUES (?, 'http://127.0.0.1/', 0, '{}', 'success')`);
  for (const id of messageIds) {
    const deliveryId = delivery.run(id).lastInsertRowid;
    for (let i = 0; i < attemptsEach; i++) attempt.run(deliveryId);
  }
}

/** The plans of every statement `storageFigures` prepares on `db`. */
function plansOfFigures(db: DatabaseSync): { sql: string; plan: string[] }[] {
  const prepared: string[] = [];
  const spy = new Proxy(db, {
    get(target, key) {
      if (key === 'prepare') return (sql: string) => (prepared.push(sql), target.prepare(sql));
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  storageFigures(spy, dataDirOf(db));
  return prepared.map((sql) => ({
    sql,
    plan: (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(sql.includes('?') ? [1, 2] : [])) as { detail: string }[]).map((row) => row.detail),
  }));
}

describe('storage figures', () => {
  it('counts a small store exactly and reads its files, free pages and oldest and newest messages', () => {
    const db = scratch('sluice-figures-');
    const dataDir = dataDirOf(db);
    expect(storageFigures(db, dataDir)).toEqual({
      dataDir,
      databaseFile: path.join(dataDir, DATABASE_FILE),
      messages: 0,
      deliveries: 0,
      attempts: 0,
      approximate: false,
      databaseBytes: fs.statSync(path.join(dataDir, DATABASE_FILE)).size,
      walBytes: fs.statSync(path.join(dataDir, `${DATABASE_FILE}-wal`)).size,
      freeBytes: expect.any(Number),
      oldestMessageAt: null,
      newestMessageAt: null,
    });

    insertMessages(db, 1, 3_000);
    insertDeliveries(db, [1, 2, 3], 2);
    // Free pages: a deletion of many rows leaves them in the file, on its free list.
    db.exec(`DELETE FROM messages WHERE id > 1000`);
    const freePages = Number((db.prepare('PRAGMA freelist_count').get() as { freelist_count: number }).freelist_count);
    expect(freePages).toBeGreaterThan(0);

    const figures = storageFigures(db, dataDir);
    expect(figures).toMatchObject({ messages: 1000, deliveries: 3, attempts: 6, approximate: false, oldestMessageAt: 1001, newestMessageAt: 2000 });
    expect(figures.freeBytes).toBe(freePages * Number((db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size));
    expect(figures.databaseBytes).toBe(fs.statSync(figures.databaseFile).size);
    expect(figures.walBytes).toBe(fs.statSync(`${figures.databaseFile}-wal`).size);
    expect(figures.walBytes).toBeGreaterThan(0); // the checkpointer is not running here: the rows are in the WAL
  });

  it('estimates a table whose id range is too long to count, from the range and the share of ids in use', () => {
    const db = scratch('sluice-figures-');
    // Every other id over 500,000: 250,000 messages, a range of 2.5 × EXACT_COUNT_BELOW.
    insertMessages(db, 1, 500_000, 2);
    expect(500_000).toBeGreaterThan(EXACT_COUNT_BELOW);
    let figures = storageFigures(db, dataDirOf(db));
    expect(figures).toMatchObject({ messages: 250_000, deliveries: 0, attempts: 0, approximate: true, oldestMessageAt: 1001, newestMessageAt: 500_999 });

    // A hole, as clearing one source leaves: 200,000 of them left. The estimate stays near.
    db.exec('DELETE FROM messages WHERE id BETWEEN 150001 AND 250000');
    figures = storageFigures(db, dataDirOf(db));
    expect(figures.approximate).toBe(true);
    expect(Math.abs(figures.messages - 200_000) / 200_000).toBeLessThan(0.15);

    // Pruned down to a short range again: counted exactly.
    db.exec('DELETE FROM messages WHERE id < 400000');
    expect(storageFigures(db, dataDirOf(db))).toMatchObject({ messages: 50_000, approximate: false, oldestMessageAt: 401_001 });
  });

  it('on a large store, runs index searches only: no statement reads a whole table or index', () => {
    const db = scratch('sluice-figures-');
    insertMessages(db, 1, 600_000, 2);
    // Deliveries and attempts with ids far apart, as after months of pruning: estimated too.
    insertDeliveries(db, [1], 0);
    db.exec(`
      WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < 600)
      INSERT INTO deliveries (id, message_id, destination_id, trigger, status, created_at, updated_at)
        SELECT k * 1000, k * 2 - 1, 1, 'automatic', 'delivered', 0, 0 FROM k;
      INSERT INTO attempts (id, delivery_id, url, started_at, request_headers, outcome)
        SELECT id, id, 'http://127.0.0.1/', 0, '{}', 'success' FROM deliveries WHERE id >= 1000`);
    const plans = plansOfFigures(db);
    expect(storageFigures(db, dataDirOf(db)).approximate).toBe(true);
    expect(plans.map((p) => p.sql).join('\n')).not.toMatch(/count\(\*\) AS n FROM \w+$/m); // no whole-table count

    for (const { sql, plan } of plans) {
      // A PRAGMA has no plan (it reads the file's header); every other statement is searches only.
      if (sql.startsWith('PRAGMA')) continue;
      expect(plan.length, sql).toBeGreaterThan(0);
      for (const step of plan) expect(step, sql).toMatch(/^(SEARCH \w+( USING (COVERING INDEX messages_received|INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)))?$|SCALAR SUBQUERY \d+|SCAN CONSTANT ROW)/);
    }
    // What each kind of statement does, by name.
    const all = plans.flatMap((p) => p.plan);
    expect(all).toContain('SEARCH messages USING COVERING INDEX messages_received'); // oldest, newest
    expect(all).toContain('SEARCH messages USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)'); // the estimate's windows
    expect(all).toContain('SEARCH attempts'); // min(id), max(id)
  });
});
