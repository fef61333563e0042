// Reading a request to the HTTP API (http-api.ts): which endpoint it is for and whether it may ask
// (the route table, its query parameters, the token and origin), its filter parameters and its JSON
// body — each refusal an ApiError with the status, code and sentence the client gets.
import type { IncomingMessage } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { STREAM_PARAMS } from './message-stream.ts';

export const API_PREFIX = '/api/v1/';
/** The route of one message by its messageId, percent-encoded after it, that no other endpoint's path can be. */
export const MESSAGE_BY_ID = 'messages/by-id/';
const MAX_BODY_BYTES = 64 * 1024;
/** The message filters of /messages and /deliveries (a test's filter, core/queries/filters.ts), and their search. */
const FILTER_PARAMS = ['type', 'event', 'userId', 'anonymousId', 'source', 'messageId', 'status', 'origin'] as const;
const LIST_PARAMS = [...FILTER_PARAMS, 'violations', 'search', 'limit', 'after'] as const;

/**
 * Each endpoint (as the OpenAPI document names it) with the query parameters it reads: any other is
 * refused (400 unknown_parameter), so that a misspelt filter is an error rather than no filter, which
 * would match every message.
 */
const ENDPOINTS: Record<string, readonly string[]> = {
  'GET /messages': [...LIST_PARAMS, 'afterSequence', 'order'],
  'GET /messages/stream': STREAM_PARAMS,
  'GET /messages/{messageId}': [],
  'GET /messages/by-id/{messageId}': [],
  'POST /messages/wait': [],
  'POST /deliveries/wait': [],
  'GET /deliveries': [...LIST_PARAMS, 'destination'],
  'GET /export': ['format', 'source', 'since', 'until', 'event', 'status', 'type', 'userId', 'violations', 'search', 'plan', 'delivery', 'destination'],
  'POST /reset': [],
  'GET /stats': [],
  'GET /overview': ['window'],
  'GET /plans/coverage': ['plan'],
  'GET /faults': [],
  'POST /faults': [],
  'DELETE /faults': [],
  'POST /transforms/try': [],
  'GET /issues': ['state', 'destination'],
  'POST /issues/{issueId}/retry': [],
  'POST /issues/retry': [],
  'GET /issues/retries': [],
  'DELETE /issues/retries/{jobId}': [],
  'GET /info': [],
  'GET /plans': [],
  'POST /plans/check': [],
  'POST /replay': [],
};

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/**
 * The endpoint a request is for (a key of ENDPOINTS); 404 or 405 when there is none. One message by its
 * messageId has two paths: `messages/by-id/{messageId}` reaches every id, because its prefix is matched
 * before the one-segment route, and `messages/stream` and `messages/wait` are whole paths that no id
 * under `by-id/` can be; `messages/{messageId}` (the older one, kept) reaches the ids that are not
 * `stream` or `wait`, which are the follow stream and the wait, nor start with `by-id/` unencoded (that
 * slash is the new path's: `by-id%2Fx` is the id `by-id/x` there).
 */
export function endpointOf(method: string, route: string, url: URL): string {
  const path =
    route === 'messages/wait' || route === 'messages/stream' ? `/${route}`
    : route.startsWith(MESSAGE_BY_ID) ? '/messages/by-id/{messageId}'
    : route.startsWith('messages/') ? '/messages/{messageId}'
    : /^issues\/[^/]+\/retry$/.test(route) ? '/issues/{issueId}/retry'
    : /^issues\/retries\/[^/]+$/.test(route) ? '/issues/retries/{jobId}'
    : `/${route}`;
  const endpoint = `${method} ${path}`;
  if (Object.hasOwn(ENDPOINTS, endpoint)) return endpoint;
  if (Object.keys(ENDPOINTS).some((known) => known.endsWith(` ${path}`))) throw new ApiError(405, 'method_not_allowed', `${method} is not allowed on ${url.pathname}`);
  throw new ApiError(404, 'not_found', `no such endpoint: ${url.pathname}; see the OpenAPI document (README, "HTTP API")`);
}

/** Refuses a query parameter the endpoint does not read, or one given twice (only one value would be read). */
export function checkParameters(url: URL, endpoint: string): void {
  const known = ENDPOINTS[endpoint]!;
  const seen = new Set<string>();
  for (const name of url.searchParams.keys()) {
    if (!known.includes(name)) {
      const valid = known.length > 0 ? `its parameters are ${known.join(', ')}` : 'it takes no query parameters';
      throw new ApiError(400, 'unknown_parameter', `${endpoint.replace(' /', ` ${API_PREFIX}`)} has no parameter "${name}": ${valid}`);
    }
    if (seen.has(name)) throw new ApiError(400, 'invalid_request', `"${name}" is given more than once: give it once`);
    seen.add(name);
  }
}

export function guard(req: IncomingMessage, token: string, origin: string): void {
  const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (given === undefined) throw new ApiError(401, 'unauthorized', 'send the token as "Authorization: Bearer <token>" (the token is in the --json ready line and the inspector URL)');
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) throw new ApiError(401, 'unauthorized', 'the token is not this Sluice\'s (each data folder keeps its own; sluice serve --new-token replaces it)');
  const from = req.headers.origin;
  if (from !== undefined && from !== origin) throw new ApiError(403, 'forbidden_origin', `requests from a page on ${from} are refused: the API is for test runners and scripts, not other sites`);
}

export function filterOf(url: URL): Record<string, string | boolean> {
  const filter: Record<string, string | boolean> = {};
  for (const name of FILTER_PARAMS) Object.assign(filter, optional(url, name));
  const violations = url.searchParams.get('violations');
  if (violations !== null) {
    if (violations !== 'true' && violations !== 'false') throw new ApiError(400, 'invalid_request', 'violations must be true (only messages that break a tracking plan) or false');
    filter.violations = violations === 'true';
  }
  return filter;
}

/**
 * A parameter's value, or nothing when it is not given. Given empty (`?event=`, as a script with an
 * unset variable writes it) is refused: read as "no filter" it would match every message.
 */
export function optional(url: URL, name: string): Record<string, string> {
  const value = url.searchParams.get(name);
  if (value === '') throw new ApiError(400, 'invalid_request', `"${name}" is empty: give it a value, or leave it out`);
  return value === null ? {} : { [name]: value };
}

export async function jsonBody(req: IncomingMessage, example = '{"filter": {...}, "count": 1, "timeoutMs": 5000}'): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ApiError(413, 'body_too_large', `a request body is at most ${MAX_BODY_BYTES / 1024} KB`);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_json', `the body is not JSON; send ${example}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ApiError(400, 'invalid_request', `the body is a JSON object, e.g. ${example}`);
  return body as Record<string, unknown>;
}
