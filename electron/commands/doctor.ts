/**
 * `sluice doctor`: checks a stopped Sluice's store in full (SQLite's integrity_check), and on request
 * salvages a damaged one into a new store (store/salvage.ts) or rewrites a sound one compactly
 * (VACUUM). It holds the data folder's lock while it works, so no Sluice starts on the store meanwhile.
 * The findings and the report go to stdout; what it is doing, to stderr.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { DatabaseSync } from 'node:sqlite';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { lockDataDir } from '../core/store/data-dir-lock.ts';
import { DataDirError } from '../core/store/data-dir-errors.ts';
import { removeDamageMarker } from '../core/store/damage-marker.ts';
import { removeProgress } from '../core/store-check/check-progress.ts';
import { databaseFile } from '../core/store/database.ts';
import { check, fileBytes, isDamage, isDiskFull, nameTrees, readThrough, treeNames } from '../core/store/integrity.ts';
import { salvage, type SalvageReport } from '../core/store/salvage.ts';
import { DatabaseSync as Database } from '../core/store/sqlite.ts';
import { InputError, UsageError } from './command-error.ts';

/** Findings printed; the rest are counted. */
const SHOWN = 20;
/** Findings integrity_check collects at most (it stops there). */
const MAX_FINDINGS = 10_000;

export async function doctor(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, salvage: { type: 'boolean' }, vacuum: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`doctor takes no file (got ${positionals.map((p) => JSON.stringify(p)).join(', ')}); name the data folder with --data-dir`);
  if (values['data-dir'] === '') throw new UsageError('--data-dir needs a folder');
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  const file = databaseFile(dataDir);
  if (!fs.existsSync(file)) throw new InputError(`there is no store in ${dataDir} (no ${path.basename(file)}); name the folder Sluice stores in with --data-dir`);
  const release = lock(dataDir);
  try {
    const bytes = fileBytes(file);
    process.stderr.write(`checking ${file} (${size(bytes)}): every page is read, a store of a few GB takes minutes…\n`);
    // Read in order first when the OS can keep it cached: the check's own reads then hit memory.
    if (bytes < os.freemem() / 2) readThrough(file);
    const { findings, complete, stoppedBy } = fullCheck(file);
    if (findings.length === 0) {
      // Damage noted while Sluice ran (store/damage-marker.ts) is not there (any more): the next start need not check it all.
      removeDamageMarker(file);
      removeProgress(file); // and the background check's round under way has nothing left to find
      process.stdout.write(`the store ${file} is sound\n`);
      if (values.salvage) process.stdout.write('nothing to salvage\n');
      if (values.vacuum) vacuum(file);
      return 0;
    }
    const how = complete ? '' : stoppedBy !== undefined ? ` before SQLite's check stopped (${stoppedBy})` : ' (SQLite stops counting there)';
    const listed = findings[0] === stoppedBy ? 'SQLite could not check it' : `${count(findings.length)} finding${findings.length === 1 ? '' : 's'}${how}`;
    process.stdout.write(`the store ${file} is damaged: ${listed}\n`);
    for (const finding of findings.slice(0, SHOWN)) process.stdout.write(`  ${finding}\n`);
    if (findings.length > SHOWN) process.stdout.write(`  … and ${count(findings.length - SHOWN)} more\n`);
    // A salvaged store is written compactly, with incremental auto-vacuum: --vacuum has nothing left to do.
    if (values.vacuum && !values.salvage) process.stdout.write('not vacuumed: VACUUM cannot rewrite a damaged store; salvage it first (--salvage)\n');
    if (!values.salvage) {
      process.stdout.write(`run "sluice doctor --data-dir ${dataDir} --salvage" to copy what is readable into a new store (the damaged file is kept aside), or move the folder away to start empty\n`);
      return 1;
    }
    process.stderr.write('salvaging: copying every readable row into a new store…\n');
    let report: SalvageReport;
    try {
      report = salvage(file);
    } catch (error) {
      // The store was found damaged (exit 1) and stays as it was.
      const why = isDiskFull(error)
        ? `the disk holding it is full (the new store needs up to ${size(fileBytes(file))}); free some space and run it again`
        : (error as Error).message;
      process.stderr.write(`sluice: could not salvage ${file}: ${why}\n`);
      return 1;
    }
    removeDamageMarker(file); // the damaged file is aside; the new store starts with the usual check
    removeProgress(file); // and the background check begins a new round on it
    printReport(file, report);
    return 0;
  } finally {
    release();
  }
}

/** The folder's lock, or a sentence saying who holds it. */
function lock(dataDir: string): () => void {
  try {
    return lockDataDir(dataDir);
  } catch (error) {
    const message = (error as Error).message;
    if (error instanceof DataDirError) throw new InputError(message);
    if (message.startsWith('another Sluice')) {
      throw new InputError(`${message.split(';')[0]}; stop it first: sluice doctor needs the store to itself`);
    }
    throw new InputError(`could not lock the data folder ${dataDir}: ${message}`);
  }
}

interface Findings {
  findings: string[];
  /** Whether the list is all SQLite would find; else it is the part found before an error stopped it. */
  complete: boolean;
  /** The error that stopped SQLite's check, if one did. */
  stoppedBy?: string;
}

/**
 * integrity_check's findings, their b-trees named. SQLite reports what it finds in the b-trees' pages
 * (at most N findings), then reads every row, and that read stops the whole check with "database disk
 * image is malformed" when a page is damaged: so the check is asked for few findings first and more
 * while it finds as many as asked; when one stops with that error, a smaller N that does not reach it
 * is found, so that the page findings are listed.
 */
function fullCheck(file: string): Findings {
  let db: DatabaseSync | undefined;
  try {
    db = new Database(file);
    const names = treeNames(db);
    const run = (limit: number): string[] | Error => {
      try {
        return check(db!, 'integrity_check', limit).map((finding) => nameTrees(finding, names));
      } catch (error) {
        if (isDamage(error)) return error as Error;
        throw error;
      }
    };
    let found: string[] = [];
    for (let limit = 32; ; limit = Math.min(limit * 4, MAX_FINDINGS)) {
      const result = run(limit);
      if (result instanceof Error) return stopped(found, run, found.length > 0 ? found.length : 0, limit, result.message);
      if (result.length < limit) return { findings: result, complete: true };
      if (limit === MAX_FINDINGS) return { findings: result, complete: false };
      found = result;
    }
  } catch (error) {
    if (isDamage(error)) return { findings: [(error as Error).message], complete: false, stoppedBy: (error as Error).message };
    throw new InputError(`could not check ${file}: ${(error as Error).message}`);
  } finally {
    db?.close();
  }
}

/** The longest list of findings between `low` (found) and `high` (stopped by `message`) that SQLite gives before it stops. */
function stopped(found: string[], run: (limit: number) => string[] | Error, low: number, high: number, message: string): Findings {
  let best = found;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const result = run(middle);
    if (result instanceof Error) high = middle;
    else {
      best = result;
      low = middle;
    }
  }
  return { findings: best.length > 0 ? best : [message], complete: false, stoppedBy: message };
}

/** VACUUM with auto_vacuum = INCREMENTAL, so that the file can shrink later as messages are pruned. */
function vacuum(file: string): void {
  const before = fileBytes(file);
  process.stderr.write(`vacuuming: rewriting ${file}, which needs up to ${size(before)} free on its disk…\n`);
  const db = new Database(file);
  try {
    db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
    db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
  } catch (error) {
    if (isDiskFull(error)) throw new InputError(`could not vacuum ${file}: the disk holding it is full (VACUUM writes a copy of the store); free ${size(before)} and run it again`);
    throw new InputError(`could not vacuum ${file}: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  process.stdout.write(`vacuumed: ${size(before)} before, ${size(fileBytes(file))} after (database and WAL)\n`);
}

function printReport(file: string, report: SalvageReport): void {
  const rows = report.tables.filter((t) => t.copied > 0 || t.unreadable !== 0 || t.refused > 0 || t.removed > 0 || t.cleared > 0);
  const lines = [`salvaged ${file} into a new store, now in its place:`];
  const width = Math.max(...rows.map((t) => t.table.length), 5);
  lines.push(`  ${'table'.padEnd(width)}  ${'copied'.padStart(10)}  lost`);
  for (const t of rows) {
    const lostWords: string[] = [];
    if (t.unreadable === null) lostWords.push('some rows (a damaged page stopped the scan; how many is unknown)');
    else if (t.unreadable > 0) lostWords.push(`${count(t.unreadable)} unreadable id${t.unreadable === 1 ? '' : 's'} (at most that many rows)`);
    if (t.endUnreadableAfter !== undefined) lostWords.push(`any rows after id ${t.endUnreadableAfter} (the table's last pages are damaged)`);
    if (t.refused > 0) lostWords.push(`${count(t.refused)} refused by the new store (damaged rows)`);
    if (t.removed > 0) lostWords.push(`${count(t.removed)} removed with the lost rows they belonged to`);
    if (t.cleared > 0) lostWords.push(`${count(t.cleared)} kept, their link to a lost row cleared`);
    lines.push(`  ${t.table.padEnd(width)}  ${count(t.copied).padStart(10)}  ${lostWords.join('; ') || '-'}`);
  }
  if (report.recounted) lines.push('The tracking plan counts were computed again from the messages kept.');
  lines.push(`The damaged file is kept as ${report.aside} (with its -wal and -shm, if it had them); delete it once you no longer need it.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function size(bytes: number): string {
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}
