import { z } from 'zod';
import { MAX_TIME, MIN_TIME } from './limits.ts';

/** Message types a source can send (seed §2.4, §6.1). `delete` is a notification Sluice creates itself. */
export const MESSAGE_TYPES = ['identify', 'track', 'page', 'screen', 'group', 'alias'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const MESSAGE_STATUSES = ['accepted', 'rejected', 'duplicate'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** Stable codes for a rejected event: shown in the UI and returned by the ingestion API. */
export type RejectCode =
  | 'invalid_message'
  | 'invalid_type'
  | 'missing_user'
  | 'missing_event'
  | 'missing_group_id'
  | 'missing_previous_id'
  | 'invalid_field'
  | 'invalid_timestamp'
  | 'message_too_large';

export interface Rejection {
  code: RejectCode;
  message: string;
}

const identifier = z.union([z.string().min(1).max(1024), z.number().finite()]);
/** userId and anonymousId may each be empty or null, as long as one of them is set (checked after). */
const userIdentifier = z.union([z.string().max(1024), z.number().finite()]).nullish();
const jsonObject = z.record(z.string(), z.unknown());
const isoTime = z.string().max(64).refine((s) => isTime(parseTime(s)), 'not an ISO 8601 date between the years 1 and 9999');

/** Fields every message may carry. Unknown keys are kept: Segment messages are open-ended. */
const common = {
  messageId: z.string().min(1).max(256).optional(),
  userId: userIdentifier,
  anonymousId: userIdentifier,
  context: jsonObject.optional(),
  integrations: jsonObject.optional(),
  timestamp: isoTime.optional(),
  sentAt: isoTime.optional(),
};

/** One schema per message type; the discriminated union is the shape ingestion accepts. */
export const incomingMessageSchema = z.discriminatedUnion('type', [
  z.looseObject({ ...common, type: z.literal('identify'), traits: jsonObject.optional() }),
  z.looseObject({
    ...common,
    type: z.literal('track'),
    event: z.string().min(1).max(1024),
    properties: jsonObject.optional(),
  }),
  z.looseObject({
    ...common,
    type: z.literal('page'),
    name: z.string().max(1024).nullish(),
    category: z.string().max(1024).nullish(),
    properties: jsonObject.optional(),
  }),
  z.looseObject({
    ...common,
    type: z.literal('screen'),
    name: z.string().max(1024).nullish(),
    category: z.string().max(1024).nullish(),
    properties: jsonObject.optional(),
  }),
  z.looseObject({ ...common, type: z.literal('group'), groupId: identifier, traits: jsonObject.optional() }),
  z.looseObject({ ...common, type: z.literal('alias'), previousId: identifier }),
]);

export type IncomingMessage = z.infer<typeof incomingMessageSchema>;

const MISSING_CODES: Partial<Record<string, RejectCode>> = {
  type: 'invalid_type',
  event: 'missing_event',
  groupId: 'missing_group_id',
  previousId: 'missing_previous_id',
};

export type ValidationResult =
  | { ok: true; message: IncomingMessage }
  | { ok: false; rejection: Rejection };

/**
 * Validates one event. The zod schema above is the definition; `conformsToSchema` is the same rules
 * written out by hand for ingestion's hot path (a test checks the two agree on generated inputs).
 * A valid event is returned as is, without a copy; an invalid one gets zod's verdict, turned into a
 * stable code and a sentence a developer can act on.
 */
export function validateMessage(input: unknown): ValidationResult {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return reject('invalid_message', 'each message must be a JSON object');
  }
  let message: IncomingMessage;
  if (conformsToSchema(input as Record<string, unknown>)) {
    message = input as IncomingMessage;
  } else {
    const parsed = incomingMessageSchema.safeParse(input);
    if (!parsed.success) return { ok: false, rejection: describeIssue(parsed.error.issues[0], input) };
    message = parsed.data;
  }
  if (!hasId(message.userId) && !hasId(message.anonymousId)) {
    return reject('missing_user', `${message.type} needs a userId or an anonymousId`);
  }
  return { ok: true, message };
}

/** True when `incomingMessageSchema` would accept `m` (without the userId/anonymousId rule). */
export function conformsToSchema(m: Record<string, unknown>): boolean {
  if (
    !optionalText(m.messageId, 1, 256) ||
    !optionalUserIdentifier(m.userId) ||
    !optionalUserIdentifier(m.anonymousId) ||
    !optionalObject(m.context) ||
    !optionalObject(m.integrations) ||
    !optionalTime(m.timestamp) ||
    !optionalTime(m.sentAt)
  ) {
    return false;
  }
  switch (m.type) {
    case 'identify':
      return optionalObject(m.traits);
    case 'track':
      return typeof m.event === 'string' && m.event.length >= 1 && m.event.length <= 1024 && optionalObject(m.properties);
    case 'page':
    case 'screen':
      return nullableText(m.name) && nullableText(m.category) && optionalObject(m.properties);
    case 'group':
      return isIdentifier(m.groupId) && optionalObject(m.traits);
    case 'alias':
      return isIdentifier(m.previousId);
    default:
      return false;
  }
}

function isIdentifier(v: unknown): boolean {
  return typeof v === 'string' ? v.length >= 1 && v.length <= 1024 : typeof v === 'number' && Number.isFinite(v);
}
function optionalUserIdentifier(v: unknown): boolean {
  return v === undefined || v === null || v === '' || isIdentifier(v);
}
function optionalText(v: unknown, min: number, max: number): boolean {
  return v === undefined || (typeof v === 'string' && v.length >= min && v.length <= max);
}
function nullableText(v: unknown): boolean {
  return v === null || optionalText(v, 0, 1024);
}
function optionalObject(v: unknown): boolean {
  return v === undefined || (typeof v === 'object' && v !== null && !Array.isArray(v));
}
function optionalTime(v: unknown): boolean {
  return v === undefined || (typeof v === 'string' && v.length <= 64 && isTime(parseTime(v)));
}

/** A time (ms) that every date function and an INTEGER column take: years 1 to 9999. */
export function isTime(ms: number): boolean {
  return ms >= MIN_TIME && ms <= MAX_TIME; // false for NaN too
}

/** ISO 8601 / RFC 3339 dates and times (Date.parse alone also takes "March 7" or "1"). */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

let lastTimeText = '';
let lastTime = Number.NaN;
/**
 * An ISO 8601 time in ms, or NaN. Memoized for one entry: validation and skew correction parse the
 * same timestamp one after the other, and Date.parse is a visible part of the ingest profile.
 */
export function parseTime(text: string): number {
  if (text !== lastTimeText) {
    lastTimeText = text;
    lastTime = ISO_8601.test(text) ? Date.parse(text) : Number.NaN;
  }
  return lastTime;
}

function hasId(value: string | number | null | undefined): boolean {
  return value !== undefined && value !== null && value !== '';
}

function reject(code: RejectCode, message: string): ValidationResult {
  return { ok: false, rejection: { code, message } };
}

function describeIssue(issue: z.core.$ZodIssue | undefined, input: object): Rejection {
  const field = String(issue?.path[0] ?? 'type');
  const value = (input as Record<string, unknown>)[field];
  if (field === 'type') {
    const type = (input as { type?: unknown }).type;
    return {
      code: 'invalid_type',
      message:
        type === undefined
          ? `message has no "type"; expected one of ${MESSAGE_TYPES.join(', ')}`
          : `unknown message type ${JSON.stringify(type).slice(0, 64)}; expected one of ${MESSAGE_TYPES.join(', ')}`,
    };
  }
  const missingCode = MISSING_CODES[field];
  if (missingCode && (value === undefined || value === null || value === '')) {
    return { code: missingCode, message: `${(input as { type: string }).type} needs "${field}"` };
  }
  if (field === 'timestamp' || field === 'sentAt') {
    return { code: 'invalid_timestamp', message: `"${field}" must be an ISO 8601 date string between the years 1 and 9999` };
  }
  return { code: 'invalid_field', message: `"${field}": ${issue?.message ?? 'invalid value'}` };
}
