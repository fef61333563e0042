// `sluice mcp`'s tools that only read: each one request (or two) of the relay's HTTP API, its answer
// made compact. The descriptions and schemas are what an agent reads to use them: they say the query
// language, the units, the limits and what comes back.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TrackingPlanView, Violation } from '../../shared/tracking-plan.ts';
import { explainViolations } from './explain.ts';
import { RelayError, type RelayApi } from './relay-api.ts';
import { answer, answerPage } from './tool-result.ts';

/** What a stored message looks like in an answer: the message as the client sent it (its batch's context merged in) plus what Sluice made of it. */
export const STORED_MESSAGE = 'the message as the client sent it (with its batch\'s context, integrations and sentAt merged in, its own keys winning) plus sequence (its place in the stored order), receivedAt, source (the source\'s name), status (accepted, rejected or duplicate), rejection, violations (each {type, path, message, plan}), blocked and warning';

const QUERY_LANGUAGE = `Query language (all clauses must hold, separated by spaces): words match anywhere in the message's JSON (Order Completed; "ord_123" keeps words together; the last word may be a prefix of 3+ characters); field:value compares a field, case-insensitive: event:"Order Completed", type:identify, userId:u_*, anonymousId, messageId, source, origin (ingest, client, audience, plan), violations:yes|no, plan:NAME (breaks that tracking plan), status:accepted|rejected|duplicate|pending|retrying|delivered|failed|skipped|cancelled|none (the message's outcome), delivery:"DEST:STEP" (its delivery to destination DEST is at STEP: received, skipped, attempted, pending, delivered, retrying, failed, cancelled), pinned:true; a payload field by path: properties.plan:pro, traits.email:*, context.app.version:2.*, properties.items.0.sku:x; numbers compared: properties.price:>=10 (>, >=, <, <=); * is any characters; a leading minus excludes: -type:identify.`;

const messageId = z.string().min(1).max(1000).describe('A stored message\'s messageId (as the client sent it, or as Sluice gave it)');
const limit = z.number().int().min(1).max(100).default(20).describe('How many to return, 1 to 100 (default 20)');
const after = z.string().max(100).optional().describe('The "next" cursor of a previous answer, to read the following page');

const MESSAGE_FILTER = z
  .strictObject({
    type: z.enum(['track', 'identify', 'page', 'screen', 'group', 'alias']).optional(),
    event: z.string().max(1024).optional().describe("A track's event name, exact (a page's or screen's name is not an event: find those with search_messages, event:Home)"),
    userId: z.union([z.string(), z.number()]).optional(),
    anonymousId: z.union([z.string(), z.number()]).optional(),
    messageId: z.string().max(1000).optional(),
    source: z.string().max(100).optional().describe('The source\'s name'),
    status: z.enum(['accepted', 'rejected', 'duplicate']).optional().describe('Default: accepted messages only'),
    origin: z.enum(['ingest', 'audience', 'plan']).optional().describe('plan = Violation Generated events, matched only when named'),
    properties: z.record(z.string(), z.unknown()).optional().describe('Matched in part: every key given must be there with the same value (deeply)'),
    traits: z.record(z.string(), z.unknown()).optional().describe('Matched in part, as properties'),
    context: z.record(z.string(), z.unknown()).optional().describe('Matched in part, as properties'),
    violations: z.boolean().optional().describe('true: only messages that break a tracking plan; false: only those that do not'),
  })
  .describe('Every field given must match; {} matches any message');

const EVENT = z
  .looseObject({
    type: z.enum(['track', 'identify', 'page', 'screen', 'group', 'alias']),
    event: z.string().max(1024).optional().describe('The track event\'s name (required for track)'),
    properties: z.record(z.string(), z.unknown()).optional(),
    traits: z.record(z.string(), z.unknown()).optional(),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('A Segment message as a client would send it: {"type": "track", "event": "Order Completed", "properties": {...}}');

type Delivery = Record<string, unknown> & { message?: Record<string, unknown> | null };

/** A delivery without its message's body (the caller has it, or get_message gives it): what names the message stays. */
function lean(delivery: Delivery): Delivery {
  const { message, ...rest } = delivery;
  return message ? { ...rest, message: { messageId: message.messageId, sequence: message.sequence, type: message.type, event: message.event } } : rest;
}

type Stored = Record<string, unknown> & { sequence: number; origin: string; status: string; violations: Violation[]; blocked: string | null };

/**
 * The stored message with this messageId (the accepted one first) and its deliveries, in one request:
 * `GET /messages/by-id/{messageId}`, which no other endpoint's path can be (`/messages/stream` and
 * `/messages/wait` are, for the ids `stream` and `wait`, under the older `/messages/{messageId}`).
 * "." and ".." cannot be a path segment (URL parsers resolve them, even percent-encoded): those two are
 * read through the list's exact filter, a Violation Generated event (origin plan) only when its origin
 * is named, so asked last, and their deliveries page after page.
 */
async function storedMessage(api: RelayApi, messageId: string, signal: AbortSignal): Promise<{ message: Stored; deliveries: Delivery[] }> {
  if (messageId !== '.' && messageId !== '..') return api.get(`/messages/by-id/${encodeURIComponent(messageId)}`, {}, signal);
  for (const query of [{ messageId, status: 'accepted' }, { messageId }, { messageId, origin: 'plan' }]) {
    const [message] = (await api.get<{ messages: Stored[] }>('/messages', { ...query, limit: 1 }, signal)).messages;
    if (message) return { message, deliveries: await deliveriesOf(api, messageId, message, signal) };
  }
  throw new RelayError('not_found', `no stored message has messageId "${messageId}"`);
}

/** Every delivery of that message (its messageId's, of its origin, page after page), without any other copy's. */
async function deliveriesOf(api: RelayApi, messageId: string, message: Stored, signal: AbortSignal): Promise<Delivery[]> {
  const found: Delivery[] = [];
  let after: string | undefined;
  do {
    const page = await api.get<{ deliveries: Delivery[]; next: string | null }>('/deliveries', { messageId, origin: message.origin, after }, signal);
    found.push(...page.deliveries.filter((d) => d.message?.sequence === message.sequence));
    after = page.next ?? undefined;
  } while (after !== undefined);
  return found;
}

export function registerReadTools(server: McpServer, api: RelayApi): void {
  server.registerTool(
    'search_messages',
    {
      title: 'Search stored messages',
      description: `Lists the messages the Sluice relay stored (analytics events: track, identify, page, screen, group, alias) that a query matches, newest first (what the app just sent comes first; sequence gives the stored order). Returns {"messages": [...], "next": cursor or null}; each message is ${STORED_MESSAGE}. Give "next" as "after" for the following page: the next older ones. ${QUERY_LANGUAGE} A query that does not parse is an error saying why.`,
      inputSchema: z.strictObject({ query: z.string().max(1000).optional().describe('A query in the language above; omit for every message'), limit, after }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, limit, after }, { signal }) =>
      answerPage((fits) => api.get('/messages', { search: query, limit: fits ?? limit, after, order: 'newest' }, signal), 'narrow the query, lower limit, or read one message with get_message'),
  );

  server.registerTool(
    'get_message',
    {
      title: 'Get one message with its deliveries',
      description: `One stored message by its messageId, with every delivery Sluice made of it (one per webhook destination, plus replays): {"message": {...}, "deliveries": [{id, destination, status (pending, retrying, delivered, failed, skipped, cancelled), trigger (automatic, replay, …), attemptCount, lastError, skipReason, shaping, body (the JSON body sent), attempts: [{url, startedAt, durationMs, status (the HTTP status), error, outcome}]}]}. The message is ${STORED_MESSAGE}. A delivery may still be pending right after the message is stored: call again to see it attempted. Unknown messageId: an error.`,
      inputSchema: z.strictObject({ messageId }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ messageId }, { signal }) =>
      answer(async () => {
        const { message, deliveries } = await storedMessage(api, messageId, signal);
        return { message, deliveries: deliveries.map(({ message: _, ...rest }) => rest) };
      }, 'long values are in the inspector, or export the message'),
  );

  server.registerTool(
    'wait_for_message',
    {
      title: 'Wait for a message to arrive',
      description: `Waits until the relay has stored \`count\` messages matching the filter (those stored before the call count too), then returns them: {"messages": [...]}, each ${STORED_MESSAGE}. Use it after making the app send an event. When timeoutMs passes first, it is an error whose text says what was expected and which stored messages came closest, field by field. The filter matches fields exactly (not the query language): {"event": "Order Completed", "properties": {"plan": "pro"}}.`,
      inputSchema: z.strictObject({
        filter: MESSAGE_FILTER,
        count: z.number().int().min(1).max(1000).default(1).describe('How many matching messages to wait for (default 1)'),
        timeoutMs: z.number().int().min(1).max(300_000).default(10_000).describe('Milliseconds to wait at most, 1 to 300000 (default 10000)'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ filter, count, timeoutMs }, { signal }) => answer(() => api.post('/messages/wait', { filter, count, timeoutMs }, signal)),
  );

  server.registerTool(
    'list_deliveries',
    {
      title: 'List webhook deliveries',
      description: `Lists deliveries (Sluice's signed POSTs of messages to webhook destinations, with retries), oldest first: {"deliveries": [{id, destination, status, trigger, attemptCount, lastError, skipReason, shaping, body, attempts: [{url, startedAt, durationMs, status, error, outcome}], message: {messageId, sequence, type, event}}], "next"}. Filters combine: destination (a destination's name), status (the delivery's), and query: the deliveries of the messages it matches. ${QUERY_LANGUAGE}`,
      inputSchema: z.strictObject({
        destination: z.string().max(100).optional().describe('A destination\'s name'),
        status: z.enum(['pending', 'retrying', 'delivered', 'failed', 'skipped', 'cancelled']).optional(),
        query: z.string().max(1000).optional().describe('Picks the messages whose deliveries are listed'),
        limit,
        after,
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ destination, status, query, limit, after }, { signal }) =>
      answerPage(async (fits) => {
        const page = await api.get<{ deliveries: Delivery[]; next: string | null }>('/deliveries', { destination, status, search: query, limit: fits ?? limit, after }, signal);
        return { deliveries: page.deliveries.map(lean), next: page.next };
      }),
  );

  server.registerTool(
    'stats',
    {
      title: 'Counts of stored messages and deliveries',
      description: 'What the relay holds: {"messages": {by status and type}, "deliveries": {by status}, "store": {the background integrity check and any damage found, with the fix}}. Reads counts Sluice keeps, never every message: quick at any size.',
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (_args, { signal }) => answer(() => api.get('/stats', {}, signal)),
  );

  server.registerTool(
    'check_event',
    {
      title: 'Check an event against the tracking plans',
      description: 'Checks a message against the tracking plans the relay has loaded, without sending or storing it: {"plans": [names of the plans that checked it], "violations": [{type (Unplanned-Event, Required-Missing, Datatype-Mismatch, Additional-Properties, Unknown-Violation), path (JSON Pointer into the message), message (what is wrong), plan}], "conforms": true when there is none}. "plans": [] means no plan checks it (none loaded, or none for that source). Use it before changing tracking code, or to try a fix.',
      inputSchema: z.strictObject({ event: EVENT, source: z.string().min(1).max(100).optional().describe('A source\'s name: only the plans that check that source; omit for every plan') }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ event, source }, { signal }) =>
      answer(async () => {
        const checked = await api.post<{ plans: string[]; violations: Violation[] }>('/plans/check', { message: event, ...(source !== undefined ? { source } : {}) }, signal);
        return { ...checked, conforms: checked.violations.length === 0 };
      }),
  );

  server.registerTool(
    'explain_violation',
    {
      title: 'Explain a stored message\'s violations',
      description: 'Explains why a stored message broke its tracking plans: {"messageId", "event", "violations": [{type, plan, path, sentence (what is wrong), rule (the plan\'s JSON Schema at that place, or the events the plan lists), fix (what to change: the call or the plan, naming the plan file), planFile}], "blocked" (why its deliveries were skipped, or null)}. A message without violations answers "violations": [] and says so.',
      inputSchema: z.strictObject({ messageId }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ messageId }, { signal }) =>
      answer(async () => {
        const { message } = await storedMessage(api, messageId, signal);
        const base = { messageId: message.messageId, type: message.type, event: message.event ?? null, blocked: message.blocked };
        if (message.violations.length === 0) return { ...base, violations: [], note: 'this message broke no tracking plan (or no plan checked its source when it was stored)' };
        const { plans } = await api.get<{ plans: TrackingPlanView[] }>('/plans', {}, signal);
        return { ...base, violations: explainViolations(message, message.violations, plans) };
      }),
  );
}
