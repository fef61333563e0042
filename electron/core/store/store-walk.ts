// The background check's reading of the store (store-check/ schedules it; this is the SQL). Every
// table is read row by row in key order, every column of every row (so every page of its b-tree and
// every overflow page is read, as SQLite reads them: a page that does not parse is SQLITE_CORRUPT), and
// each row is looked up in each of the table's indexes by its whole key, which reads every index page
// that holds an entry and finds an entry that is missing or wrong — what `PRAGMA integrity_check` does
// row by row. It goes a slice at a time, each slice one short read transaction, and a slice ends at a
// key: the walk resumes after that key, in a later slice or after a restart.
//
// Why not SQLite's own check in slices: `PRAGMA quick_check(T)` checks one table and its indexes in one
// statement, and the messages table is most of the store — a 1 GB store's would be one read transaction
// of ~20 s, during which the WAL cannot start over (it grows by everything ingested meanwhile) and the
// statement cannot be paused. A walk by key ranges is resumable and lets the WAL go between slices.
// What it leaves to `sluice doctor` (integrity_check): pages on the freelist, and pages counted twice or
// never (SQLite's page accounting needs the whole file in one pass). Tables it cannot walk by key (an
// index on an expression, a primary key in descending order; none of Sluice's) are checked with
// `PRAGMA quick_check(T)` in one slice.
import type { DatabaseSync, SQLInputValue, SQLOutputValue, StatementSync } from 'node:sqlite';
import { isDamage, quote } from './integrity.ts';

/** A key value as JSON keeps it: integers past 2^53 and blobs are tagged. */
export type KeyValue = number | string | null | { int: string } | { blob: string };

/** Where a walk is: the table being read (tables go in name order) and the last key read in it. */
export interface WalkPosition {
  table: string;
  /** The last key read (the rowid, or the primary key's columns); null: from the table's start. */
  after: KeyValue[] | null;
  /** A rowid table's last rowid when its reading began: rows added since wait for the next round. */
  until: KeyValue | null;
}

export interface WalkSlice {
  /** Where the next slice starts; null once every table was read. */
  next: WalkPosition | null;
  /** Rows read in this slice. */
  rows: number;
  /** Whether the slice finished a table. */
  tableDone: boolean;
  /** What is wrong, naming the table or index and where; null when the slice found nothing. */
  finding: string | null;
}

interface TableWalk {
  name: string;
  rowid: boolean;
  /** The key's columns, as the walk's row (`r`) names them: `r.rowid`, or the primary key's. */
  key: string[];
  /** Each index looked up, with the SQL that is true for a row whose entry is missing (`r` is the row). */
  probes: { index: string; missing: string }[];
  /** Every column's length as stored, summed: reading it loads every byte of the row. */
  touch: string;
  /** Why this table is checked with quick_check instead (null: it is walked). */
  whole: string | null;
}

const MIN_ROWID = -(2n ** 63n);

export class StoreWalk {
  readonly #db: DatabaseSync;
  readonly #walks = new Map<string, TableWalk>();
  readonly #statements = new Map<string, StatementSync>();
  #tables: string[] | null = null;

  /** `db`: a read-only connection of the walk's own (it runs transactions on it). */
  constructor(db: DatabaseSync) {
    this.#db = db;
    db.exec('PRAGMA cell_size_check = ON'); // each page's cells are checked as it is loaded
  }

  /** The tables a walk reads, in order: every table with a b-tree (a virtual table's shadow tables are tables). */
  tables(): string[] {
    this.#tables ??= (this.#db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0 ORDER BY name").all() as { name: string }[]).map(
      (row) => row.name,
    );
    return this.#tables;
  }

  /** The statement that looks a row up in `index` (for tests: each must be a SEARCH of the index, never a scan). */
  probeSql(table: string): { index: string; sql: string }[] {
    const walk = this.#walk(table);
    return walk.probes.map((probe) => ({ index: probe.index, sql: `SELECT ${probe.missing} FROM ${quote(table)} AS r` }));
  }

  /** Reads up to `rows` rows from `position` (null: the first table's start), in one read transaction. */
  slice(position: WalkPosition | null, rows: number): WalkSlice {
    const tables = this.tables();
    const table = position === null ? tables[0] : tables.find((name) => name >= position.table);
    if (table === undefined) return { next: null, rows: 0, tableDone: false, finding: null };
    // A table that is gone since (the walk kept its name across a restart): the next one, from its start.
    const from = position !== null && position.table === table ? position : { table, after: null, until: null };
    this.#db.exec('BEGIN');
    try {
      return this.#read(this.#walk(table), from, Math.max(1, rows));
    } catch (error) {
      if (!isDamage(error)) throw error;
      const where = from.after === null ? 'from its start' : `after ${describeKey(from.after)}`;
      return { next: from, rows: 0, tableDone: false, finding: `table ${table}, reading ${where}: ${(error as Error).message}` };
    } finally {
      // A read transaction: ending it lets the WAL start over. (A COMMIT after SQLite met a damaged
      // page may fail with the same error; nothing was written, so nothing is lost by a rollback.)
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
    }
  }

  #read(walk: TableWalk, from: WalkPosition, limit: number): WalkSlice {
    if (walk.whole !== null) {
      const rows = this.#db.prepare(`PRAGMA quick_check(${quote(walk.name)})`).all() as Record<string, string>[];
      const finding = rows.map((row) => String(Object.values(row)[0])).find((line) => line !== 'ok');
      return { next: this.#after(walk.name), rows: 0, tableDone: true, finding: finding === undefined ? null : `table ${walk.name} (${walk.whole}): ${finding}` };
    }
    let until = from.until;
    if (walk.rowid && until === null) {
      const last = this.#statement(`SELECT max(rowid) FROM ${quote(walk.name)}`).get() as unknown as SQLOutputValue[];
      until = toKey(last[0] ?? MIN_ROWID);
    }
    const after = from.after;
    // The slice's last key: the limit-th row's, or the table's end (its last rowid when the round reached it).
    const boundRange = this.#range(walk, after, walk.rowid ? [until!] : null);
    const bound = this.#statement(`SELECT ${walk.key.join(', ')} FROM ${quote(walk.name)} AS r ${boundRange.where} ORDER BY ${walk.key.join(', ')} LIMIT 1 OFFSET ?`).get(
      ...boundRange.params,
      limit - 1,
    ) as unknown as SQLOutputValue[] | undefined;
    const last = bound ? bound.map(toKey) : walk.rowid ? [until!] : null;
    const range = this.#range(walk, after, last);
    const misses = walk.probes.map((probe) => `sum(${probe.missing})`);
    let row: SQLOutputValue[];
    try {
      row = this.#statement(`SELECT count(*), total(${walk.touch}) ${misses.map((m) => `, ${m}`).join('')} FROM ${quote(walk.name)} AS r ${range.where}`).get(
        ...range.params,
      ) as unknown as SQLOutputValue[];
    } catch (error) {
      if (!isDamage(error)) throw error;
      return { next: from, rows: 0, tableDone: false, finding: this.#locate(walk, from, range, error as Error) };
    }
    const read = Number(row[0]);
    const missed = walk.probes.findIndex((_, i) => Number(row[2 + i] ?? 0) > 0);
    if (missed >= 0) {
      const probe = walk.probes[missed]!;
      const first = this.#statement(`SELECT ${walk.key.join(', ')} FROM ${quote(walk.name)} AS r ${range.where} AND ${probe.missing} ORDER BY ${walk.key.join(', ')} LIMIT 1`).get(
        ...range.params,
      ) as unknown as SQLOutputValue[];
      return { next: from, rows: read, tableDone: false, finding: `table ${walk.name}: ${describeKey(first.map(toKey))} missing from index ${probe.index}` };
    }
    if (!bound) return { next: this.#after(walk.name), rows: read, tableDone: true, finding: null };
    return { next: { table: walk.name, after: last, until }, rows: read, tableDone: false, finding: null };
  }

  /**
   * Which b-tree a damaged slice ran into: the table itself, or which of its indexes (each read again
   * alone over the slice's rows).
   */
  #locate(walk: TableWalk, from: WalkPosition, range: { where: string; params: SQLInputValue[] }, error: Error): string {
    const rows = from.after === null ? 'from its start' : `after ${describeKey(from.after)}`;
    const fails = (sql: string) => {
      try {
        this.#db.prepare(sql).get(...range.params);
        return false;
      } catch (again) {
        if (isDamage(again)) return true;
        throw again;
      }
    };
    if (!fails(`SELECT count(*), total(${walk.touch}) FROM ${quote(walk.name)} AS r ${range.where}`)) {
      const index = walk.probes.find((probe) => fails(`SELECT sum(${probe.missing}) FROM ${quote(walk.name)} AS r ${range.where}`));
      if (index) return `index ${index.index}, looking up the rows of table ${walk.name} ${rows}: ${error.message}`;
    }
    return `table ${walk.name}, reading ${rows}: ${error.message}`;
  }

  /** The WHERE clause of the keys after `after` (all when null) up to `upTo` included (no end when null). */
  #range(walk: TableWalk, after: KeyValue[] | null, upTo: KeyValue[] | null): { where: string; params: SQLInputValue[] } {
    const key = `(${walk.key.join(', ')})`;
    const marks = `(${walk.key.map(() => '?').join(', ')})`;
    const terms = ['1'];
    const params: SQLInputValue[] = [];
    if (after !== null) {
      terms.push(`${key} > ${marks}`);
      params.push(...after.map(fromKey));
    }
    if (upTo !== null) {
      terms.push(`${key} <= ${marks}`);
      params.push(...upTo.map(fromKey));
    }
    return { where: `WHERE ${terms.join(' AND ')}`, params };
  }

  /** The first table after `name`, from its start; null after the last. */
  #after(name: string): WalkPosition | null {
    const later = this.tables().find((table) => table > name);
    return later === undefined ? null : { table: later, after: null, until: null };
  }

  #statement(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      statement.setReturnArrays(true);
      statement.setReadBigInts(true);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #walk(table: string): TableWalk {
    let walk = this.#walks.get(table);
    if (!walk) this.#walks.set(table, (walk = this.#plan(table)));
    return walk;
  }

  #plan(table: string): TableWalk {
    const db = this.#db;
    const columns = (db.prepare('SELECT name, pk FROM pragma_table_info(?) ORDER BY cid').all(table) as { name: string; pk: number }[]).map((c) => ({
      name: c.name,
      pk: Number(c.pk),
    }));
    const rowid = (db.prepare('SELECT wr FROM pragma_table_list WHERE schema = ? AND name = ?').get('main', table) as { wr: number }).wr === 0;
    const indexes = db.prepare('SELECT name, origin, partial FROM pragma_index_list(?)').all(table) as { name: string; origin: string; partial: number }[];
    const key = rowid
      ? ['r.rowid']
      : columns
          .filter((c) => c.pk > 0)
          .sort((a, b) => a.pk - b.pk)
          .map((c) => `r.${quote(c.name)}`);
    const probes: TableWalk['probes'] = [];
    let whole: string | null = null;
    for (const index of indexes) {
      if (index.origin === 'pk' && !rowid) {
        const info = db.prepare('SELECT desc, coll FROM pragma_index_xinfo(?) WHERE key = 1').all(index.name) as { desc: number; coll: string }[];
        if (info.some((column) => column.desc || column.coll.toUpperCase() !== 'BINARY')) whole = 'its primary key is not in ascending binary order';
        continue; // the table's own b-tree
      }
      const info = db.prepare('SELECT cid, coll FROM pragma_index_xinfo(?) ORDER BY seqno').all(index.name) as { cid: number; coll: string }[];
      if (info.some((column) => column.cid === -2)) {
        whole = `index ${index.name} is on an expression`;
        continue;
      }
      const partial = index.partial ? partialWhere(db, index.name) : null;
      // The row's entry, found by its whole key (its columns, then the rowid or the primary key): a
      // search of the index, whose path reads the pages that hold it. Inside, unqualified names are the
      // index's table (`t`), as the partial index's WHERE clause names them.
      const terms = info.map((column) => {
        const name = column.cid === -1 ? 'rowid' : quote(columns[column.cid]!.name);
        return `t.${name} COLLATE ${quote(column.coll)} IS r.${name}`;
      });
      const search = `NOT EXISTS (SELECT 1 FROM ${quote(table)} AS t INDEXED BY ${quote(index.name)} WHERE ${partial !== null ? `(${partial}) AND ` : ''}${terms.join(' AND ')})`;
      // Outside, unqualified names are the row's (`r`): a partial index has entries only where its WHERE is true.
      probes.push({ index: index.name, missing: partial !== null ? `(CASE WHEN (${partial}) THEN ${search} ELSE 0 END)` : search });
    }
    const touch = columns.map((c) => `coalesce(length(CAST(r.${quote(c.name)} AS BLOB)), 0)`).join(' + ');
    return { name: table, rowid, key, probes, touch, whole };
  }
}

/** A partial index's WHERE clause, from its CREATE INDEX statement (after the parenthesis that closes its columns). */
function partialWhere(db: DatabaseSync, index: string): string | null {
  const sql = (db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?").get(index) as { sql: string | null } | undefined)?.sql;
  if (!sql) return null;
  let depth = 0;
  let quoteChar: string | null = null;
  for (let i = sql.indexOf('('); i >= 0 && i < sql.length; i++) {
    const c = sql[i]!;
    if (quoteChar !== null) {
      if (c === quoteChar) quoteChar = null;
    } else if (c === "'" || c === '"' || c === '`' || c === '[') quoteChar = c === '[' ? ']' : c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) {
      const where = /^\s*WHERE\s+([\s\S]+)$/i.exec(sql.slice(i + 1));
      return where ? where[1]!.trim() : null;
    }
  }
  return null;
}

export function toKey(value: SQLOutputValue): KeyValue {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : { int: value.toString() };
  if (value instanceof Uint8Array) return { blob: Buffer.from(value).toString('base64') };
  return value;
}

export function fromKey(value: KeyValue): SQLInputValue {
  if (value === null || typeof value !== 'object') return value;
  return 'int' in value ? BigInt(value.int) : new Uint8Array(Buffer.from(value.blob, 'base64'));
}

function describeKey(key: KeyValue[]): string {
  const shown = key.map((value) => (value !== null && typeof value === 'object' ? ('int' in value ? value.int : `x'${Buffer.from(value.blob, 'base64').toString('hex')}'`) : JSON.stringify(value)));
  return shown.length === 1 ? `row ${shown[0]}` : `row (${shown.join(', ')})`;
}
