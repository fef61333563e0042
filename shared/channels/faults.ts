/**
 * The contract's channels of fault injection (`faults.*`): the ingestion endpoint answers a test's
 * chosen failure (a 503, a 429 with Retry-After, a slow answer, a connection closed unanswered) so that
 * a client's retry and offline paths can be tested. The policy is electron/core/faults/, the mechanism
 * electron/core/ingest/fault-answers.ts. Composed into shared/contract.ts.
 */
import { z } from 'zod';

/** The statuses a fault may answer: what a Tracking API answers when it is down or limits a client. */
export const FAULT_STATUSES = [429, 500, 503] as const;
/** The Tracking API endpoints a fault may be scoped to (a one-letter path of analytics.js counts as its endpoint: /v1/t is /v1/track). */
export const FAULT_PATHS = ['/v1/track', '/v1/identify', '/v1/page', '/v1/screen', '/v1/group', '/v1/alias', '/v1/batch', '/v1/import'] as const;
/** Bounds: no input may hold a request past a minute, stay for more than an hour, or pile up faults without end. */
export const FAULT_LIMITS = { maxDelayMs: 60_000, maxForMs: 3_600_000, maxTimes: 1_000, maxRetryAfter: 3_600, maxActive: 20, recorded: 100 } as const;

const { maxDelayMs, maxForMs, maxTimes, maxRetryAfter } = FAULT_LIMITS;
const whole = (name: string, min: number, max: number, unit: string) =>
  z.number({ error: `${name} must be a number of ${unit}` }).int(`${name} must be a whole number of ${unit}`).min(min, `${name} must be from ${min} to ${max.toLocaleString('en-US')} ${unit}`).max(max, `${name} must be from ${min} to ${max.toLocaleString('en-US')} ${unit}`);

/**
 * One fault: what the ingestion endpoint does to a request (`status`, `drop`, or only `delayMs`; a delay
 * may come before a status or a drop), to which requests (`path`, default every Tracking API endpoint),
 * and for how long (`times` requests and/or `forMs` on the relay's clock; without either, until cleared).
 */
export const ingestFaultSchema = z
  .strictObject({
    status: z.literal(FAULT_STATUSES, { error: `status must be ${FAULT_STATUSES.join(', ').replace(/, (\d+)$/, ' or $1')} (the answers of a Tracking API that is down or limits a client)` }).optional(),
    drop: z.literal(true, { error: 'drop must be true (the connection is closed without an answer)' }).optional(),
    delayMs: whole('delayMs', 1, maxDelayMs, 'ms').optional(),
    retryAfter: whole('retryAfter', 0, maxRetryAfter, 'seconds').optional(),
    times: whole('times', 1, maxTimes, 'requests').optional(),
    forMs: whole('forMs', 1, maxForMs, 'ms').optional(),
    path: z.enum(FAULT_PATHS, { error: `path must be one of ${FAULT_PATHS.join(', ')} (or left out: every Tracking API endpoint)` }).optional(),
  })
  .check((ctx) => {
    const fault = ctx.value;
    const issue = (message: string, path: string[] = []) => ctx.issues.push({ code: 'custom', input: fault, path, message });
    if (fault.status !== undefined && fault.drop) issue('give status or drop, not both: a dropped connection answers nothing', ['drop']);
    else if (fault.status === undefined && !fault.drop && fault.delayMs === undefined) issue('give status (429, 500 or 503), drop: true, or delayMs');
    if (fault.retryAfter !== undefined && fault.status === undefined) issue('retryAfter is the Retry-After header of an answer: give it with status', ['retryAfter']);
  });

/** A fault as given (ingestFaultSchema's input), spelled out so that sluice/testing's declarations carry no zod types. */
export interface IngestFault {
  status?: (typeof FAULT_STATUSES)[number];
  drop?: true;
  delayMs?: number;
  retryAfter?: number;
  times?: number;
  forMs?: number;
  path?: (typeof FAULT_PATHS)[number];
}
/** Compiles only while IngestFault is the schema's input exactly. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const INGEST_FAULT_IS_SCHEMA_INPUT: Same<IngestFault, z.input<typeof ingestFaultSchema>> = true;

/** An active fault as the relay holds it. */
export interface FaultView {
  id: number;
  status: number | null;
  drop: boolean;
  delayMs: number | null;
  retryAfter: number | null;
  /** The endpoint it applies to; null: every Tracking API endpoint. */
  path: string | null;
  /** Requests it applies to in all (null: no count), and those it was applied to so far. */
  times: number | null;
  applied: number;
  forMs: number | null;
  /** When it was added, and when it ends (null: not by time), ISO 8601 on the relay's clock. */
  addedAt: string;
  endsAt: string | null;
  /** ms left until endsAt (null: not by time): when to look again for it to be gone. */
  remainingMs: number | null;
}

/** A request a fault was applied to (the most recent FAULT_LIMITS.recorded are kept). Its body is never stored. */
export interface FaultedRequest {
  at: string;
  path: string;
  /** The source its write key names (Authorization, or the body's writeKey when the body was read); null when none or unknown. */
  source: string | null;
  faultId: number;
  /** What it got: `answered` (with `status`), `dropped` (closed unanswered), `delayed` (then handled as usual). */
  outcome: 'answered' | 'dropped' | 'delayed';
  status: number | null;
  delayMs: number | null;
  /** The body's size on the wire (Content-Length when the body was not read; null when neither is known). */
  bytes: number | null;
  /** The client's X-Retry-Count header (Segment's libraries send it on a retry), when given. */
  retryCount: number | null;
}

export interface FaultsView {
  /** Active faults, in the order they apply: a request gets the first one that is still active and matches its path. */
  faults: FaultView[];
  /** Recent faulted requests, oldest first. */
  faulted: FaultedRequest[];
}

export const faultRequestSchemas = {
  /** The active faults and the recent faulted requests. */
  'faults.list': z.strictObject({}),
  /** Adds a fault at the end of the list (ingestFaultSchema); at most FAULT_LIMITS.maxActive at once. */
  'faults.ingest': ingestFaultSchema,
  /**
   * Ends every active fault; requests held by a delay are let go at once. The record of faulted requests
   * stays (a reset forgets it), unless `forget` (the inspector's Clear: the notice goes).
   */
  'faults.clear': z.strictObject({ forget: z.boolean().default(false) }),
} as const;

export interface FaultResponses {
  'faults.list': FaultsView;
  'faults.ingest': FaultView;
  'faults.clear': { cleared: number };
}
