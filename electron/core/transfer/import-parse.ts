/**
 * The way into a store: what `sluice import` reads, told apart and turned into messages to send again
 * through ingestion. An input line is one of
 * - an export's line `{"message": {...}, "status", "origin", ...}` (export-lines.ts), or the HTTP API's
 *   answer for one message (`{"message": {...}, "deliveries"}`);
 * - a Segment batch `{"batch": [...], "context", "integrations", "sentAt"}`: the batch's fields go into
 *   each message, as ingestion reads them (withEnvelope), since the messages are sent again in other batches;
 * - a page of the HTTP API `{"messages": [...], "next"}`;
 * - a message (an object with `type`);
 * - a HAR document (`{"log": {"entries": [...]}}`, on one line or, as HAR files are, the whole file):
 *   each POST to a Tracking API path has its body sent again.
 * What Sluice made itself (an audience sync's identify, a Violation Generated event) is not sent: the
 * relay it goes to makes its own. Nor is a message whose text the export could not keep.
 * Numbers are read as written (parseExact: an integer past 2^53 is not rounded), and a message read
 * whole from a line is sent as its text.
 */
import { envelopeChanges, isObject, lazy } from './export-lines.ts';
import { memberValue, objectMembers, parseExact, withMembers } from './json-text.ts';
import { SLUICE_FIELDS } from '../queries/filters.ts';
import type { ImportSkipReason } from '../../../shared/storage.ts';

/** A message to send, and where it came from (for what the summary says of it). */
export interface Outgoing {
  message: unknown;
  /**
   * Its JSON text to send, when it is not JSON.stringify(message): the text as read (an export's
   * message, a message line), or with a batch's fields carried in, its own members as written.
   */
  json?: string;
  /** `FILE:LINE`, `FILE:LINE batch[3]`, `FILE entries[4] batch[0]`. */
  where: string;
  /** The export says ingestion rejected it: refused again, it is as it was, not a failure of the import. */
  wasRejected: boolean;
  /** The export says it was a duplicate (a copy of a messageId stored before): what a plan is not checked on. */
  wasDuplicate?: boolean;
}

export type SkipReason = ImportSkipReason;

export interface Parsed {
  send: Outgoing[];
  skipped: { reason: SkipReason; where: string }[];
  errors: { where: string; error: string }[];
}

/** A line that is a whole HAR document: the caller reads its entries with harMessages. */
export interface HarLine {
  har: Record<string, unknown>;
}

/**
 * The Tracking API's paths (after /v1/) and the type a single-message body takes from its endpoint, as
 * ingest-server.ts routes them: Segment's and RudderStack's long names, analytics.js's one-letter ones.
 */
const SINGLE_PATHS: Record<string, string> = {
  identify: 'identify', i: 'identify', track: 'track', t: 'track', page: 'page', p: 'page',
  screen: 'screen', s: 'screen', group: 'group', g: 'group', alias: 'alias', a: 'alias',
};
const BATCH_PATHS = new Set(['batch', 'import', 'b']);
/** A Tracking API call's path ends so, whatever comes before (a proxy's prefix, a data plane's host). */
const TRACKING_PATH = /\/v1\/([a-z]+)\/?$/;

/**
 * A message of the HTTP API (queries/test-queries.ts) is told by the fields it has had since exports began;
 * every field Sluice adds beside the message's own is then left out (SLUICE_FIELDS: those and the ones
 * added since — `sequence`, `warning`, `pinned` — which an older capture may not have).
 */
const API_MARKERS = ['receivedAt', 'source', 'origin', 'status', 'rejection', 'violations', 'blocked'] as const;
/** Origins of the messages Sluice makes itself (an import sends none of them, and no plan checks them). */
export const SLUICE_MADE: ReadonlySet<string> = new Set(['audience', 'plan']);

export function emptyParsed(): Parsed {
  return { send: [], skipped: [], errors: [] };
}

/** One NDJSON line (not blank); `where` is its `FILE:LINE`. */
export function parseLine(text: string, where: string): Parsed | HarLine {
  const out = emptyParsed();
  let value: unknown;
  try {
    value = parseExact(text);
  } catch (error) {
    return failed(out, where, `the line is not JSON (${clip((error as Error).message, 160)})`);
  }
  if (!isObject(value)) return failed(out, where, 'the line is JSON but not an object; expected a message, an exported message, a page of messages, a batch or a HAR document');
  if (isHar(value)) return { har: value as Record<string, unknown> };
  // An export's line has a `type` of its own (the stored row's) beside its `status`; a message may have
  // a field called `message`, but then it has a `type` and no `status`.
  if (Object.hasOwn(value, 'message') && (!Object.hasOwn(value, 'type') || Object.hasOwn(value, 'status'))) return exportedMessage(value, text, where, out);
  if (Object.hasOwn(value, 'batch')) return batchMessages(value, where, out);
  // A message may carry a field named "messages" of its own: a line with a "type" is a message.
  if (Object.hasOwn(value, 'messages') && !Object.hasOwn(value, 'type')) {
    if (!Array.isArray(value.messages)) return failed(out, where, '"messages" must be an array of messages (a page of GET /api/v1/messages)');
    value.messages.forEach((message, i) => fromApi(message, `${where} messages[${i}]`, out));
    return out;
  }
  if (Object.hasOwn(value, 'type')) {
    const own = withoutWriteKey(value);
    out.send.push({ message: own, ...(own === value ? { json: text } : {}), where, wasRejected: false });
    return out;
  }
  return failed(
    out,
    where,
    'the line is not a message: expected an object with "type", an exported message ({"message": {...}}), a page of messages ({"messages": [...]}), a batch ({"batch": [...]}) or a HAR document ({"log": {"entries": [...]}})',
  );
}

/** Whether a JSON value is a HAR document (a log with entries). */
export function isHar(value: unknown): boolean {
  return isObject(value) && isObject(value.log) && Array.isArray(value.log.entries);
}

/**
 * A HAR document's Tracking API calls: each entry whose request is a POST to /v1/batch, /v1/track, … has
 * its body read again as ingestion would (a batch's messages with its fields, a single message with its
 * endpoint's type); other entries are skipped. `name` is the file's name.
 */
export function harMessages(har: Record<string, unknown>, name: string): Parsed {
  const out = emptyParsed();
  const entries = (har.log as { entries: unknown[] }).entries;
  entries.forEach((entry, i) => {
    const where = `${name} entries[${i}]`;
    const request = isObject(entry) ? entry.request : undefined;
    const path = isObject(request) && typeof request.url === 'string' ? pathOf(request.url) : undefined;
    const endpoint = path !== undefined ? TRACKING_PATH.exec(path)?.[1] : undefined;
    const method = isObject(request) && typeof request.method === 'string' ? request.method.toUpperCase() : '';
    if (method !== 'POST' || endpoint === undefined || (!BATCH_PATHS.has(endpoint) && SINGLE_PATHS[endpoint] === undefined)) {
      out.skipped.push({ reason: 'not-tracking-api', where });
      return;
    }
    const postData = (request as { postData?: unknown }).postData;
    const text = isObject(postData) && typeof postData.text === 'string' ? postData.text : undefined;
    if (text === undefined || text === '') return void failed(out, where, `POST ${path} has no body in the HAR (request.postData.text)`);
    let body: unknown;
    try {
      body = parseExact((postData as { encoding?: unknown }).encoding === 'base64' ? Buffer.from(text, 'base64').toString('utf8') : text);
    } catch {
      return void failed(out, where, `the body of POST ${path} is not JSON (a gzipped body cannot be read back from a HAR)`);
    }
    if (!isObject(body)) return void failed(out, where, `the body of POST ${path} is not a JSON object`);
    if (BATCH_PATHS.has(endpoint)) return void batchMessages(body, where, out);
    // A single-message endpoint gives its type, whatever the body says (as ingestion reads it).
    out.send.push({ message: { ...withoutWriteKey(body), type: SINGLE_PATHS[endpoint]! }, where, wasRejected: false });
  });
  return out;
}

/** An export's line (`text`, read as `value`): its message sent as the export wrote it. */
function exportedMessage(value: Record<string, unknown>, text: string, where: string, out: Parsed): Parsed {
  const { message } = value;
  if (typeof value.origin === 'string' && SLUICE_MADE.has(value.origin)) return skip(out, 'sluice-made', where);
  const wasRejected = value.status === 'rejected';
  if (message === null && wasRejected) return skip(out, 'not-kept', where);
  if (isObject(message)) {
    fromApi(message, where, out, wasRejected);
    const sent = out.send.at(-1);
    if (sent && value.status === 'duplicate') sent.wasDuplicate = true;
    // Nothing taken out of it (no write key, no API metadata): its text as it is.
    if (sent?.message === message) sent.json = memberValue(objectMembers(text), 'message');
    return out;
  }
  // A rejected batch element that was not an object (a number, a string) is sent as it was.
  if (wasRejected && message !== undefined) {
    out.send.push({ message, where, wasRejected });
    return out;
  }
  return failed(out, where, '"message" must be a message (an object with a "type")');
}

/** A message of the HTTP API (its metadata beside its own fields), an export's, or a plain one. */
function fromApi(message: unknown, where: string, out: Parsed, rejected = false): Parsed {
  if (!isObject(message)) {
    out.errors.push({ where, error: 'not a message (an object with a "type")' });
    return out;
  }
  let own = message;
  let wasRejected = rejected;
  if (API_MARKERS.every((key) => Object.hasOwn(message, key))) {
    if (typeof message.origin === 'string' && SLUICE_MADE.has(message.origin)) return skip(out, 'sluice-made', where);
    wasRejected ||= message.status === 'rejected';
    own = { ...message };
    for (const key of SLUICE_FIELDS) delete own[key];
  }
  out.send.push({ message: withoutWriteKey(own), where, wasRejected, ...(own !== message && message.status === 'duplicate' ? { wasDuplicate: true } : {}) });
  return out;
}

function batchMessages(value: Record<string, unknown>, where: string, out: Parsed): Parsed {
  const { batch, context, integrations, sentAt } = value;
  if (!Array.isArray(batch)) return failed(out, where, '"batch" must be an array of messages');
  // Ingestion refuses such a batch whole (400 invalid_batch): so does the import, naming it.
  if (context !== undefined && !isObject(context)) return failed(out, where, `the batch's "context" must be an object`);
  if (integrations !== undefined && !isObject(integrations)) return failed(out, where, `the batch's "integrations" must be an object`);
  if (sentAt !== undefined && typeof sentAt !== 'string') return failed(out, where, `the batch's "sentAt" must be an ISO 8601 date string`);
  batch.forEach((message, i) => {
    const at = `${where} batch[${i}]`;
    // An element that is not an object is sent as it is: ingestion rejects it, as it did the first time.
    if (!isObject(message)) return void out.send.push({ message, where: at, wasRejected: false });
    // The batch's fields carried in, as the export carries them (its numbers as read: parseExact).
    const own = withoutWriteKey(message);
    const text = JSON.stringify(own);
    const members = lazy(() => objectMembers(text));
    const changes = new Map<string, string | undefined>();
    envelopeChanges(own, members, { context, integrations, sentAt } as Parameters<typeof envelopeChanges>[2], changes);
    out.send.push({ message: own, json: withMembers(text, own, changes, members), where: at, wasRejected: false });
  });
  return out;
}

/** The message without `writeKey`: the credential of wherever it was sent first, not this source's. */
function withoutWriteKey(message: Record<string, unknown>): Record<string, unknown> {
  if (!Object.hasOwn(message, 'writeKey')) return message;
  const { writeKey: _credential, ...rest } = message;
  return rest;
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}

function skip(out: Parsed, reason: SkipReason, where: string): Parsed {
  out.skipped.push({ reason, where });
  return out;
}

function failed(out: Parsed, where: string, error: string): Parsed {
  out.errors.push({ where, error });
  return out;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
