/**
 * `sluice export [--data-dir D] [--out FILE [--force]] [--source S] [--since T] [--until T] [--event E]
 * [--status S] [--har [--destination NAME]]`: a store's messages as NDJSON, one per line
 * (core/transfer/export-lines.ts), or the requests Sluice made (webhook attempts, forwarded requests) as a HAR 1.2 document (core/transfer/har.ts).
 * The store is opened read-only, so a relay may be serving from it meanwhile; the export ends at the
 * newest message (or attempt) when it starts. Data goes to stdout or --out; one summary line to stderr.
 *
 * Exit code: 0 exported (nothing matching is no failure); 2 the export could not run (usage, store, file).
 */
import fs from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { MESSAGE_STATUSES, type MessageStatus } from '../../shared/message-rules.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { databaseFile } from '../core/store/database.ts';
import { exportLineText, exportPages, type ExportFilter } from '../core/transfer/export-lines.ts';
import { ndjsonLine } from '../core/transfer/json-lines.ts';
import { destinationByName, HAR_TAIL, harHead, harPages, type HarFilter } from '../core/transfer/har.ts';
import { parseWhen, WHEN_FORMS } from '../core/transfer/when.ts';
import { InputError, storeFailureInput, UsageError } from './command-error.ts';
import { LineWriter } from './ndjson.ts';
import { openStore, sourceId } from './read-store.ts';

const OPTIONS = {
  'data-dir': { type: 'string' },
  out: { type: 'string' },
  force: { type: 'boolean' },
  source: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  event: { type: 'string' },
  status: { type: 'string' },
  har: { type: 'boolean' },
  destination: { type: 'string' },
} as const;

/** Where the lines go: stdout (LineWriter) or a file. */
interface Out {
  line(text: string): Promise<void>;
  flush(): Promise<void>;
}

export async function exportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length > 0) throw new UsageError(`export reads the store and takes no file (got ${positionals.map((p) => JSON.stringify(p)).join(', ')}); write to a file with --out FILE`);
  for (const name of ['out', 'source', 'event', 'destination', 'data-dir'] as const) {
    if (values[name] === '') throw new UsageError(`--${name} needs a value`);
  }
  if (values.destination !== undefined && !values.har) throw new UsageError('--destination picks webhook attempts: give it with --har');
  const status = values.status;
  if (status !== undefined && !(MESSAGE_STATUSES as readonly string[]).includes(status)) {
    throw new UsageError(`--status must be ${MESSAGE_STATUSES.join(', ')}, not "${status}"`);
  }
  const now = Date.now();
  const since = timeOption('since', values.since, now);
  const until = timeOption('until', values.until, now);
  if (since !== undefined && until !== undefined && since > until) throw new UsageError(`--since (${new Date(since).toISOString()}) is after --until (${new Date(until).toISOString()}): nothing could match`);
  // Checked before the store is read: an export that ran for a minute must not then refuse to write.
  if (values.out !== undefined && fs.existsSync(values.out) && !values.force) throw new InputError(`${values.out} already exists: give --force to replace it`);

  const dataDir = values['data-dir'] ?? defaultDataDir();
  const { db } = openStore(dataDir);
  try {
    const filter: ExportFilter = {
      ...(values.source !== undefined ? { sourceId: sourceId(db, values.source, dataDir) } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
      ...(values.event !== undefined ? { event: values.event } : {}),
      ...(status !== undefined ? { status: status as MessageStatus } : {}),
    };
    const out = values.out !== undefined ? FileOut.open(values.out) : new LineWriter();
    let count: number;
    try {
      count = values.har ? await writeHar(db, { ...filter, ...destinationOf(db, values.destination, dataDir) }, out) : await writeLines(db, filter, out);
      await out.flush();
      if (out instanceof FileOut) await out.finish();
    } catch (error) {
      if (out instanceof FileOut) out.abort();
      throw error;
    }
    const what = values.har ? `${count.toLocaleString('en-US')} request${count === 1 ? '' : 's'} (HAR 1.2)` : `${count.toLocaleString('en-US')} message${count === 1 ? '' : 's'}`;
    process.stderr.write(`exported ${what}${values.out !== undefined ? ` to ${values.out}` : ''}\n`);
    return 0;
  } catch (error) {
    if (error instanceof InputError || error instanceof UsageError) throw error;
    throw storeFailureInput(error, databaseFile(dataDir)) ?? new InputError(`cannot read the store in ${dataDir}: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

async function writeLines(db: ReturnType<typeof openStore>['db'], filter: ExportFilter, out: Out): Promise<number> {
  let count = 0;
  for (const page of exportPages(db, filter)) {
    if (page.length === 0) continue;
    count += page.length;
    await out.line(page.map(exportLineText).join('\n'));
  }
  return count;
}

/** One entry per line, each but the last followed by a comma: a JSON document still readable line by line. */
async function writeHar(db: ReturnType<typeof openStore>['db'], filter: HarFilter, out: Out): Promise<number> {
  await out.line(harHead());
  let count = 0;
  let pending: string | undefined;
  for (const page of harPages(db, filter)) {
    for (const entry of page) {
      if (pending !== undefined) await out.line(`${pending},`);
      pending = ndjsonLine(entry);
      count++;
    }
  }
  if (pending !== undefined) await out.line(pending);
  await out.line(HAR_TAIL.trimEnd());
  return count;
}

function destinationOf(db: ReturnType<typeof openStore>['db'], name: string | undefined, dataDir: string): { destinationId?: number } {
  if (name === undefined) return {};
  const found = destinationByName(db, name);
  if ('id' in found) return { destinationId: found.id };
  const known = found.known.length > 0 ? `its destinations are ${found.known.map((d) => JSON.stringify(d)).join(', ')}` : 'it has no destinations';
  throw new InputError(`there is no destination ${JSON.stringify(name)} in ${dataDir}: ${known}`);
}

function timeOption(name: string, value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const ms = parseWhen(value, now);
  if (ms === undefined) throw new UsageError(`--${name} must be ${WHEN_FORMS}; not "${value}"`);
  return ms;
}

/**
 * Lines to a file, written beside it first and renamed into place at the end: an export cut short (an
 * error, Ctrl-C) leaves no half file under the name asked for. Owner-only, as the store is: it holds
 * the same data.
 */
class FileOut implements Out {
  readonly #file: string;
  readonly #partial: string;
  readonly #stream: fs.WriteStream;
  #chunks: string[] = [];
  #size = 0;
  #error: Error | undefined;
  readonly #onSignal = () => {
    this.abort();
    process.exit(130);
  };

  private constructor(file: string) {
    this.#file = file;
    this.#partial = `${file}.partial-${process.pid}`;
    try {
      fs.closeSync(fs.openSync(this.#partial, 'wx', 0o600));
    } catch (error) {
      throw new InputError(writeProblem(file, error));
    }
    this.#stream = fs.createWriteStream(this.#partial, { flags: 'w' });
    this.#stream.on('error', (error) => (this.#error ??= error)); // reported by the next flush or the finish
    process.once('SIGINT', this.#onSignal);
  }

  static open(file: string): FileOut {
    return new FileOut(file);
  }

  async line(text: string): Promise<void> {
    this.#chunks.push(text, '\n');
    this.#size += text.length + 1;
    if (this.#size >= 256 * 1024) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#chunks.length === 0) return;
    const text = this.#chunks.join('');
    this.#chunks = [];
    this.#size = 0;
    try {
      if (this.#error) throw this.#error;
      if (!this.#stream.write(text)) await once(this.#stream, 'drain');
    } catch (error) {
      throw new InputError(writeProblem(this.#file, error));
    }
  }

  async finish(): Promise<void> {
    this.#stream.end();
    try {
      await finished(this.#stream);
      fs.renameSync(this.#partial, this.#file);
    } catch (error) {
      throw new InputError(writeProblem(this.#file, error));
    } finally {
      process.off('SIGINT', this.#onSignal);
    }
  }

  abort(): void {
    process.off('SIGINT', this.#onSignal);
    this.#stream.destroy();
    fs.rmSync(this.#partial, { force: true });
  }
}

function writeProblem(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT' ? 'its folder does not exist' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOSPC' ? 'the disk is full' : (error as Error).message;
  return `cannot write ${file}: ${why}`;
}
