/**
 * The test queries over HTTP (`/api/v1/…` on the inspector's port), for stacks that cannot import
 * sluice/testing — Cypress, Python, Go, a shell with curl. A thin adapter over core/queries/, the
 * core's reset and the export (core/transfer/): the same filters, waits and answers. Guarded as the
 * WebSocket is: the inspector's token (`Authorization: Bearer <token>`), a Host that is this server
 * (checked by ui-server.ts before this), and no browser request from another origin (no CORS either,
 * so a page elsewhere cannot read it).
 */
import { QueryError } from '../../shared/message-query.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MESSAGE_STATUSES, type MessageStatus } from '../../shared/message-rules.ts';
import { DELIVERY_STATUSES } from '../../shared/message-filter.ts';
import type { HttpApiCore } from '../core/api/operations/index.ts';
import { invoke } from '../core/api/contract-handlers.ts';
import type { Channel } from '../../shared/contract.ts';
import { SluiceClosedError, SluiceTimeoutError } from '../core/queries/test-queries.ts';
import { checkOptions, MESSAGE_FILTER_FIELDS } from '../core/queries/filters.ts';
import { OperationError } from '../core/operation-error.ts';
import { parseWhen, WHEN_FORMS } from '../core/transfer/when.ts';
import { streamMessages, streamOptions, StreamRequestError } from './message-stream.ts';
import { API_PREFIX, ApiError, checkParameters, endpointOf, filterOf, guard, jsonBody, MESSAGE_BY_ID, optional } from './http-api-request.ts';

export { API_PREFIX };

/** A page of messages or deliveries, at most (and by default). */
const MAX_LIMIT = 1000;
/** A wait may not hold a request longer than this. */
const MAX_WAIT_MS = 300_000;

/**
 * Answers a request under /api/v1/; `origin` is this server's own (http://host:port). `stopping` ends
 * what is held open; `streams.finishing` first lets each message stream hand out what is stored and
 * end (the host stops storing before it), each stream's end given to `streams.opened`.
 */
export async function serveHttpApi(
  core: HttpApiCore,
  token: string,
  origin: string,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  stopping: AbortSignal,
  streams?: { finishing: AbortSignal; opened(ended: Promise<void>): void },
): Promise<void> {
  // A wait's timeoutMs counts from here: the time its body takes to arrive and be read is part of it.
  const arrived = performance.now();
  try {
    guard(req, token, origin);
    const route = url.pathname.slice(API_PREFIX.length);
    const endpoint = endpointOf(req.method ?? 'GET', route, url);
    checkParameters(url, endpoint);
    switch (endpoint) {
      case 'GET /messages': {
        const filter = filterOf(url);
        const newestFirst = listOrder(url) === 'newest';
        return await page(res, url, core.queries.generation, async (after, limit) => {
          const { rows, more, lastId } = await core.queries.page(filter, optional(url, 'search').search, after, limit, 'GET /api/v1/messages', newestFirst);
          return { items: rows.map((row) => row.message), lastId, more };
        }, 'messages', newestFirst ? 'newest' : 'oldest');
      }
      case 'GET /messages/stream':
      {
        const streamed = streamMessages(core, res, { ...streamOptions(url.searchParams, Date.now()), ...(streams ? { finishing: streams.finishing } : {}) }, stopping);
        streams?.opened(streamed);
        return await streamed;
      }
      case 'POST /messages/wait': {
        const body = waitBody(await jsonBody(req), 'messages');
        const after = body.afterSequence !== undefined ? { afterSequence: body.afterSequence as number } : {};
        const messages = await heldWait(res, stopping, body, (wait, signal) => core.queries.waitForMessages(body.filter, { ...wait, ...after }, signal, arrived));
        return send(res, 200, { messages });
      }
      case 'POST /deliveries/wait': {
        const body = waitBody(await jsonBody(req), 'deliveries');
        const status = body.status as string | undefined;
        const deliveries = await heldWait(res, stopping, body, (wait, signal) => core.queries.waitForDeliveries(body.filter, { ...wait, ...(status !== undefined ? { status } : {}) }, signal, arrived));
        return send(res, 200, { deliveries });
      }
      case 'GET /messages/by-id/{messageId}':
        return send(res, 200, await messageNamed(core, url, route.slice(MESSAGE_BY_ID.length)));
      case 'GET /messages/{messageId}':
        return send(res, 200, await messageNamed(core, url, route.slice('messages/'.length)));
      case 'GET /deliveries': {
        const filter = { ...filterOf(url), ...optional(url, 'destination') } as Record<string, unknown>;
        if (filter.status !== undefined) filter.status = url.searchParams.get('status'); // a delivery status here
        return await page(res, url, core.queries.generation, async (after, limit) => {
          const { deliveries, more } = await core.queries.deliveryPage(filter, optional(url, 'search').search, after, limit, 'GET /api/v1/deliveries');
          return { items: deliveries, lastId: deliveries.at(-1)?.id, more };
        }, 'deliveries');
      }
      case 'GET /export':
        return await exportStream(core, res, url, stopping);
      case 'POST /reset':
        return send(res, 200, await core.reset());
      case 'GET /stats':
        return await stats(core, res);
      case 'GET /overview':
        return send(res, 200, await operation(core, 'overview.deliveries', optional(url, 'window')));
      case 'GET /plans/coverage':
        return send(res, 200, await operation(core, 'plans.coverage', { name: optional(url, 'plan').plan }));
      case 'GET /faults':
        return send(res, 200, await operation(core, 'faults.list', {}));
      case 'POST /faults':
        return send(res, 201, await operation(core, 'faults.ingest', await jsonBody(req, '{"status": 503, "times": 2}')));
      case 'DELETE /faults':
        return send(res, 200, await operation(core, 'faults.clear', {}));
      case 'POST /transforms/try':
        return send(res, 200, await tryTransform(core, await jsonBody(req, TRY_EXAMPLE)));
      case 'GET /issues':
        return send(res, 200, await operation(core, 'issues.list', { ...optional(url, 'state'), ...destinationNamed(core, optional(url, 'destination').destination) }));
      case 'POST /issues/{issueId}/retry': {
        const id = route.split('/')[1]!;
        if (!/^\d{1,15}$/.test(id)) throw new ApiError(404, 'not_found', `there is no issue "${id.slice(0, 40)}": an issue's id is a whole number (GET /api/v1/issues lists them)`);
        return send(res, 202, await operation(core, 'issues.retry', { issueId: Number(id) }));
      }
      case 'POST /issues/retry': {
        // The body is the inspector's filter (shared/message-filter.ts: search, type, event, from, to…), and a destination by name.
        const { destination, ...filter } = await jsonBody(req, '{"search": "event:\\"Order Completed\\"", "destination": "crm"}');
        return send(res, 202, await operation(core, 'issues.retry', { filter, ...destinationNamed(core, destination) }));
      }
      case 'GET /issues/retries':
        return send(res, 200, await operation(core, 'issues.retries', {}));
      case 'DELETE /issues/retries/{jobId}': {
        const id = route.slice('issues/retries/'.length); // large (its relay's start in ms × 1000); the schema refuses 0 and unsafe integers
        if (!/^\d{1,16}$/.test(id)) throw new ApiError(400, 'invalid_request', `"${id.slice(0, 40)}" is not a retry job's id: give the jobId (a whole number) that the retry answered or GET /api/v1/issues/retries lists`);
        return send(res, 200, await operation(core, 'issues.retryCancel', { jobId: Number(id) }));
      }
      case 'GET /info':
        return send(res, 200, await operation(core, 'app.info', {}));
      case 'GET /plans':
        return send(res, 200, await operation(core, 'plans.list', {}));
      case 'POST /plans/check':
        return send(res, 200, await operation(core, 'plans.check', await jsonBody(req, CHECK_EXAMPLE)));
      case 'POST /replay':
        return send(res, 200, await replay(core, await jsonBody(req, REPLAY_EXAMPLE)));
    }
  } catch (error) {
    if (res.headersSent || res.destroyed) return;
    if (error instanceof ApiError) return send(res, error.status, { error: { code: error.code, message: error.message } });
    if (error instanceof SluiceTimeoutError) return send(res, 408, { error: { code: 'timeout', message: error.message }, matched: error.matched });
    if (error instanceof SluiceClosedError) return send(res, 503, { error: { code: 'shutting_down', message: error.message } });
    if (error instanceof QueryError) return send(res, 400, { error: { code: 'invalid_query', message: `search: ${error.message}` } });
    if (error instanceof TypeError || error instanceof StreamRequestError) return send(res, 400, { error: { code: 'invalid_request', message: error.message } });
    // A read handed to the counting thread as Sluice stops.
    if (error instanceof OperationError && error.code === 'unavailable') return send(res, 503, { error: { code: 'shutting_down', message: error.message } });
    const failure = storeFailureAnswer(core, error);
    if (failure) return send(res, failure.status, { error: { code: failure.code, message: failure.message } });
    send(res, 500, { error: { code: 'internal_error', message: (error as Error).message } });
  }
}

/**
 * A wait's body, its fields checked as sluice/testing's options are: one it does not take — a filter's
 * field put beside `filter`, `timeout` for `timeoutMs`, `afterSequence` on the deliveries' wait — is a 400
 * naming it. Left out, it made the wait match anything stored (a test asserting an event that never came
 * passed) or wait 5 s instead. Values are checked by the wait itself (test-queries.ts), a timeoutMs over
 * MAX_WAIT_MS here (before 2026-12-01 it was cut to it without a word, and any non-number became 0 or 1).
 */
function waitBody(body: Record<string, unknown>, of: 'messages' | 'deliveries'): Record<string, unknown> {
  const where = `POST ${API_PREFIX}${of}/wait`;
  if (of === 'messages') checkOptions(body, ['filter', 'count', 'timeoutMs', 'afterSequence'], where);
  else checkOptions(body, ['filter', 'status', 'count', 'timeoutMs'], where, [...MESSAGE_FILTER_FIELDS, 'destination']);
  if (typeof body.timeoutMs === 'number' && body.timeoutMs > MAX_WAIT_MS) {
    throw new TypeError(`${where}: timeoutMs is at most ${MAX_WAIT_MS} (5 minutes); wait again for longer`);
  }
  return body;
}

/**
 * A test's wait held open by a request: `count` and `timeoutMs` (default 5 s) from the checked body,
 * ended when the client hangs up, and at once (503) when Sluice stops rather than holding its shutdown.
 */
async function heldWait<T>(
  res: ServerResponse,
  stopping: AbortSignal,
  body: Record<string, unknown>,
  wait: (options: { count: number | undefined; timeoutMs: number }, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timeoutMs = (body.timeoutMs ?? 5_000) as number; // its type and range checked by the wait
  const abandoned = new AbortController();
  res.on('close', () => abandoned.abort()); // the client hung up: stop waiting for it
  if (stopping.aborted) throw new ApiError(503, 'shutting_down', 'Sluice is stopping');
  return wait({ count: body.count as number | undefined, timeoutMs }, AbortSignal.any([abandoned.signal, stopping])).catch((error: unknown) => {
    if (stopping.aborted) throw new ApiError(503, 'shutting_down', 'Sluice is stopping; the wait ended without an answer');
    throw error;
  });
}

/** The HTTP API's answer to a store failure: a damaged store 503 store_damaged, a full disk 507 disk_full, with the fix, as ingestion answers. */
function storeFailureAnswer(core: HttpApiCore, error: unknown): ApiError | null {
  const failure = core.storeFailureOf(error);
  return failure && new ApiError(failure.kind === 'damaged' ? 503 : 507, failure.code, failure.message);
}

/** Runs a channel's operation as the contract does (its schema validates the request); a refusal is a 4xx with its code and sentence. */
async function operation(core: HttpApiCore, channel: Channel, request: unknown): Promise<unknown> {
  const result = await invoke(core.operations, channel, request);
  if (result.ok) return result.value;
  const { code, message } = result.error;
  if (code === 'internal_error') throw new Error(message);
  throw new ApiError(code === 'invalid_request' || code === 'invalid_replay' ? 400 : code === 'not_found' || code === 'not_running' ? 404 : code === 'invalid_transform' ? 422 : 409, code, message);
}

const TRY_EXAMPLE = '{"messageId": "<a stored message\'s messageId>", "destination": "<its name>", "source": "<a transform, optional>"}';

/**
 * The stored message with this messageId (`encoded`: as the path carries it, percent-encoded), the
 * accepted one first, with its deliveries. An empty one is what a URL parser leaves of "." or "..": those
 * two cannot be a path segment, even percent-encoded, so the sentence names the list's exact filter.
 */
async function messageNamed(core: HttpApiCore, url: URL, encoded: string): Promise<unknown> {
  let messageId: string;
  try {
    messageId = decodeURIComponent(encoded);
  } catch {
    throw new ApiError(400, 'invalid_request', `${url.pathname} is not a valid percent-encoded messageId`);
  }
  if (messageId === '') throw new ApiError(404, 'not_found', `${url.pathname} names no messageId: put it after ${API_PREFIX}${MESSAGE_BY_ID}, percent-encoded; the ids "." and ".." cannot be a path segment, read them with ${API_PREFIX}messages?messageId=. or ?messageId=..`);
  const found = await core.queries.messageById(messageId);
  if (!found) throw new ApiError(404, 'not_found', `no stored message has messageId "${messageId}"`);
  return found;
}

/**
 * What a destination's filters and transform (saved, or `filters` / `source` given) make of a stored
 * message, found by its messageId, and the bodies it would send (transforms.try; nothing sent or stored).
 */
async function tryTransform(core: HttpApiCore, body: Record<string, unknown>): Promise<unknown> {
  const { messageId, destination, ...rest } = body;
  if (typeof messageId !== 'string' || typeof destination !== 'string') {
    throw new ApiError(400, 'invalid_request', `give "messageId" (a stored message's messageId) and "destination" (a destination's name), e.g. ${TRY_EXAMPLE}`);
  }
  const found = await core.queries.messageById(messageId);
  if (!found) throw new ApiError(404, 'not_found', `no stored message has messageId "${messageId}"`);
  const target = core.destinations.byName(destination);
  if (!target) throw new ApiError(404, 'not_found', `there is no destination called "${destination}"; GET /api/v1/deliveries names them, or see the config`);
  return operation(core, 'transforms.try', { ...rest, messageId: found.message.sequence, destinationId: target.id });
}

/** A destination named in a request, as its id (nothing when not named); 404 when there is none of that name. */
function destinationNamed(core: HttpApiCore, name: unknown): { destinationId?: number } {
  if (name === undefined) return {};
  const found = typeof name === 'string' ? core.destinations.byName(name) : undefined;
  if (!found) throw new ApiError(404, 'not_found', `there is no destination called ${JSON.stringify(name)}; the destinations are ${core.destinations.list().map((d) => `"${d.name}"`).join(', ')}`);
  return { destinationId: found.id };
}

const CHECK_EXAMPLE = '{"message": {"type": "track", "event": "Order Completed", "properties": {...}}, "source": "<a source\'s name, optional>"}';
const REPLAY_EXAMPLE = '{"messageIds": ["<a stored message\'s messageId>"], "destination": "<its name, optional>", "targetUrl": "<a URL instead, optional>"}';
/** Messages a replay names by messageId, at most (each is looked up). */
const MAX_REPLAY_IDS = 100;

/**
 * Sends stored messages again (deliveries.replay): named by their messageIds (at most 100), or
 * `allFailed`; through one destination named by `destination`, or every enabled destination of their
 * source; `targetUrl`, `dryRun` as the contract's.
 */
async function replay(core: HttpApiCore, body: Record<string, unknown>): Promise<unknown> {
  const { messageIds, destination, ...rest } = body;
  const request: Record<string, unknown> = { ...rest };
  if (messageIds !== undefined) {
    if (!Array.isArray(messageIds) || messageIds.length === 0 || messageIds.length > MAX_REPLAY_IDS || !messageIds.every((id) => typeof id === 'string')) {
      throw new ApiError(400, 'invalid_request', `messageIds is a list of 1 to ${MAX_REPLAY_IDS} stored messages' messageIds, e.g. ${REPLAY_EXAMPLE}`);
    }
    const sequences: number[] = [];
    for (const messageId of messageIds as string[]) {
      const found = await core.queries.messageById(messageId);
      if (!found) throw new ApiError(404, 'not_found', `no stored message has messageId "${messageId}"`);
      sequences.push(found.message.sequence);
    }
    request.messageIds = sequences;
  }
  return operation(core, 'deliveries.replay', { ...request, ...destinationNamed(core, destination) });
}

/**
 * `GET /api/v1/export`: the messages a filter picks as `sluice export` writes them (format=ndjson), or
 * their webhook attempts as HAR 1.2 (format=har), streamed a page at a time (transfer/export-stream.ts).
 * Read on a read-only connection of its own, opened for the export: the core's connections are its
 * repos' (not shared out), and a reader of its own holds no lock the writer or the checkpointer waits on.
 */
async function exportStream(core: HttpApiCore, res: ServerResponse, url: URL, stopping: AbortSignal): Promise<void> {
  const param = (name: string): string | undefined => optional(url, name)[name];
  const format = param('format') ?? 'ndjson';
  if (format !== 'ndjson' && format !== 'har') throw new ApiError(400, 'invalid_request', `format must be ndjson (the messages) or har (their webhook attempts), not "${format}"`);
  const filter: Parameters<HttpApiCore['exportTo']>[2] = {};
  const now = Date.now();
  for (const name of ['since', 'until'] as const) {
    const text = param(name);
    if (text === undefined) continue;
    const ms = parseWhen(text, now);
    if (ms === undefined) throw new ApiError(400, 'invalid_request', `${name} must be ${WHEN_FORMS}; not "${text}"`);
    filter[name] = ms;
  }
  const source = param('source');
  if (source !== undefined) {
    const found = core.sources.byName(source);
    if (!found) throw new ApiError(400, 'invalid_request', `there is no source "${source}"; the sources are ${core.sources.list().map((s) => `"${s.name}"`).join(', ')}`);
    filter.sourceId = found.id;
  }
  const status = param('status');
  if (status !== undefined && !(MESSAGE_STATUSES as readonly string[]).includes(status)) throw new ApiError(400, 'invalid_request', `status must be one of ${MESSAGE_STATUSES.join(', ')}`);
  const delivery = param('delivery');
  if (delivery !== undefined && !([...DELIVERY_STATUSES, 'none'] as string[]).includes(delivery)) {
    throw new ApiError(400, 'invalid_request', `delivery must be one of ${DELIVERY_STATUSES.join(', ')} or none`);
  }
  const destination = param('destination');
  if (destination !== undefined) {
    if (format !== 'har') throw new ApiError(400, 'invalid_request', 'destination picks webhook attempts: give it with format=har');
    const found = core.destinations.byName(destination);
    if (!found) throw new ApiError(400, 'invalid_request', `there is no destination "${destination}"`);
    filter.destinationId = found.id;
  }
  // The rest as the inspector's filter holds them (shared/message-filter.ts), so that its download is the set it shows.
  const texts = { status: status as MessageStatus | undefined, delivery, event: param('event'), type: param('type'), userId: param('userId'), search: param('search'), plan: param('plan') };
  for (const [key, value] of Object.entries(texts)) if (value !== undefined) Object.assign(filter, { [key]: value });
  const violations = filterOf(url).violations;
  if (violations !== undefined) filter.violations = violations as boolean;
  try {
    await core.exportTo(res, format, filter, stopping, now);
  } catch (error) {
    // Once the lines have started, an error can only cut the download short, never turn it into JSON.
    if (res.headersSent) res.destroy();
    throw error;
  }
}

/**
 * The order GET /messages lists in: `oldest` first (the default: a test reads on from where it was) or
 * `newest` first (as the inspector shows them: what was just sent comes first). `afterSequence` reads
 * on from a message towards the newer ones: oldest first only.
 */
function listOrder(url: URL): 'oldest' | 'newest' {
  const order = url.searchParams.get('order') ?? 'oldest';
  if (order !== 'oldest' && order !== 'newest') throw new ApiError(400, 'invalid_request', `order must be "oldest" (the default) or "newest"; not "${order.slice(0, 40)}"`);
  if (order === 'newest' && url.searchParams.has('afterSequence')) {
    throw new ApiError(400, 'invalid_request', 'afterSequence reads on towards the newer messages, oldest first: leave out order=newest, or page newest first with after (a page\'s "next")');
  }
  return order;
}

/**
 * In the list's order (oldest first unless GET /messages' `order` says newest), `limit` at a time
 * after the cursor `after`; `next` is the cursor for the following page: "<generation>:<row id>",
 * given back as `after` with the same parameters. A reset gives row ids again from 1, so a cursor from
 * before one is refused (409 stale_cursor) rather than silently skipping the new rows. Messages also
 * start after one of them: `afterSequence`, a message's `sequence`. `read` gives the page after an
 * id: its items, the id of its last and whether more follow.
 */
async function page(
  res: ServerResponse, url: URL, generation: number,
  read: (after: number, limit: number) => Promise<{ items: unknown[]; lastId: number | undefined; more: boolean }>, key: string,
  order: 'oldest' | 'newest' = 'oldest',
): Promise<void> {
  const limitText = url.searchParams.get('limit');
  const limit = limitText === null ? MAX_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new ApiError(400, 'invalid_request', `limit must be a whole number from 1 to ${MAX_LIMIT}`);
  const afterText = url.searchParams.get('after');
  const afterSequence = url.searchParams.get('afterSequence');
  let after = 0;
  if (afterSequence !== null) {
    // A message's own `sequence` (of this generation: a test's messages since its reset), where a page's
    // cursor is the list's; a client that holds a message starts there without a cursor's format.
    if (afterText !== null) throw new ApiError(400, 'invalid_request', 'give after (a page\'s "next") or afterSequence (a message\'s "sequence"), not both');
    if (!/^\d{1,15}$/.test(afterSequence)) throw new ApiError(400, 'invalid_request', `afterSequence must be a message's "sequence", a whole number; not "${afterSequence.slice(0, 40)}"`);
    after = Number(afterSequence);
  } else if (afterText !== null) {
    // A newest-first page's cursor says so: given back in the other order it would read on the wrong way
    // (skipping or repeating messages), so it is refused, naming the order it came from.
    const cursor = /^(\d+):(\d+)(:newest)?$/.exec(afterText);
    if (!cursor) throw new ApiError(400, 'invalid_request', 'after must be the "next" of a previous page');
    if (Number(cursor[1]) !== generation) throw new ApiError(409, 'stale_cursor', 'Sluice was reset, or its newest messages were removed (a clear, a purge), since that page: start again without "after"');
    const cursorOrder = cursor[3] ? 'newest' : 'oldest';
    if (cursorOrder !== order) {
      throw new ApiError(400, 'invalid_request', cursorOrder === 'newest'
        ? 'that "next" came from a page listed newest first: give it with order=newest'
        : `that "next" came from a page listed oldest first: give it without ${key === 'messages' ? 'order=newest' : 'an order'}`);
    }
    after = Number(cursor[2]);
  }
  const { items, lastId, more } = await read(after, limit);
  send(res, 200, { [key]: items, next: more && lastId !== undefined ? `${generation}:${lastId}${order === 'newest' ? ':newest' : ''}` : null });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(text);
}

/**
 * The counts, and `store`: the background check of the whole store and damage found while running,
 * with the fix. A damaged store the counts run into is answered 503 store_damaged — with `store` still.
 */
async function stats(core: HttpApiCore, res: ServerResponse): Promise<void> {
  try {
    send(res, 200, { ...(await core.queries.stats()), store: core.health.view() });
  } catch (error) {
    const failure = storeFailureAnswer(core, error);
    if (!failure) throw error;
    send(res, failure.status, { error: { code: failure.code, message: failure.message }, store: core.health.view() });
  }
}
