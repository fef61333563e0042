import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { readDamageMarker, removeDamageMarker } from './damage-marker.ts';

/**
 * Damaged stores and full disks: the start check, SQLite's findings, and the sentences that say what
 * is wrong and what to do about it (the start's refusal, ingestion's 503 and 507, `sluice doctor`).
 */

/** A store SQLite finds damaged: a sentence naming the file, what is wrong and the fix. */
export class StoreDamagedError extends Error {
  readonly file: string;
  readonly finding: string;

  constructor(file: string, finding: string) {
    super(damagedSentence(file, finding));
    this.name = 'StoreDamagedError';
    this.file = file;
    this.finding = finding;
  }
}

export function damagedSentence(file: string, finding: string): string {
  return (
    `the store ${file} is damaged (${finding}); stop Sluice and run "sluice doctor --data-dir ${path.dirname(file)} --salvage" ` +
    'to copy what is readable into a new store (the damaged file is kept aside), or move the folder away to start empty'
  );
}

export function diskFullSentence(dataDir: string): string {
  return (
    `the disk holding ${dataDir} is full: Sluice cannot store messages until there is room; free some space or lower ` +
    'the retention (Settings) — it stores again by itself once there is'
  );
}

const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_NOTADB = 26;
const DAMAGED_WORDS = /database disk image is malformed|file is not a database/i;
const FULL_WORDS = /database or disk is full/i;

/** SQLite's result code of an error node:sqlite threw (the primary code), if it has one. */
function resultCode(error: unknown): number | undefined {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === 'number' ? code & 0xff : undefined;
}

/** Whether SQLite says the file is damaged or not a database (SQLITE_CORRUPT, SQLITE_NOTADB). */
export function isDamage(error: unknown): boolean {
  const code = resultCode(error);
  if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB) return true;
  return DAMAGED_WORDS.test((error as Error | null)?.message ?? '');
}

/** Whether SQLite says the disk (or the file's page limit) is full (SQLITE_FULL). */
export function isDiskFull(error: unknown): boolean {
  return resultCode(error) === SQLITE_FULL || FULL_WORDS.test((error as Error | null)?.message ?? '');
}

/**
 * What a store error is, from its message alone (the writer thread sends its failures as text):
 * 'damaged', 'full', or null for anything else.
 */
export function storeFailureKind(message: string): 'damaged' | 'full' | null {
  if (DAMAGED_WORDS.test(message)) return 'damaged';
  if (FULL_WORDS.test(message)) return 'full';
  return null;
}

/**
 * The start check reads the whole file with `PRAGMA quick_check` up to this size (database + WAL),
 * after reading it once in order so that the OS has it cached (quick_check's own reads follow the
 * b-trees, one page at a time: cold, that is 5–10 times slower). Measured on the build machine,
 * cold cache, read + quick_check: 8 MB 35–41 ms, 16 MB 46–59 ms, 32 MB 77–148 ms, 64 MB 126–235 ms,
 * 128 MB 225–499 ms (quick_check alone, cold: 16 MB 320–425 ms, 1 GB 26 s). Above it (about
 * 50,000 messages), the bounded check: the header, sqlite_schema, the settings tables in full, and
 * every other table's first and last rows.
 */
export const QUICK_CHECK_MAX_BYTES = 32 * 1024 * 1024;

/** Tests lower the limit to reach the bounded check with a small store. */
export const startCheckLimits = { quickCheckMaxBytes: QUICK_CHECK_MAX_BYTES };

/** Tables whose damage stops Sluice from starting at all; small, checked in full at every start. */
const SETTINGS_TABLES = ['sources', 'destinations', 'destination_sources', 'settings', 'audiences'];

const HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Opens the store's file (`open`) and checks it: a damaged store is refused with StoreDamagedError
 * (the connection closed) instead of starting and failing request after request later. `sound`: the
 * caller has just written the file from an image found sound, so it is not read again.
 */
export function openChecked(file: string, open: () => DatabaseSync, { sound = false }: { sound?: boolean } = {}): DatabaseSync {
  if (sound) {
    // A file known sound (a copy of a new store's image, checked once when it was taken: database.ts).
    const db = open();
    checkedWhole.add(db);
    return db;
  }
  const header = headerFinding(file);
  if (header) throw new StoreDamagedError(file, header);
  let db: DatabaseSync;
  try {
    db = open();
  } catch (error) {
    if (isDamage(error)) throw new StoreDamagedError(file, (error as Error).message);
    throw error;
  }
  let finding: string | null;
  try {
    finding = startFinding(db, file);
  } catch (error) {
    db.close();
    throw error;
  }
  if (finding !== null) {
    db.close();
    throw new StoreDamagedError(file, finding);
  }
  return db;
}

/** Connections whose store the start check read whole and found sound (nothing left for the background check). */
const checkedWhole = new WeakSet<DatabaseSync>();

/** Whether the start check read all of this connection's store (a small one, or one noted damaged) and found it sound. */
export function wasCheckedWhole(db: DatabaseSync): boolean {
  return checkedWhole.has(db);
}

/**
 * The first thing the start check finds wrong with the store, or null. The whole store is checked
 * when it is small, or when damage was found while Sluice ran (damage-marker.ts): the note goes once
 * that check finds the store sound. A big store's middle is left to the background check
 * (store-check/), which begins a few seconds after start.
 */
export function startFinding(db: DatabaseSync, file: string): string | null {
  const bytes = fileBytes(file);
  const marked = readDamageMarker(file);
  const whole = (): string | null => {
    const finding = firstFinding(check(db, 'quick_check', 1), db);
    if (finding === null) checkedWhole.add(db);
    return finding;
  };
  try {
    if (marked !== null) {
      console.error(`sluice: the store was found damaged while Sluice ran (${marked.split(' ')[0]}); checking all of ${file} before starting (a store of a few GB takes minutes)…`);
      if (bytes < os.freemem() / 2) readThrough(file);
      const finding = whole();
      if (finding === null) removeDamageMarker(file);
      return finding;
    }
    if (bytes <= startCheckLimits.quickCheckMaxBytes) {
      readThrough(file);
      return whole();
    }
    // Virtual tables (the search index) are read through their shadow tables, which are listed too.
    const schema = db
      .prepare("SELECT type, name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")
      .all() as { name: string }[];
    const names = new Set(schema.map((row) => row.name));
    for (const table of SETTINGS_TABLES) {
      if (!names.has(table)) continue;
      const finding = firstFinding(check(db, 'quick_check', 1, table), db);
      if (finding !== null) return finding;
    }
    for (const { name } of schema) readEnds(db, name);
    return null;
  } catch (error) {
    if (isDamage(error)) return (error as Error).message;
    throw error;
  }
}

/** The database file's and its WAL's size in bytes (0 for a file not there). */
export function fileBytes(file: string): number {
  let total = 0;
  for (const name of [file, `${file}-wal`]) {
    try {
      total += fs.statSync(name).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return total;
}

/** What is wrong with the file's first 100 bytes (SQLite's header), or null; an empty file is a new store. */
function headerFinding(file: string): string | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const header = Buffer.alloc(100);
    const read = fs.readSync(fd, header, 0, 100, 0);
    if (read === 0) return null;
    if (read < 100 || !header.subarray(0, 16).equals(HEADER)) return 'the file does not start with SQLite\'s header: file is not a database';
    const pageSize = header.readUInt16BE(16) === 1 ? 65536 : header.readUInt16BE(16);
    if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) return `the header gives an impossible page size (${pageSize})`;
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads the file once, in order, so that the OS caches it before quick_check reads it page by page. */
export function readThrough(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(1 << 20);
    let position = 0;
    let read: number;
    while ((read = fs.readSync(fd, buffer, 0, buffer.length, position)) > 0) position += read;
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads a table's first and last rows (by rowid, or by primary key for a WITHOUT ROWID table). */
function readEnds(db: DatabaseSync, table: string): void {
  const order = orderOf(db, table);
  db.prepare(`SELECT * FROM ${quote(table)} ORDER BY ${order} LIMIT 1`).all();
  db.prepare(`SELECT * FROM ${quote(table)} ORDER BY ${order.replaceAll(/ ASC/g, ' DESC')} LIMIT 1`).all();
}

/** How a table's rows are stored in order: `rowid ASC`, or its primary key's columns. */
export function orderOf(db: DatabaseSync, table: string): string {
  if (!isWithoutRowid(db, table)) return 'rowid ASC';
  const columns = (db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string; pk: number }[])
    .filter((column) => column.pk > 0)
    .sort((a, b) => a.pk - b.pk);
  return columns.map((column) => `${quote(column.name)} ASC`).join(', ');
}

export function isWithoutRowid(db: DatabaseSync, table: string): boolean {
  const row = db.prepare('SELECT wr FROM pragma_table_list WHERE schema = ? AND name = ?').get('main', table) as { wr: number } | undefined;
  return row?.wr === 1;
}

/**
 * Runs `PRAGMA integrity_check` or `quick_check` (at most `limit` findings; of one table and its
 * indexes when given) and returns SQLite's findings, one a line; none when the store is sound.
 */
export function check(db: DatabaseSync, pragma: 'integrity_check' | 'quick_check', limit: number, table?: string): string[] {
  const argument = table === undefined ? String(limit) : quote(table);
  const rows = db.prepare(`PRAGMA ${pragma}(${argument})`).all() as Record<string, string>[];
  const lines = rows.flatMap((row) => String(Object.values(row)[0]).split('\n'));
  const findings = lines.filter((line) => line !== 'ok' && line !== '' && !/^\*\*\* in database \w+ \*\*\*$/.test(line));
  return table === undefined ? findings : findings.slice(0, limit);
}

/** The first finding, its b-tree named ("Tree 9 (index messages_dedupe) page 1186: ..."), or null. */
function firstFinding(findings: string[], db: DatabaseSync): string | null {
  const first = findings[0];
  return first === undefined ? null : nameTrees(first, treeNames(db));
}

/** The tables and indexes by root page, for SQLite's "Tree N" in its findings (empty when unreadable). */
export function treeNames(db: DatabaseSync): Map<number, string> {
  try {
    const rows = db.prepare('SELECT type, name, rootpage FROM sqlite_schema WHERE rootpage > 0').all() as { type: string; name: string; rootpage: number }[];
    return new Map(rows.map((row) => [Number(row.rootpage), `${row.type} ${row.name}`]));
  } catch {
    return new Map();
  }
}

export function nameTrees(finding: string, names: Map<number, string>): string {
  return finding.replace(/^Tree (\d+)/, (whole, root: string) => {
    const name = names.get(Number(root));
    return name === undefined ? whole : `${whole} (${name})`;
  });
}

export function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
