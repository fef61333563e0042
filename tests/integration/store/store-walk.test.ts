// The background check's reading of the store (electron/core/store/store-walk.ts), on real SQLite
// files: a store migrated like the app's, every index looked up by a search (never a scan, which would
// make the check quadratic), a table's rows read a slice at a time to the end and resumed from a key,
// and the three ways a store is damaged that it finds — a table page, an index page that does not
// parse, and an index that lacks a row's entry while its pages parse (named: SQLite's quick_check only
// counts the entries).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import { StoreWalk, type WalkPosition, type WalkSlice } from '../../../electron/core/store/store-walk.ts';
import { tempDir } from '../../helpers/core.ts';

const dirs: string[] = [];
const opened: DatabaseSync[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A migrated store with `count` messages (one source, every third with violations, a delivery each). */
function store(count: number): string {
  const dir = tempDir('sluice-walk-');
  dirs.push(dir);
  const db = openDatabase(dir);
  db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'web', 'wk', 'web', 0)`);
  db.exec(`INSERT INTO destinations (id, name, kind, enabled, settings, created_at, updated_at) VALUES (1, 'hooks', 'webhooks', 1, '{}', 0, 0)`);
  const message = db.prepare(`INSERT INTO messages (source_id, message_id, type, status, received_at, raw, violations) VALUES (1, ?, 'track', 'accepted', ?, ?, ?)`);
  const delivery = db.prepare(`INSERT INTO deliveries (message_id, destination_id, trigger, status, next_attempt_at, created_at, updated_at) VALUES (?, 1, 'automatic', 'pending', ?, 0, 0)`);
  db.exec('BEGIN');
  for (let i = 1; i <= count; i++) {
    const { lastInsertRowid } = message.run(`m-${i}`, i, JSON.stringify({ type: 'track', event: 'E', messageId: `m-${i}`, pad: 'x'.repeat(200 + (i % 700)) }), i % 3 === 0 ? '[]' : null);
    delivery.run(lastInsertRowid, i);
  }
  db.exec('COMMIT');
  db.close();
  return path.join(dir, 'sluice.db');
}

function open(file: string): DatabaseSync {
  const db = new DatabaseSync(file, { readOnly: true });
  opened.push(db);
  return db;
}

/** Walks the whole store from `from`, `rows` rows a slice; stops at the first finding. */
function walkAll(walk: StoreWalk, rows: number, from: WalkPosition | null = null): { slices: WalkSlice[]; finding: string | null } {
  const slices: WalkSlice[] = [];
  let position = from;
  for (;;) {
    const slice = walk.slice(position, rows);
    slices.push(slice);
    if (slice.finding !== null || slice.next === null) return { slices, finding: slice.finding };
    position = slice.next;
  }
}

function totalRows(file: string): number {
  const db = open(file);
  const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0").all() as { name: string }[];
  return tables.reduce((sum, { name }) => sum + Number((db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n), 0);
}

function pagesOf(file: string, where: string): number[] {
  const db = open(file);
  return (db.prepare(`SELECT pageno FROM dbstat WHERE ${where} ORDER BY path`).all() as { pageno: number }[]).map((row) => row.pageno);
}

function overwrite(file: string, pages: number[]): void {
  const fd = fs.openSync(file, 'r+');
  try {
    for (const page of pages) fs.writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, (page - 1) * 4096);
  } finally {
    fs.closeSync(fd);
  }
}

describe('the store walk', () => {
  it('looks every row up in every index of the schema by a search of that index, never a scan', () => {
    const file = store(10);
    const db = open(file);
    const walk = new StoreWalk(db);
    const probes = walk.tables().flatMap((table) => walk.probeSql(table).map((probe) => ({ table, ...probe })));
    const indexes = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'index'").all() as { name: string }[]).map((row) => row.name);
    // Every index but a WITHOUT ROWID table's primary key (the table's own b-tree, read row by row).
    const own = (db.prepare("SELECT il.name FROM pragma_table_list tl, pragma_index_list(tl.name) il WHERE tl.wr = 1 AND il.origin = 'pk'").all() as { name: string }[]).map(
      (row) => row.name,
    );
    expect(probes.map((probe) => probe.index).sort()).toEqual(indexes.filter((name) => !own.includes(name)).sort());
    for (const probe of probes) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${probe.sql}`).all() as { detail: string }[]).map((row) => row.detail);
      const search = new RegExp(`^SEARCH t USING (COVERING )?INDEX ${probe.index} \\(`);
      expect(plan.filter((line) => / t /.test(` ${line} `)), `${probe.table} / ${probe.index}: ${plan.join(' | ')}`).toEqual([expect.stringMatching(search)]);
    }
  });

  it('reads a sound store to its end a slice at a time, every row once, and goes on from a key', () => {
    const file = store(3000);
    const total = totalRows(file);
    const whole = walkAll(new StoreWalk(open(file)), 64);
    expect(whole.finding).toBeNull();
    expect(whole.slices.reduce((sum, slice) => sum + slice.rows, 0)).toBe(total);
    const messageSlices = whole.slices.filter((slice) => slice.next?.table === 'messages' && slice.next.after !== null);
    expect(messageSlices.length).toBeGreaterThan(3000 / 64 - 2); // sliced, not read at once

    // From the middle of the messages table, on a new connection (as after a restart): the rest, once.
    const middle = messageSlices[20]!.next!;
    const walk = new StoreWalk(open(file));
    const rest = walkAll(walk, 500, middle);
    const before = whole.slices.slice(0, whole.slices.indexOf(messageSlices[20]!) + 1).reduce((sum, slice) => sum + slice.rows, 0);
    expect(rest.slices.reduce((sum, slice) => sum + slice.rows, 0)).toBe(total - before);
  });

  it('names a damaged table page, and a damaged index page, with the rows it was reading', () => {
    const file = store(3000);
    const leaves = pagesOf(file, "name = 'messages' AND pagetype = 'leaf'");
    overwrite(file, [leaves[Math.floor(leaves.length / 2)]!]);
    expect(walkAll(new StoreWalk(open(file)), 200).finding).toMatch(/^table messages, reading after row \d+: database disk image is malformed$/);

    const other = store(3000);
    const indexLeaves = pagesOf(other, "name = 'messages_received' AND pagetype = 'leaf'");
    overwrite(other, [indexLeaves[Math.floor(indexLeaves.length / 2)]!]);
    expect(walkAll(new StoreWalk(open(other)), 200).finding).toMatch(/^index messages_received, looking up the rows of table messages after row \d+: database disk image is malformed$/);
  });

  it('finds a row missing from an index whose pages all parse, naming the row', () => {
    const file = store(2000);
    // messages_received made to point at an index of the first 1000 messages only (a copy's b-tree).
    const db = new DatabaseSync(file, { defensive: false }); // lets writable_schema edit sqlite_schema
    db.exec('CREATE TABLE half AS SELECT received_at FROM messages WHERE id <= 1000; CREATE INDEX half_received ON half (received_at)');
    const rootOf = (name: string) => (db.prepare('SELECT rootpage FROM sqlite_schema WHERE name = ?').get(name) as { rootpage: number }).rootpage;
    const [real, half] = [rootOf('messages_received'), rootOf('half_received')];
    db.exec('PRAGMA writable_schema = ON');
    db.prepare('UPDATE sqlite_schema SET rootpage = ? WHERE name = ?').run(half, 'messages_received');
    db.prepare('UPDATE sqlite_schema SET rootpage = ? WHERE name = ?').run(real, 'half_received');
    db.exec('PRAGMA writable_schema = OFF');
    db.close();
    // Its pages parse: SQLite only finds it by counting the entries.
    expect(open(file).prepare('PRAGMA quick_check(5)').all()).toContainEqual({ quick_check: 'wrong # of entries in index messages_received' });
    // The copy's rowids are 1..1000, as the first messages' are: their entries are found, message 1001's is not.
    expect(walkAll(new StoreWalk(open(file)), 300).finding).toBe('table messages: row 1001 missing from index messages_received');
  });
});
