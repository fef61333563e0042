/**
 * `sluice import FILE [--source S | --write-key K] [--url URL] [--data-dir D]`: sends messages again
 * through a running Sluice's ingestion endpoint — an export, batches, pages of the HTTP API, plain
 * messages, or a HAR file of Tracking API calls (core/transfer/import-parse.ts) — so they are stored,
 * checked and delivered as any client's. Through ingestion, not into the store: the relay's rules,
 * tracking plans and webhooks apply, and a relay may be running on the store meanwhile.
 *
 * Messages go in order, in batches of at most 500 messages and under 500 KB, one request at a time.
 * Exit code: 0 every message was accepted; 1 one was refused (other than one the export says was
 * rejected before) or a line could not be read; 2 the import could not run (usage, file, no relay).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { databaseFile } from '../core/store/database.ts';
import { InputError, UsageError } from './command-error.ts';
import { messageFile } from './message-file.ts';
import { checkInputFiles, STDIN_ARG, STDIN_NAME } from './ndjson.ts';
import { openStore, sourceId, sourceNames, writeKeyOf } from './read-store.ts';
import { BatchSender, ImportTally, TransferError, type Refusal } from '../core/transfer/batch-sender.ts';
import { IMPORT_SKIPPED, importRefusedAgain } from '../../shared/storage.ts';

const DEFAULT_URL = 'http://127.0.0.1:8787';
const PROGRESS_EVERY_MS = 2_000;
const LISTED = 10;

const OPTIONS = {
  source: { type: 'string' },
  'write-key': { type: 'string' },
  url: { type: 'string' },
  'data-dir': { type: 'string' },
} as const;

export async function importCommand(args: string[]): Promise<number> {
  try {
    return await runImport(args);
  } catch (error) {
    // The sender's refusals are the command's: a sentence, exit 2.
    throw error instanceof TransferError ? new InputError(error.message) : error;
  }
}

async function runImport(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'name the file to import (NDJSON or HAR; - reads stdin)' : `import takes one file (got ${positionals.length})`);
  const [file] = positionals as [string];
  for (const name of ['source', 'write-key', 'url', 'data-dir'] as const) if (values[name] === '') throw new UsageError(`--${name} needs a value`);
  if (values.source !== undefined && values['write-key'] !== undefined) throw new UsageError('give --source or --write-key, not both');
  const base = baseUrl(values.url ?? DEFAULT_URL);
  checkInputFiles([file]);
  const { writeKey, into } = resolveWriteKey(values.source, values['write-key'], values['data-dir'] ?? defaultDataDir());

  const sender = new BatchSender(base, writeKey, LISTED);
  await sender.checkListening();
  const name = file === STDIN_ARG ? STDIN_NAME : file;
  const totals = new ImportTally(sender, LISTED);
  const started = Date.now();
  let lastProgress = started;
  let lastWhere = name;
  for await (const parsed of messageFile(file, name)) {
    await totals.take(parsed);
    lastWhere = (parsed.send[0] ?? parsed.errors[0] ?? parsed.skipped[0])?.where.replace(/ (batch|messages)\[\d+\]$/, '') ?? lastWhere;
    // A long file says how far it has got; a short one says nothing but its summary.
    if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = Date.now();
      process.stderr.write(`sluice: importing: read up to ${lastWhere}, ${sender.sent.toLocaleString('en-US')} messages sent so far\n`);
    }
  }
  await sender.flush();
  report(name, base, into, sender, totals);
  return sender.refused + totals.unreadable > 0 ? 1 : 0;
}

/** The ingestion endpoint's base URL: what --url names, without a trailing /v1/batch or slash. */
function baseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--url must be the ingestion endpoint's URL, like ${DEFAULT_URL}; not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must be an http:// or https:// URL; not "${text}"`);
  return `${url.origin}${url.pathname.replace(/\/(v1(\/batch)?)?\/?$/, '')}`;
}

/** The write key to send with, and what to call the source in the summary. */
function resolveWriteKey(source: string | undefined, writeKey: string | undefined, dataDir: string): { writeKey: string; into: string } {
  if (writeKey !== undefined) return { writeKey, into: 'with the write key given' };
  const file = databaseFile(dataDir);
  if (!fs.existsSync(file)) {
    throw new InputError(`no Sluice store in ${dataDir} to look the source's write key up in (there is no ${path.basename(file)}): give --write-key, or the --data-dir of the running sluice serve`);
  }
  const { db } = openStore(dataDir);
  try {
    if (source !== undefined) return { writeKey: writeKeyOf(db, sourceId(db, source, dataDir)), into: `source ${JSON.stringify(source)}` };
    const sources = sourceNames(db);
    if (sources.length !== 1) {
      throw new UsageError(`name the source to import into with --source (the store in ${dataDir} has ${sources.map((s) => JSON.stringify(s.name)).join(', ') || 'none'}), or give --write-key`);
    }
    return { writeKey: writeKeyOf(db, sources[0]!.id), into: `source ${JSON.stringify(sources[0]!.name)}` };
  } finally {
    db.close();
  }
}

function report(name: string, base: string, into: string, sender: BatchSender, totals: ImportTally): void {
  const n = (count: number) => count.toLocaleString('en-US');
  const lines = [
    `imported ${name} into ${base} (${into}): ${n(sender.sent)} message${sender.sent === 1 ? '' : 's'} sent, ${n(sender.accepted)} accepted, ${n(sender.refused)} refused, ${n(totals.unreadable)} unreadable line${totals.unreadable === 1 ? '' : 's'}`,
  ];
  if (sender.refusedAgain > 0) lines.push(`  ${importRefusedAgain(n(sender.refusedAgain))}`);
  for (const [reason, count] of totals.skipped) lines.push(`  ${IMPORT_SKIPPED[reason](n(count), count === 1)}`);
  if (sender.refused > 0) lines.push('refused:', ...listed(sender.firstRefusals.map(refusalLine), sender.refused));
  if (totals.unreadable > 0) lines.push('unreadable:', ...listed(totals.firstErrors.map((e) => `${e.where}  ${e.error}`), totals.unreadable));
  process.stdout.write(`${lines.join('\n')}\n`);
  if (sender.sent === 0 && totals.unreadable === 0) process.stderr.write(`sluice: warning: ${name} holds no messages to send\n`);
}

/** The first lines, and how many more there were. */
function listed(first: string[], total: number): string[] {
  const shown = first.map((line) => `  ${line}`);
  return total > first.length ? [...shown, `  … and ${(total - first.length).toLocaleString('en-US')} more`] : shown;
}

function refusalLine({ item, code, message }: Refusal): string {
  const m = item.message as Record<string, unknown> | null;
  const isObject = typeof m === 'object' && m !== null && !Array.isArray(m);
  const type = isObject && typeof m.type === 'string' ? m.type.slice(0, 40) : 'message';
  const name = isObject ? (m.type === 'track' ? m.event : m.type === 'page' || m.type === 'screen' ? m.name : undefined) : undefined;
  const id = isObject && typeof m.messageId === 'string' ? ` (${m.messageId.slice(0, 80)})` : '';
  return `${item.where}  ${type}${typeof name === 'string' ? ` ${JSON.stringify(name.slice(0, 80))}` : ''}${id}  ${code}: ${message}`;
}
