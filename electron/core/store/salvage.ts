import fs from 'node:fs';
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { transaction } from './connection.ts';
import { profileCursorRewinder } from './profile-cursor.ts';
import { check, isDamage, isDiskFull, isWithoutRowid, orderOf, quote } from './integrity.ts';
import { MIGRATIONS, migrate } from './migrations.ts';
import { DatabaseSync as Database } from './sqlite.ts';
import { registerSqlFunctions } from './sql-functions.ts';
import { recountDeliveryHours } from './delivery-hours.ts';
import { recordsBodyShapes } from './delivery-bodies.ts';

/**
 * `sluice doctor --salvage`: copies every row that can still be read out of a damaged store into a
 * new one built by the same migrations, then puts the new file in the damaged one's place and keeps
 * the damaged file (with its -wal and -shm) beside it. The caller holds the data folder's lock.
 */

/** What was copied of one table. */
export interface TableSalvage {
  table: string;
  copied: number;
  /**
   * Rowid tables: ids in the table's range that could not be read (rows lost; an id the table never
   * had counts too, so this is at most the rows lost). WITHOUT ROWID tables: null when a damaged page
   * stopped the scan (the rows between the readable ends are lost, how many is unknown), else 0.
   */
  unreadable: number | null;
  /** Rows read but refused by the new store (a damaged page that read as rows that break a constraint). */
  refused: number;
  /** Rows taken out afterwards because what they belong to was lost (ON DELETE CASCADE). */
  removed: number;
  /** References cleared afterwards because what they point to was lost (ON DELETE SET NULL). */
  cleared: number;
  /** Rows after this id could not be reached (the table's last pages are damaged). */
  endUnreadableAfter?: number;
}

export interface SalvageReport {
  tables: TableSalvage[];
  /** Where the damaged file is now. */
  aside: string;
  /** The tracking plan view's counts were computed again from the messages kept. */
  recounted: boolean;
}

/** Ids read at a time; a range that fails is halved until single ids. */
const CHUNK = 1000;

/** A new store at `file`, in place of the damaged one; see the file's comment. */
export function salvage(file: string, now = new Date()): SalvageReport {
  const stamp = timestamp(now);
  const temporary = `${file}.salvage-${stamp}`;
  const aside = `${file}.damaged-${stamp}`;
  const old = new Database(file);
  let fresh: DatabaseSync | undefined;
  let report: SalvageReport;
  try {
    let version: number;
    try {
      version = Number((old.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
    } catch (error) {
      if (!isDamage(error)) throw error;
      throw new Error(`its first page (SQLite's header and list of tables) cannot be read (${(error as Error).message}), so nothing in it can be found; move the folder away to start empty`);
    }
    const latest = MIGRATIONS.at(-1)?.version ?? 0;
    if (version > latest) throw new Error(`the store was written by a newer Sluice (schema ${version}, this build knows ${latest}); salvage it with that Sluice's doctor`);
    let oldTables: Set<string>;
    try {
      oldTables = new Set((old.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name));
    } catch (error) {
      if (!isDamage(error)) throw error;
      throw new Error(`its list of tables (sqlite_schema) cannot be read (${(error as Error).message}), so no table can be found to copy; move the folder away to start empty`);
    }
    removeFiles(temporary);
    fs.closeSync(fs.openSync(temporary, 'wx', 0o600));
    // A file nobody else opens until it is whole: no WAL to grow as large as the store, no fsync at
    // each commit (one at the end). auto_vacuum before the first table, so that the new store can shrink.
    fresh = new Database(temporary);
    registerSqlFunctions(fresh); // the word index's trigger calls one when a row is deleted
    // Foreign keys off (node:sqlite turns them on): rows come in table by table; references are mended after.
    fresh.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA auto_vacuum = INCREMENTAL; PRAGMA foreign_keys = OFF');
    // The damaged store's own schema version first, so that the later migrations convert its rows.
    for (const migration of MIGRATIONS) {
      if (migration.version > version) break;
      transaction(fresh, () => {
        fresh!.exec(migration.sql);
        fresh!.exec(`PRAGMA user_version = ${migration.version}`);
      });
    }
    const tables = (fresh.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rootpage").all() as { name: string }[])
      .map((row) => row.name)
      // The search index is not copied: the new store indexes what it holds (store/search-index.ts).
      .filter((name) => oldTables.has(name) && !/^(messages_search|messages_text|search_index)/.test(name));
    const results = tables.map((table) => copyTable(old, fresh!, table));
    unlinkUnbuildableBodies(fresh);
    mendReferences(fresh, results);
    // The new store indexes its messages for search newest first, as a store from before the index.
    if (tables.includes('messages') && fresh.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'search_index'").get()) {
      fresh.exec('UPDATE search_index SET lo = (SELECT coalesce(max(id), 0) + 1 FROM messages), hi = (SELECT coalesce(max(id), 0) FROM messages)');
    }
    const messages = results.find((r) => r.table === 'messages');
    const counts = results.find((r) => r.table === 'event_counts');
    const recounted = lost(messages) || lost(counts);
    if (recounted && tables.includes('event_counts')) recount(fresh);
    // The newest messages lost (a torn write at the file's end): their ids are given again, and the
    // audiences' profiles must fold the messages that take them (store/profile-cursor.ts).
    if (lost(messages) && tables.includes('settings')) profileCursorRewinder(fresh)();
    // The overview's hours, always: since migration 26 no trigger counts a delivery copied in (the writer
    // counts those it makes), and the hours copied are the damaged store's, deliveries lost or not.
    if (tables.includes('delivery_hours') && tables.includes('deliveries')) recountDeliveryHours(fresh);
    migrate(fresh);
    const problems = [...check(fresh, 'quick_check', 1), ...fresh.prepare('PRAGMA foreign_key_check').all().map((row) => JSON.stringify(row))];
    if (problems.length > 0) throw new Error(`the new store did not check sound (${problems[0]}); the damaged store was left in place`);
    fresh.exec('PRAGMA journal_mode = WAL'); // as every store is
    fresh.close();
    fresh = undefined;
    const fd = fs.openSync(temporary, 'r+');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    old.close();
    report = { tables: results, aside, recounted };
  } catch (error) {
    fresh?.close();
    if (old.isOpen) old.close();
    removeFiles(temporary);
    throw error;
  }
  try {
    // The damaged file's WAL goes with it: beside a new file it would be read as that file's.
    for (const suffix of ['-wal', '-shm', '-journal']) moveIfThere(`${file}${suffix}`, `${aside}${suffix}`);
    fs.renameSync(file, aside);
    fs.renameSync(temporary, file);
  } catch (error) {
    throw new Error(
      `the new store ${temporary} is complete, but could not be put in place (${(error as Error).message}): ` +
        `move the damaged ${file} (and its -wal and -shm) aside and rename the new one to ${file} by hand`,
    );
  }
  return report;
}

function lost(result: TableSalvage | undefined): boolean {
  return result !== undefined && (result.unreadable !== 0 || result.refused > 0 || result.endUnreadableAfter !== undefined);
}

function copyTable(old: DatabaseSync, fresh: DatabaseSync, table: string): TableSalvage {
  const result: TableSalvage = { table, copied: 0, unreadable: 0, refused: 0, removed: 0, cleared: 0 };
  const freshColumns = new Set(columnsOf(fresh, table));
  const columns = columnsOf(old, table).filter((name) => freshColumns.has(name));
  const list = columns.map(quote).join(', ');
  const values = `(${list}) VALUES (${columns.map(() => '?').join(', ')})`;
  const insert = fresh.prepare(`INSERT INTO ${quote(table)} ${values}`);
  const keep = (row: SQLInputValue[]): boolean => {
    try {
      insert.run(...row);
      result.copied++;
      return true;
    } catch (error) {
      if (isDamage(error) || isDiskFull(error)) throw error; // the new store's own trouble
      result.refused++;
      return false;
    }
  };
  transaction(fresh, () => {
    if (isWithoutRowid(old, table)) copyByKey(old, table, list, keep, result, fresh.prepare(`INSERT OR IGNORE INTO ${quote(table)} ${values}`));
    else copyByRowid(old, table, list, keep, result);
  });
  return result;
}

/** A rowid table, in id ranges; a range that cannot be read is halved down to single ids. */
function copyByRowid(old: DatabaseSync, table: string, list: string, keep: (row: SQLInputValue[]) => boolean, result: TableSalvage): void {
  const select = old.prepare(`SELECT ${list} FROM ${quote(table)} WHERE rowid BETWEEN ? AND ? ORDER BY rowid`);
  // One id is a lookup: a range's read steps on past its last row, onto the next page, damaged or not.
  const one = old.prepare(`SELECT ${list} FROM ${quote(table)} WHERE rowid = ?`);
  for (const statement of [select, one]) {
    statement.setReadBigInts(true);
    statement.setReturnArrays(true);
  }
  const copyRange = (from: bigint, to: bigint): number => {
    let rows: SQLInputValue[][];
    try {
      rows = (from === to ? one.all(from) : select.all(from, to)) as unknown as SQLInputValue[][];
    } catch (error) {
      if (!isDamage(error)) throw error;
      if (from === to) {
        result.unreadable!++;
        return 0;
      }
      const middle = (from + to) / 2n;
      return copyRange(from, middle) + copyRange(middle + 1n, to);
    }
    for (const row of rows) keep(row);
    return rows.length;
  };
  const first = edge(old, table, 'ASC');
  const last = edge(old, table, 'DESC');
  if (first === undefined && last === undefined) return; // empty
  const low = typeof first === 'bigint' ? first : 1n;
  const end = typeof last === 'bigint' ? { high: last, known: true } : probeEnd(old, table, low);
  const step = BigInt(CHUNK);
  let from = low;
  for (; from <= end.high; from += step) copyRange(from, min(from + step - 1n, end.high));
  if (end.known) return;
  // The last pages cannot be reached from the end: read on while ranges still give rows.
  from = end.high + 1n;
  while (from < 2n ** 62n && copyRange(from, from + step - 1n) > 0) from += step;
  result.endUnreadableAfter = Number(from - 1n);
}

/** A table's first or last rowid; undefined when empty, 'damaged' when it cannot be read. */
function edge(old: DatabaseSync, table: string, direction: 'ASC' | 'DESC'): bigint | undefined | 'damaged' {
  try {
    const select = old.prepare(`SELECT rowid AS id FROM ${quote(table)} ORDER BY rowid ${direction} LIMIT 1`);
    select.setReadBigInts(true);
    return (select.get() as { id: bigint } | undefined)?.id;
  } catch (error) {
    if (isDamage(error)) return 'damaged';
    throw error;
  }
}

/**
 * Where to read up to when a table's last row cannot be read: looks further and further ahead for a
 * row; the first id past which the table is known to end (known), else the last row seen.
 */
function probeEnd(old: DatabaseSync, table: string, low: bigint): { high: bigint; known: boolean } {
  const next = old.prepare(`SELECT rowid AS id FROM ${quote(table)} WHERE rowid >= ? ORDER BY rowid LIMIT 1`);
  next.setReadBigInts(true);
  let known = low;
  let ahead = BigInt(CHUNK);
  while (known + ahead < 2n ** 62n) {
    let found: { id: bigint } | undefined;
    try {
      found = next.get(known + ahead) as { id: bigint } | undefined;
    } catch (error) {
      if (!isDamage(error)) throw error;
      ahead *= 2n;
      continue;
    }
    if (found === undefined) return { high: known + ahead, known: true };
    known = found.id;
    ahead = BigInt(CHUNK);
  }
  return { high: known, known: false };
}

/**
 * A WITHOUT ROWID table, in key order from the start until a damaged page stops the scan, then from
 * the end back to it (or to the rows already copied).
 */
function copyByKey(old: DatabaseSync, table: string, list: string, keep: (row: SQLInputValue[]) => boolean, result: TableSalvage, ignore: StatementSync): void {
  const order = orderOf(old, table);
  const scan = (direction: string) => {
    const select = old.prepare(`SELECT ${list} FROM ${quote(table)} ORDER BY ${direction}`);
    select.setReadBigInts(true);
    select.setReturnArrays(true);
    return select.iterate() as Iterator<SQLInputValue[]>;
  };
  if (readAll(scan(order), keep)) return;
  result.unreadable = null;
  readAll(scan(order.replaceAll(' ASC', ' DESC')), (row) => {
    if (Number(ignore.run(...row).changes) === 0) return false; // back at the rows the forward scan copied
    result.copied++;
    return true;
  });
}

/** Feeds rows to `take` until it says stop (false) or the table ends; false when a damaged page ended the scan. */
function readAll(rows: Iterator<SQLInputValue[]>, take: (row: SQLInputValue[]) => boolean): boolean {
  try {
    for (let next = rows.next(); !next.done; next = rows.next()) {
      if (!take(next.value)) {
        rows.return?.();
        return true;
      }
    }
    return true;
  } catch (error) {
    if (!isDamage(error)) throw error;
    return false;
  }
}

/**
 * Rows whose parent was lost: those the schema deletes with their parent (attempts of a lost
 * delivery) are removed, references the schema sets to NULL (a delivery's lost message) are cleared,
 * until nothing points at a row that is not there.
 */
/**
 * A body recorded by reference (store/delivery-bodies.ts) is built from its message and that message's
 * request. One whose message or request was lost goes with them — rather than be built again without
 * them, a body that was never sent. Before mendReferences, which unlinks the lost messages.
 */
function unlinkUnbuildableBodies(fresh: DatabaseSync): void {
  if (!recordsBodyShapes(fresh)) return;
  fresh.exec(`UPDATE deliveries SET body_shape = NULL WHERE body IS NULL AND body_shape IS NOT NULL AND NOT EXISTS (
    SELECT 1 FROM messages m WHERE m.id = deliveries.message_id
      AND (m.request_id IS NULL OR EXISTS (SELECT 1 FROM requests r WHERE r.id = m.request_id)))`);
}

function mendReferences(fresh: DatabaseSync, results: TableSalvage[]): void {
  for (let pass = 0; pass < 20; pass++) {
    let changed = 0;
    for (const result of results) {
      const keys = fresh.prepare(`PRAGMA foreign_key_list(${quote(result.table)})`).all() as { id: number; table: string; from: string; to: string | null; on_delete: string }[];
      for (const id of new Set(keys.map((key) => key.id))) {
        const parts = keys.filter((key) => key.id === id);
        const parent = parts[0]!.table;
        const child = quote(result.table);
        const present = parts.map((key) => `${child}.${quote(key.from)} IS NOT NULL`).join(' AND ');
        const match = parts.map((key) => `p.${key.to === null ? 'rowid' : quote(key.to)} = ${child}.${quote(key.from)}`).join(' AND ');
        const dangling = `${present} AND NOT EXISTS (SELECT 1 FROM ${quote(parent)} AS p WHERE ${match})`;
        if (parts[0]!.on_delete === 'SET NULL') {
          const n = Number(fresh.prepare(`UPDATE ${child} SET ${parts.map((key) => `${quote(key.from)} = NULL`).join(', ')} WHERE ${dangling}`).run().changes);
          result.cleared += n;
          changed += n;
        } else {
          const n = Number(fresh.prepare(`DELETE FROM ${child} WHERE ${dangling}`).run().changes);
          result.removed += n;
          result.copied -= n;
          changed += n;
        }
      }
    }
    if (changed === 0) return;
  }
}

/** The tracking plan view's counts again, from the messages kept (as migration 10 and its triggers count). */
function recount(fresh: DatabaseSync): void {
  const event = "CASE WHEN m.type = 'track' THEN coalesce(m.event, '') ELSE '' END";
  const counted = "m.status = 'accepted' AND m.origin = 'ingest' AND m.type IS NOT NULL";
  fresh.exec(`
    DELETE FROM event_counts;
    INSERT INTO event_counts (source_id, type, event, plan, n, last_at)
      SELECT m.source_id, m.type, ${event}, '', count(*), max(m.received_at) FROM messages AS m WHERE ${counted} GROUP BY 1, 2, 3;
    INSERT INTO event_counts (source_id, type, event, plan, n, last_at)
      SELECT m.source_id, m.type, ${event}, json_extract(v.value, '$.plan'), count(DISTINCT m.id), max(m.received_at)
      FROM messages AS m, json_each(coalesce(m.violations, '[]')) AS v
      WHERE ${counted} AND json_extract(v.value, '$.plan') IS NOT NULL GROUP BY 1, 2, 3, 4;
  `);
}

function columnsOf(db: DatabaseSync, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string }[]).map((column) => column.name);
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function moveIfThere(from: string, to: string): void {
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function removeFiles(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${file}${suffix}`, { force: true });
}

/** YYYYMMDD-HHMMSS, local time. */
function timestamp(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${two(date.getMonth() + 1)}${two(date.getDate())}-${two(date.getHours())}${two(date.getMinutes())}${two(date.getSeconds())}`;
}
