/**
 * Newline-delimited JSON in and out for the commands: input files read a line at a time (an export of
 * a busy store is gigabytes; it must never be loaded whole), each line told apart as a message, a
 * stored message, a page of the HTTP API or a Segment batch, and output lines written with the stream's backpressure
 * respected (a million violation lines piped into a pager must not pile up in memory).
 */
import { once } from 'node:events';
import fs from 'node:fs';
import { withoutCr } from '../core/transfer/json-lines.ts';
import { InputError, UsageError } from './command-error.ts';
import { SLUICE_MADE } from '../core/transfer/import-parse.ts';

/** How stdin is named on the command line and in what the commands print. */
export const STDIN_ARG = '-';
export const STDIN_NAME = '<stdin>';

/**
 * Refuses, before anything is read, input files that cannot be: so that a typo in the last of five
 * names does not come after four files' worth of output.
 */
export function checkInputFiles(files: string[]): void {
  if (files.filter((f) => f === STDIN_ARG).length > 1) throw new UsageError('stdin (-) can be read only once');
  for (const file of files) {
    if (file === STDIN_ARG) continue;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(file);
    } catch (error) {
      throw new InputError(fileProblem(file, error));
    }
    if (stat.isDirectory()) throw new InputError(`cannot read ${file}: it is a folder, not a file`);
    try {
      fs.accessSync(file, fs.constants.R_OK);
    } catch (error) {
      throw new InputError(fileProblem(file, error));
    }
  }
}

/** A sentence for a file that cannot be opened, without Node's `ENOENT: …, stat '…'` wording. */
export function fileProblem(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `cannot read ${file}: there is no such file`;
  if (code === 'EACCES' || code === 'EPERM') return `cannot read ${file}: permission denied`;
  return `cannot read ${file}: ${(error as Error).message}`;
}

/** The longest line read whole (as message-file.ts's MAX_DOCUMENT_CHARS): V8's strings end near 512 MB. */
export const MAX_LINE_CHARS = 256 * 1024 * 1024;

/** A line of the file; `tooLong`: its length, when it was over the cap (then `text` is empty: it was not kept). */
export interface NumberedLine {
  line: number;
  text: string;
  tooLong?: number;
}

/**
 * The file's lines with their numbers (from 1), streamed; `-` is stdin. A line ends at `\n` only (a `\r`
 * before it is dropped): not at U+2028 or U+2029, which Node's readline also takes for line ends and
 * which other encoders write raw inside strings (json-lines.ts). A UTF-8 BOM on the first line is dropped.
 * A line over `maxLineChars` is not gathered (its length is counted, `tooLong`): before 2026-12-01 a file
 * with no line end (a minified HAR, a JSON array on one line) was gathered whole, until "Invalid string
 * length" ended the command without naming the file or the line.
 */
export async function* readLines(file: string, maxLineChars = MAX_LINE_CHARS): AsyncGenerator<NumberedLine> {
  const input = file === STDIN_ARG ? process.stdin : fs.createReadStream(file);
  input.setEncoding('utf8'); // a character cut between two chunks is decoded whole
  let line = 0;
  const numbered = (text: string): NumberedLine => {
    line++;
    const read = withoutCr(text);
    return { line, text: line === 1 && read.charCodeAt(0) === 0xfeff ? read.slice(1) : read };
  };
  try {
    let rest = '';
    /** The length of a line over the cap, read so far (null: the line is being gathered). */
    let over: number | null = null;
    for await (const chunk of input as AsyncIterable<string>) {
      let start = 0;
      for (let end = chunk.indexOf('\n'); end !== -1; end = chunk.indexOf('\n', start)) {
        if (over !== null || rest.length + (end - start) > maxLineChars) {
          line++;
          yield { line, text: '', tooLong: (over ?? rest.length) + (end - start) };
          over = null;
        } else yield numbered(rest + chunk.slice(start, end));
        rest = '';
        start = end + 1;
      }
      if (over !== null) over += chunk.length - start;
      else if (rest.length + (chunk.length - start) > maxLineChars) {
        over = rest.length + (chunk.length - start);
        rest = '';
      } else rest += chunk.slice(start);
    }
    if (over !== null) {
      line++;
      yield { line, text: '', tooLong: over };
    } else if (rest !== '') yield numbered(rest);
  } finally {
    if (input !== process.stdin) input.destroy();
  }
}

/** What a line over the cap says, as an unreadable line's error. */
export function tooLongLine(chars: number, max = MAX_LINE_CHARS): string {
  return `the line is ${chars.toLocaleString('en-US')} characters long, over the ${(max / 1024 / 1024).toLocaleString('en-US', { maximumFractionDigits: 3 })} MB Sluice reads as one line: not read (one message or document per line, each under that)`;
}

/** A message found on a line; `index` is its place in the line's list, `list` that list's name. */
export interface LineMessage {
  message: unknown;
  index?: number;
  list?: 'batch' | 'messages';
  /** An export's refused row whose message was not kept: ingestion's recorded reason, in place of the message. */
  refused?: { code: string; message: string };
}

/**
 * What one input line holds: messages, nothing (a blank line), or why it is not something to check;
 * `skipped`: messages an export or a page holds that no plan checks at ingestion — made by Sluice
 * itself (an audience's identify, a `Violation Generated`), or duplicates of one stored before.
 */
export type LineContent = { messages: LineMessage[]; skipped?: { sluiceMade: number; duplicates: number } } | { error: string };

/** Of an export's line or a page's message, why no plan checks it at ingestion (null: it is checked). */
function notChecked(stored: Record<string, unknown>): 'sluiceMade' | 'duplicates' | null {
  if (typeof stored.origin === 'string' && SLUICE_MADE.has(stored.origin)) return 'sluiceMade';
  return stored.status === 'duplicate' ? 'duplicates' : null;
}

/** The messages kept, and those no plan checks counted apart. */
function sorted(messages: { line: LineMessage; stored: Record<string, unknown> | null }[]): LineContent {
  const skipped = { sluiceMade: 0, duplicates: 0 };
  const kept: LineMessage[] = [];
  for (const { line, stored } of messages) {
    const why = stored ? notChecked(stored) : null;
    if (why) skipped[why]++;
    else kept.push(line);
  }
  return skipped.sluiceMade + skipped.duplicates > 0 ? { messages: kept, skipped } : { messages: kept };
}

/**
 * Tells a line apart, in this order:
 * - a stored message: `{"message": {...}, ...metadata}`, as the HTTP API's `GET /api/v1/messages/by-id/{messageId}`
 *   gives it (and a later `sluice export` will, one per line);
 * - a Segment batch payload: `{"batch": [...], "context"?: {...}}`, whose context goes under each
 *   message's own, as ingestion merges it (the message's fields win);
 * - a page of the HTTP API: `{"messages": [...], "next": ...}` (`GET /api/v1/messages`, or the answer
 *   of `POST /api/v1/messages/wait`), each element a message with Sluice's metadata beside its own
 *   fields (receivedAt, source, status, rejection, violations, blocked). That metadata is harmless
 *   here: ingestion's rules and the plan's checks read other fields (type, event, properties, traits,
 *   context, the ids and times), so each element is checked as the message it was;
 * - a message: a JSON object with `type`.
 * A message that breaks ingestion's rules (a track without a name, an unknown type) is still returned:
 * telling why ingestion would refuse it is the caller's job.
 */
export function lineContent(text: string): LineContent {
  if (text.trim() === '') return { messages: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `the line is not JSON (${clip((error as Error).message, 160)})` };
  }
  if (!isObject(value)) return { error: `the line is JSON but not an object (${describe(value)}); expected a message, a stored message, a page of messages or a batch` };
  // An export's metadata may have a `type` of its own (the stored row's), so `message` is looked at first.
  // Its refused rows whose message was not kept carry `message: null` and the reason ingestion gave.
  if (isObject(value.message)) return sorted([{ line: { message: value.message }, stored: value }]);
  if (value.message === null && value.status === 'rejected') {
    const rejection = isObject(value.rejection) ? value.rejection : {};
    const refused = { code: typeof rejection.code === 'string' ? rejection.code : 'rejected', message: typeof rejection.reason === 'string' ? rejection.reason : 'refused at ingestion; the export did not keep the message' };
    return { messages: [{ message: null, refused }] };
  }
  if (Object.hasOwn(value, 'batch')) {
    const { batch, context } = value;
    if (!Array.isArray(batch)) return { error: `"batch" must be an array of messages; got ${describe(batch)}` };
    if (context !== undefined && !isObject(context)) return { error: `the batch's "context" must be an object; got ${describe(context)}` };
    return {
      messages: batch.map((message, index) => ({ message: withBatchContext(message, context), index, list: 'batch' as const })),
    };
  }
  // A message may carry a field named "messages" of its own: a line with a "type" is a message.
  if (Object.hasOwn(value, 'messages') && !Object.hasOwn(value, 'type')) {
    const { messages } = value;
    if (!Array.isArray(messages)) return { error: `"messages" must be an array of messages (a page of GET /api/v1/messages); got ${describe(messages)}` };
    return sorted(messages.map((message, index) => ({ line: { message, index, list: 'messages' as const }, stored: isObject(message) && Object.hasOwn(message, 'origin') ? message : null })));
  }
  if (Object.hasOwn(value, 'type')) return { messages: [{ message: value }] };
  if (Object.hasOwn(value, 'message')) return { error: `"message" must be a message (an object with a "type"); got ${describe(value.message)}` };
  return {
    error: 'the line is not a message: expected an object with "type", a stored message ({"message": {...}}), a page of messages ({"messages": [...]}) or a batch ({"batch": [...]})',
  };
}

/** The message with the batch's context under its own; a message whose own context is not an object is left for ingestion's rules to refuse. */
function withBatchContext(message: unknown, context: Record<string, unknown> | undefined): unknown {
  if (!context || !isObject(message)) return message;
  if (message.context === undefined) return { ...message, context };
  return isObject(message.context) ? { ...message, context: { ...context, ...message.context } } : message;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value's kind for a sentence: 'a number', 'an array', 'the string "x"'. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${clip(JSON.stringify(value), 40)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value === 'number' ? 'the number' : typeof value === 'boolean' ? 'the boolean' : typeof value} ${String(value)}`;
}

export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * Lines to stdout in chunks, waiting for the stream to drain when it asks. When the reader goes away
 * (`sluice check … | head`), the command ends quietly instead of dying with EPIPE's stack trace.
 */
export class LineWriter {
  #chunks: string[] = [];
  #size = 0;
  readonly #stream: NodeJS.WriteStream;

  constructor(stream: NodeJS.WriteStream = process.stdout) {
    this.#stream = stream;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      // The check did not finish, so it cannot claim success: 1 unless a result already said otherwise.
      if (error.code === 'EPIPE') process.exit(process.exitCode || 1);
      throw error;
    });
  }

  async line(text: string): Promise<void> {
    this.#chunks.push(text, '\n');
    this.#size += text.length + 1;
    if (this.#size >= 64 * 1024) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#chunks.length === 0) return;
    const text = this.#chunks.join('');
    this.#chunks = [];
    this.#size = 0;
    if (!this.#stream.write(text)) await once(this.#stream, 'drain');
  }
}
