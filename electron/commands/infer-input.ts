/**
 * What `sluice plan infer` learns from: a data folder's store (store-examples.ts), or with --from a
 * file — an export (`sluice export`), batches, pages of the HTTP API, messages, or a HAR of Tracking
 * API calls (message-file.ts). From a file as from a store: only what a plan would check (no message
 * the export says was rejected or a duplicate, nothing Sluice made itself), the newest `perEvent` of
 * each track event and of each other type, the file being oldest first. And how a field seen with
 * more than one type is told on stderr.
 */
import { InputError } from './command-error.ts';
import type { MessageExample, MixedField } from '../core/plans/infer-schema.ts';
import { isObject } from '../core/transfer/export-lines.ts';
import { messageFile } from './message-file.ts';
import { checkInputFiles, STDIN_ARG, STDIN_NAME } from './ndjson.ts';
import { readExamples } from './store-examples.ts';

/** The examples, how the stderr line names where they are from (" of the source \"web\"", " in FILE"), and notes. */
export async function inferInput(from: string | undefined, dataDir: string, source: string | undefined, perEvent: number): Promise<{ messages: MessageExample[]; from: string; notes: string[] }> {
  const planned = 'track, identify, group, page or screen messages';
  if (from === undefined) {
    const { messages } = readExamples(dataDir, { source, perEvent });
    const of = source !== undefined ? ` of the source ${JSON.stringify(source)}` : '';
    if (messages.length === 0) throw new InputError(`no stored ${planned}${of} in ${dataDir} to infer a plan from: send some to sluice serve first`);
    return { messages, from: of, notes: [] };
  }
  checkInputFiles([from]);
  const name = from === STDIN_ARG ? STDIN_NAME : from;
  const read = await readFileExamples(from, perEvent);
  const n = read.unreadable;
  const notes = n > 0 ? [`${n.toLocaleString('en-US')} ${n === 1 ? 'line or entry' : 'lines or entries'} could not be read and ${n === 1 ? 'was' : 'were'} skipped (${read.firstErrors.join('; ')})`] : [];
  if (read.messages.length === 0) {
    throw new InputError(`no ${planned} in ${name} to infer a plan from (an export, NDJSON messages or batches, or a HAR of Tracking API calls)${notes.length > 0 ? `; ${notes[0]}` : ''}`);
  }
  return { messages: read.messages, from: ` in ${name}`, notes };
}

/** `mixed types at track "Order Completed" properties.price: number 197 (e.g. messageId "m3"), string 3 (e.g. …); left without a type: choose one in the plan`. */
export function mixedLine(field: MixedField): string {
  const what = field.event !== null ? `${field.type} ${JSON.stringify(field.event)}` : field.type;
  const types = field.types.map((t) => `${t.type} ${t.count.toLocaleString('en-US')}${t.example !== null ? ` (e.g. messageId ${JSON.stringify(t.example)})` : ''}`);
  return `mixed types at ${what} ${field.path}: ${types.join(', ')}; left without a type: choose one in the plan`;
}

const PLANNED_TYPES = new Set(['track', 'identify', 'group', 'page', 'screen']);

interface FileExamples {
  messages: MessageExample[];
  /** Lines, entries or batch elements that are not a message (what import would call unreadable), the first few listed. */
  unreadable: number;
  firstErrors: string[];
}

async function readFileExamples(file: string, perEvent: number): Promise<FileExamples> {
  const name = file === STDIN_ARG ? STDIN_NAME : file;
  const kept = new Map<string, MessageExample[]>();
  const out: FileExamples = { messages: [], unreadable: 0, firstErrors: [] };
  for await (const parsed of messageFile(file, name)) {
    out.unreadable += parsed.errors.length;
    for (const { where, error } of parsed.errors) if (out.firstErrors.length < 3) out.firstErrors.push(`${where}: ${error}`);
    for (const { message, wasRejected, wasDuplicate } of parsed.send) {
      if (wasRejected || wasDuplicate || !isObject(message) || typeof message.type !== 'string' || !PLANNED_TYPES.has(message.type)) continue;
      const event = message.type === 'track' ? (typeof message.event === 'string' ? message.event : null) : null;
      if (message.type === 'track' && !event) continue; // ingestion refuses a track without a name
      const key = `${message.type}\u0000${event ?? ''}`;
      let list = kept.get(key);
      if (!list) kept.set(key, (list = []));
      list.push({ type: message.type, event, messageId: typeof message.messageId === 'string' ? message.messageId : null, properties: message.properties, traits: message.traits });
      if (list.length > perEvent * 2) list.splice(0, list.length - perEvent); // the newest perEvent, trimmed now and then
    }
  }
  for (const list of kept.values()) out.messages.push(...list.slice(-perEvent));
  return out;
}
