import { randomUUID } from 'node:crypto';
import { MAX_BATCH_EVENTS, MAX_NESTING_DEPTH, SEGMENT_MAX_MESSAGE_BYTES, segmentWarning } from '../../../shared/limits.ts';
import { MESSAGE_TYPES, isTime, parseTime, validateMessage, type IncomingMessage, type Rejection } from '../../../shared/messages.ts';
import { mergedIntegrations, webhooksSkipReason } from '../../../shared/integrations.ts';
import { idText } from '../../../shared/message-match.ts';
import { nestingDepth, scanBatch, withoutMember } from './batch-slices.ts';
import { IngestError, unknownWriteKey } from './ingest-error.ts';
import { correctedTimestamp, type BatchEnvelope, type RequestInfo } from '../store/normalize.ts';
import type { PreparedMessage, PreparedRequest } from '../store/stored-request.ts';
import type { IngestJob } from '../writer/protocol.ts';
import { jsonErrorPlace, jsonProblem } from '../../../shared/json-error-place.ts';
import type { PlanChecks } from '../plans/plan-checks.ts';
import { isViolationEvent, violationEvents } from '../plans/violation-event.ts';

const KNOWN_TYPES = new Set<string>(MESSAGE_TYPES);

/**
 * Parses and validates one request and prepares its rows. Throws IngestError for a request that is
 * refused as a whole; a batch's invalid events become `rejected` rows with their reason.
 */
export function prepareRequest(
  job: IngestJob,
  sourceForWriteKey: (writeKey: string) => number | undefined,
  plans?: PlanChecks,
): PreparedRequest {
  const text = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength).toString('utf8');
  const body = parseJson(text);
  const sourceId = job.sourceId ?? sourceFromBody(body, sourceForWriteKey);

  let events: unknown[];
  let raws: (string | undefined)[];
  let envelope: BatchEnvelope = {};
  // Only when something in the body nests too deeply is each message measured on its own.
  let measureDepth: boolean;
  if (job.singleType) {
    raws = [text];
    events = [body];
    (events[0] as Record<string, unknown>).type = job.singleType;
    measureDepth = true;
  } else {
    ({ events, envelope } = readBatch(body));
    const { slices, maxDepth } = scanBatch(text);
    measureDepth = maxDepth > MAX_NESTING_DEPTH + 2; // + the body object and the batch array
    // Batch-level context and integrations are merged into each message (one level down): they may
    // not nest deeper than a message may. They sit one level under the body object: only a document
    // deeper than a message may be can hold one too deep.
    if (maxDepth > MAX_NESTING_DEPTH) {
      for (const field of ['context', 'integrations'] as const) {
        if (nestsDeeper(envelope[field], MAX_NESTING_DEPTH - 1)) {
          throw new IngestError(400, 'invalid_batch', `batch-level "${field}" nests more than ${MAX_NESTING_DEPTH - 1} levels deep`);
        }
      }
    }
    raws =
      slices && slices.length === events.length * 2
        ? events.map((_, i) => text.slice(slices[2 * i], slices[2 * i + 1]))
        : events.map(() => undefined); // unusual formatting: serialize instead
  }
  // The write key is a credential, not part of the message (analytics.js puts it in each event, single
  // call or batch): one rule, it is kept out of what is stored, the rest of the text left as sent.
  events.forEach((event, i) => {
    if (typeof event !== 'object' || event === null || !Object.hasOwn(event, 'writeKey')) return;
    delete (event as Record<string, unknown>).writeKey;
    const raw = raws[i];
    if (raw !== undefined) raws[i] = withoutMember(raw, 'writeKey');
  });
  // Segment's limit for a batch (a single call is one message: its own limit says it).
  const batchBytes = job.singleType ? null : job.body.byteLength;
  const request: RequestInfo = {
    envelope,
    receivedAt: job.receivedAt,
    sentAt: envelope.sentAt === undefined ? null : parseTime(envelope.sentAt),
    ip: job.ip,
  };
  if (job.via?.length) envelope.via = job.via;
  if (job.imported) envelope.imported = true;
  let forwarded = 0;
  const hasEnvelope =
    envelope.context !== undefined || envelope.integrations !== undefined || envelope.sentAt !== undefined || envelope.via !== undefined || envelope.imported !== undefined;
  return {
    sourceId,
    endpoint: job.endpoint,
    receivedAt: job.receivedAt,
    sentAt: request.sentAt,
    ip: job.ip,
    envelope: hasEnvelope ? JSON.stringify(envelope) : null,
    // What this request's Violation Generated events carry of it: the Sluices it came through, no more.
    generatedEnvelope: envelope.via ? JSON.stringify({ via: envelope.via } satisfies BatchEnvelope) : null,
    messages: events.map((event, i) => {
      const prepared = prepareMessage(event, raws[i], request, measureDepth, batchBytes);
      if (plans && !plans.empty && prepared.status === 'accepted') {
        checkPlans(plans, sourceId, event as IncomingMessage, envelope, prepared, job.receivedAt);
        if (prepared.generated && (forwarded += prepared.generated.length) > FORWARD_PER_REQUEST) {
          prepared.generated = prepared.generated.slice(0, Math.max(0, prepared.generated.length - (forwarded - FORWARD_PER_REQUEST)));
          forwarded = FORWARD_PER_REQUEST;
        }
      }
      return prepared;
    }),
  };
}

/**
 * Violation Generated events one request may make, at most (see FORWARD_PER_MESSAGE): the rest of its
 * violations are stored with their messages, not forwarded.
 */
const FORWARD_PER_REQUEST = 500;

/**
 * Checks an accepted message against its source's tracking plans (plans/plan-checks.ts) and notes
 * the verdict on it: its violations, why it is blocked, the `Violation Generated` events to store.
 * The context checked is the one the client sent (batch-level context merged in, as Sluice forwards it).
 */
function checkPlans(plans: PlanChecks, sourceId: number, input: IncomingMessage, envelope: BatchEnvelope, prepared: PreparedMessage, now: number): void {
  const context = envelope.context ? { ...envelope.context, ...input.context } : input.context;
  const verdict = plans.check(sourceId, {
    type: input.type,
    event: (input as { event?: unknown }).event,
    properties: (input as { properties?: unknown }).properties,
    traits: (input as { traits?: unknown }).traits,
    context,
  });
  if (!verdict) return;
  prepared.violations = JSON.stringify(verdict.violations);
  prepared.violatedPlans = [...new Set(verdict.violations.map((v) => v.plan))];
  prepared.blocked = verdict.blocked;
  // A forwarded violation breaks this plan too, but a violation of it is never made (isViolationEvent).
  if (verdict.forward.length > 0 && !isViolationEvent(input)) {
    const app = (context as { app?: { version?: unknown } } | undefined)?.app;
    const violating = {
      messageId: prepared.messageId!,
      type: input.type,
      event: prepared.event,
      sentAt: input.sentAt ?? envelope.sentAt ?? null,
      timestamp: input.timestamp ?? null,
      appVersion: typeof app?.version === 'string' ? app.version : null,
    };
    prepared.generated = verdict.forward.flatMap(({ destinationId, rule, violations }) =>
      violationEvents(violating, rule, sourceId, violations, now).map((message) => ({ destinationId, message })),
    );
  }
}

function prepareMessage(event: unknown, raw: string | undefined, request: RequestInfo, measureDepth: boolean, batchBytes: number | null): PreparedMessage {
  let text: string;
  try {
    text = raw ?? JSON.stringify(event) ?? 'null';
  } catch {
    // JSON.stringify recurses: thousands of nested arrays overflow the stack (JSON.parse does not).
    return rejected(event, '{"_sluice":{"unserializable":true}}', tooDeep());
  }
  if ((measureDepth || raw === undefined) && nestingDepth(text) > MAX_NESTING_DEPTH) {
    return rejected(event, JSON.stringify({ _sluice: { tooDeep: true }, preview: text.slice(0, 2048) }), tooDeep());
  }
  // No limit of its own but its request's (shared/limits.ts): what Segment would refuse is said instead.
  // UTF-8 needs at most 3 bytes per UTF-16 unit: only long texts need counting.
  const bytes = text.length * 3 <= SEGMENT_MAX_MESSAGE_BYTES ? text.length : Buffer.byteLength(text);
  const warning = segmentWarning(bytes, batchBytes);
  const result = validateMessage(event);
  if (!result.ok) return { ...rejected(event, text, result.rejection), warning };
  const input = result.message;
  const timestamp = correctedTimestamp(input, request);
  if (!isTime(timestamp)) {
    const rejection: Rejection = {
      code: 'invalid_timestamp',
      message: 'timestamp corrected by sentAt (receivedAt − (sentAt − timestamp)) falls outside the years 1 to 9999',
    };
    return { ...rejected(event, text, rejection), warning };
  }
  const name = input.type === 'track' ? input.event : input.type === 'page' || input.type === 'screen' ? input.name : null;
  return {
    messageId: input.messageId ?? `sluice-${randomUUID()}`,
    type: input.type,
    status: 'accepted',
    rejectCode: null,
    rejectReason: null,
    userId: idText(input.userId),
    anonymousId: idText(input.anonymousId),
    event: name ?? null,
    timestamp,
    raw: text,
    skipReason: webhooksSkipReason(mergedIntegrations(input, request.envelope.integrations, request.envelope.context)),
    warning,
  };
}

function tooDeep(): Rejection {
  return { code: 'invalid_message', message: `the message nests more than ${MAX_NESTING_DEPTH} levels deep` };
}

/** A rejected event is kept, with its reason, so the inspector can show what went wrong. */
function rejected(event: unknown, raw: string, rejection: Rejection): PreparedMessage {
  const fields = typeof event === 'object' && event !== null && !Array.isArray(event) ? (event as Record<string, unknown>) : {};
  return {
    messageId: typeof fields.messageId === 'string' ? fields.messageId.slice(0, 256) : null,
    type: typeof fields.type === 'string' && KNOWN_TYPES.has(fields.type) ? fields.type : null,
    status: 'rejected',
    rejectCode: rejection.code,
    rejectReason: rejection.message,
    userId: idText(fields.userId),
    anonymousId: idText(fields.anonymousId),
    event: typeof fields.event === 'string' ? fields.event.slice(0, 1024) : null,
    timestamp: null,
    raw,
    skipReason: null,
  };
}

function parseJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Where it breaks, with the lines around it: the stored entry keeps only the body's start.
    const place = jsonErrorPlace(text);
    const where = place ? ` at line ${place.line}, column ${place.column}` : '';
    throw Object.assign(new IngestError(400, 'invalid_json', `the body is not valid JSON${where}: ${jsonProblem((error as Error).message)}`), place ? { jsonError: place } : {});
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new IngestError(400, 'invalid_body', 'the body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function sourceFromBody(body: Record<string, unknown>, sourceForWriteKey: (writeKey: string) => number | undefined): number {
  const writeKey = body.writeKey;
  if (typeof writeKey !== 'string' || writeKey === '') {
    throw new IngestError(
      401,
      'missing_write_key',
      'no write key: send it as the Basic auth username (empty password) or as "writeKey" in the body',
    );
  }
  const sourceId = sourceForWriteKey(writeKey);
  if (sourceId === undefined) throw unknownWriteKey();
  return sourceId;
}

function readBatch(body: Record<string, unknown>): { events: unknown[]; envelope: BatchEnvelope } {
  const { batch, context, integrations, sentAt } = body;
  if (!Array.isArray(batch)) throw new IngestError(400, 'invalid_batch', '"batch" must be an array of messages');
  if (batch.length > MAX_BATCH_EVENTS) {
    throw new IngestError(
      400,
      'too_many_events',
      `a batch holds at most ${MAX_BATCH_EVENTS} messages; this one has ${batch.length}`,
    );
  }
  const envelope: BatchEnvelope = {};
  if (context !== undefined) envelope.context = batchObject(context, 'context');
  if (integrations !== undefined) envelope.integrations = batchObject(integrations, 'integrations');
  if (sentAt !== undefined) {
    if (typeof sentAt !== 'string' || !isTime(parseTime(sentAt))) {
      throw new IngestError(400, 'invalid_batch', '"sentAt" must be an ISO 8601 date string');
    }
    envelope.sentAt = sentAt;
  }
  return { events: batch, envelope };
}

function batchObject(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new IngestError(400, 'invalid_batch', `batch-level "${field}" must be an object`);
  }
  return value as Record<string, unknown>;
}

/** Whether `value` nests deeper than `limit` (an object is 1). Iterative: a recursive walk would overflow on what JSON.parse accepts. */
function nestsDeeper(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}
