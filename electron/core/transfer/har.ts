/**
 * The requests Sluice made as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): one entry per
 * webhook attempt, then one per request forwarded to a Tracking API (recorded once for the messages it
 * carried: forward_requests, migration 17), the request as Sluice sent it and the answer as it came, so
 * that HTTP Toolkit, a browser's dev tools or any HAR viewer opens a destination's traffic. Read like an
 * export (export-lines.ts): by id windows, a page at a time, on a read-only connection; the document is
 * written as a head, the entries, a tail.
 */
import { STATUS_CODES } from 'node:http';
import type { DatabaseSync } from 'node:sqlite';
import pkg from '../../../package.json' with { type: 'json' };
import { filterClauses, type ExportFilter } from './export-lines.ts';
import { isCredentialHeader } from '../../../shared/credential-headers.ts';
import { headersSent } from '../store/attempt-headers.ts';
import { readSnapshot } from '../store/connection.ts';
import { recordedBodies, recordsBodyShapes, type RecordedBody } from '../store/delivery-bodies.ts';

/** Which attempts: those of a destination, of the messages a filter picks, made in a time range. */
export interface HarFilter extends Omit<ExportFilter, 'since' | 'until'> {
  /** Attempt start bounds in ms, inclusive. */
  since?: number;
  until?: number;
  /** The destination's id (see destinationByName). */
  destinationId?: number;
}

export interface HarHeader {
  name: string;
  value: string;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: {
    method: 'POST';
    url: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    queryString: HarHeader[];
    postData: { mimeType: string; text: string };
    headersSize: -1;
    bodySize: number;
  };
  response: {
    status: number;
    statusText: string;
    httpVersion: string;
    cookies: [];
    headers: HarHeader[];
    content: { size: number; mimeType: string; text?: string; comment?: string };
    redirectURL: '';
    headersSize: -1;
    bodySize: number;
    /** Chrome's name for a request that got no answer (a network error): why. */
    _error?: string;
  };
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  /** A forwarded request names its first message's delivery, and every delivery and messageId it carried (`carried`). */
  _sluice: { deliveryId: number; messageId: string | null; destination: string; outcome: string; error: string | null; carried?: { deliveryIds: number[]; messageIds: (string | null)[] } };
}

const PAGE_ROWS = 200;
const WINDOW_IDS = 5_000;
/** What the sender keeps of an answer's body (webhook-sender.ts): a body this long may have been cut. */
const CAPTURED_BYTES = 64 * 1024;

interface AttemptRow {
  id: number;
  delivery_id: number;
  url: string;
  started_at: number;
  duration_ms: number | null;
  request_headers: string;
  header_set: string | null;
  signature: string | null;
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  error_message: string | null;
  outcome: string;
  body: string | null;
  body_override: string | null;
  destination: string;
  message_id: string | null;
  /** The delivery's message (its row id) and the shape of a body recorded by reference: what recordedBodies reads. */
  messageId: RecordedBody['messageId'];
  bodyShape: RecordedBody['bodyShape'];
}

/** The rows a read gives, with their bodies recorded by reference built again in the same snapshot. */
function bodiesFilled(db: DatabaseSync): <T extends RecordedBody>(read: () => T[]) => T[] {
  const fill = recordedBodies(db);
  return (read) => readSnapshot(db, () => fill(read()));
}

/** A store written before migration 27 (read without migrating it) has no body recorded by reference. */
function bodyShapeColumn(db: DatabaseSync): string {
  return recordsBodyShapes(db) ? 'd.body_shape AS bodyShape' : 'NULL AS bodyShape';
}

/** The document up to its first entry, and after its last: entries go between, comma-separated. */
export function harHead(): string {
  return `{"log":{"version":"1.2","creator":{"name":"Sluice","version":${JSON.stringify(pkg.version)}},"entries":[`;
}
export const HAR_TAIL = ']}}\n';

/** The HAR's entries, a page at a time (an empty page is a stretch of attempts with no match): webhook attempts, then forwarded requests. */
export function* harPages(db: DatabaseSync, filter: HarFilter): Generator<HarEntry[]> {
  yield* attemptPages(db, filter);
  yield* forwardedPages(db, filter);
}

/** The filter's terms on the delivery `d`, its message `m` and the request's start (`startedAt`, a column). */
function harTerms(filter: HarFilter, startedAt: string): { where: string[]; params: (string | number)[] } {
  const { since, until, destinationId, ...messageFilter } = filter;
  const { where, params } = filterClauses(messageFilter);
  if (since !== undefined) (where.push(`${startedAt} >= ?`), params.push(since));
  if (until !== undefined) (where.push(`${startedAt} <= ?`), params.push(until));
  if (destinationId !== undefined) (where.push('d.destination_id = ?'), params.push(destinationId));
  return { where, params };
}

function* attemptPages(db: DatabaseSync, filter: HarFilter): Generator<HarEntry[]> {
  const { where, params } = harTerms(filter, 'a.started_at');
  // A delivery that is no message's (a deletion notification, a test event) has no message to filter
  // by: it is in the HAR unless the filter names messages; the conditions on m.* leave it out then.
  const statement = db.prepare(
    `SELECT a.id, a.delivery_id, a.url, a.started_at, a.duration_ms, a.request_headers, h.headers AS header_set, d.signature,
       a.response_status, a.response_headers, a.response_body, a.error_message, a.outcome, d.body, d.body_override,
       dst.name AS destination, m.message_id, d.message_id AS messageId, ${bodyShapeColumn(db)}
     FROM attempts a NOT INDEXED JOIN deliveries d ON d.id = a.delivery_id JOIN destinations dst ON dst.id = d.destination_id
       LEFT JOIN messages m ON m.id = d.message_id LEFT JOIN header_sets h ON h.id = a.header_set
     WHERE a.id > ? AND a.id <= ? ${where.map((w) => `AND ${w}`).join(' ')}
     ORDER BY a.id LIMIT ${PAGE_ROWS}`,
  );
  const { last } = db.prepare('SELECT coalesce(max(id), 0) AS last FROM attempts').get() as { last: number };
  const filled = bodiesFilled(db);
  let after = 0;
  while (after < last) {
    const end = Math.min(after + WINDOW_IDS, last);
    const rows = filled(() => statement.all(after, end, ...params) as unknown as AttemptRow[]);
    after = rows.length === PAGE_ROWS ? rows.at(-1)!.id : end;
    yield rows.map(harEntry);
  }
}

/**
 * One entry per forwarded request that carried a message the filter picks: its body rebuilt as it was
 * sent, `{"batch":[…]}` of the bodies of the deliveries it carried (in delivery order; a purged
 * message's is gone from it), its headers and answer as recorded once for all of them.
 */
function* forwardedPages(db: DatabaseSync, filter: HarFilter): Generator<HarEntry[]> {
  const { where, params } = harTerms(filter, 'r.started_at');
  const requests = db.prepare(
    `SELECT r.id, r.url, r.started_at, r.duration_ms, r.request_headers, r.response_status, r.response_headers, r.response_body, r.error_message
     FROM forward_requests r NOT INDEXED
     WHERE r.id > ? AND r.id <= ? AND EXISTS (SELECT 1 FROM forward_attempts fa INDEXED BY forward_attempts_request
       JOIN deliveries d ON d.id = fa.delivery_id LEFT JOIN messages m ON m.id = d.message_id
       WHERE fa.request_id = r.id ${where.map((w) => `AND ${w}`).join(' ')})
     ORDER BY r.id LIMIT ${PAGE_ROWS}`,
  );
  const carried = db.prepare(
    `SELECT fa.delivery_id, fa.outcome, coalesce(fa.error_message, r.error_message) AS error_message, d.body, d.body_override, dst.name AS destination, m.message_id,
       d.message_id AS messageId, ${bodyShapeColumn(db)}
     FROM forward_attempts fa INDEXED BY forward_attempts_request JOIN forward_requests r ON r.id = fa.request_id
       JOIN deliveries d ON d.id = fa.delivery_id JOIN destinations dst ON dst.id = d.destination_id LEFT JOIN messages m ON m.id = d.message_id
     WHERE fa.request_id = ? ORDER BY fa.delivery_id`,
  );
  const { last } = db.prepare('SELECT coalesce(max(id), 0) AS last FROM forward_requests').get() as { last: number };
  const filled = bodiesFilled(db);
  let after = 0;
  while (after < last) {
    const end = Math.min(after + WINDOW_IDS, last);
    const rows = requests.all(after, end, ...params) as unknown as Omit<AttemptRow, 'delivery_id' | 'header_set' | 'signature' | 'outcome' | 'body' | 'body_override' | 'destination' | 'message_id' | 'messageId' | 'bodyShape'>[];
    after = rows.length === PAGE_ROWS ? rows.at(-1)!.id : end;
    yield rows.map((row) => {
      const shares = filled(() => carried.all(row.id) as unknown as Pick<AttemptRow, 'delivery_id' | 'outcome' | 'error_message' | 'body' | 'body_override' | 'destination' | 'message_id' | 'messageId' | 'bodyShape'>[]);
      const first = shares[0]!;
      const body = `{"batch":[${shares.flatMap((share) => (share.body ?? share.body_override) ?? []).join(',')}]}`;
      const entry = harEntry({ ...row, ...first, error_message: row.error_message, header_set: null, signature: null, body, body_override: null });
      entry._sluice.messageId = shares.length === 1 ? first.message_id : null;
      entry._sluice.carried = { deliveryIds: shares.map((share) => share.delivery_id), messageIds: shares.map((share) => share.message_id) };
      return entry;
    });
  }
}

function harEntry(row: AttemptRow): HarEntry {
  const requestHeaders = redacted(harHeaders(headersSent(row.header_set, row.request_headers, row.signature)));
  // The body of the delivery's last round (the same for each of its attempts: a message's body is
  // made from what is stored), or the body it was made with (an edited replay, a deletion notification).
  const body = row.body ?? row.body_override ?? '';
  const answered = row.response_status !== null;
  const responseHeaders = answered && row.response_headers ? redacted(harHeaders(JSON.parse(row.response_headers) as Record<string, string | string[]>)) : [];
  const responseText = row.response_body ?? '';
  const responseBytes = Buffer.byteLength(responseText);
  const duration = row.duration_ms ?? 0;
  return {
    startedDateTime: new Date(row.started_at).toISOString(),
    time: duration,
    request: {
      method: 'POST',
      url: row.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: requestHeaders,
      queryString: queryOf(row.url),
      postData: { mimeType: headerValue(requestHeaders, 'content-type') ?? 'application/json', text: body },
      headersSize: -1,
      bodySize: Buffer.byteLength(body),
    },
    response: {
      status: row.response_status ?? 0,
      statusText: answered ? (STATUS_CODES[row.response_status!] ?? '') : '',
      httpVersion: answered ? 'HTTP/1.1' : '',
      cookies: [],
      headers: responseHeaders,
      content: {
        size: responseBytes,
        mimeType: headerValue(responseHeaders, 'content-type') ?? 'x-unknown',
        ...(answered ? { text: responseText } : {}),
        ...(responseBytes >= CAPTURED_BYTES ? { comment: 'Sluice keeps the first 64 KB of an answer' } : {}),
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: answered ? responseBytes : -1,
      ...(answered ? {} : { _error: row.error_message ?? 'no answer' }),
    },
    cache: {},
    // Sluice times the whole exchange as one: it is all waiting, as far as a HAR viewer can tell.
    timings: { send: 0, wait: duration, receive: 0 },
    _sluice: { deliveryId: row.delivery_id, messageId: row.message_id, destination: row.destination, outcome: row.outcome, error: row.error_message },
  };
}

/** A header object as a HAR's list; a repeated header (string[]) is one entry per value, as sent. */
function harHeaders(headers: Record<string, string | string[] | undefined>): HarHeader[] {
  const out: HarHeader[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) out.push({ name, value: String(one) });
  }
  return out;
}

/**
 * A HAR is made to be shared (a teammate, HTTP Toolkit): credentials a request carried are left out —
 * a Tracking API destination's write key (Authorization), a webhook's static header that looks like a
 * secret by its name, cookies (shared/credential-headers.ts, the inspector's rule). The signature
 * headers stay: they prove nothing without the secret.
 */
function redacted(headers: HarHeader[]): HarHeader[] {
  return headers.map((h) => (isCredentialHeader(h.name) ? { name: h.name, value: '[redacted by Sluice]' } : h));
}

function headerValue(headers: HarHeader[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

function queryOf(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

/** The id of the destination called `name`, or the names there are. Deleted ones are renamed, so not found by their old name. */
export function destinationByName(db: DatabaseSync, name: string): { id: number } | { known: string[] } {
  const rows = db.prepare('SELECT id, name, deleted_at FROM destinations ORDER BY name').all() as { id: number; name: string; deleted_at: number | null }[];
  const found = rows.find((d) => d.name === name);
  return found ? { id: found.id } : { known: rows.filter((d) => d.deleted_at === null).map((d) => d.name) };
}
