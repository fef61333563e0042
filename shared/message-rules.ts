import { MAX_TIME, MIN_TIME } from './limits.ts';

/*
 * The rules a Segment message must follow, written out by hand, without zod: ingestion's hot path
 * and the client library use them. The client loads this module and not shared/messages.ts, whose
 * zod schema (the rules' definition, which tests compare these against) costs a process ~14 MB of
 * resident memory to load.
 */

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

/** Required fields whose absence has a code of its own. */
export const MISSING_CODES: Partial<Record<string, RejectCode>> = {
  type: 'invalid_type',
  event: 'missing_event',
  groupId: 'missing_group_id',
  previousId: 'missing_previous_id',
};

type Loose = Record<string, unknown>;
type Rule = (value: unknown) => boolean;

const ID_TEXT = 'a string of 1 to 1024 characters (well-formed: no lone surrogate) or a finite number';
const USER_ID_TEXT = 'a string of up to 1024 characters (well-formed: no lone surrogate) or a finite number';
const OBJECT_TEXT = 'an object';
const NAME_TEXT = 'a string of up to 1024 characters, or null';

/**
 * Each field's rule and what it expects, in the order the zod schema checks them (fields common to
 * every type, then the type's own): the first field that breaks its rule is the one reported.
 */
const COMMON_RULES: [field: string, rule: Rule, expects: string][] = [
  ['messageId', optionalMessageId, 'a string of 1 to 256 characters, well-formed (no lone surrogate)'],
  ['userId', optionalUserIdentifier, USER_ID_TEXT],
  ['anonymousId', optionalUserIdentifier, USER_ID_TEXT],
  ['context', optionalObject, OBJECT_TEXT],
  ['integrations', optionalObject, OBJECT_TEXT],
  ['timestamp', optionalTime, ''],
  ['sentAt', optionalTime, ''],
];
const TYPE_RULES: Record<MessageType, [field: string, rule: Rule, expects: string][]> = {
  identify: [['traits', optionalObject, OBJECT_TEXT]],
  track: [
    ['event', (v) => typeof v === 'string' && v.length >= 1 && v.length <= 1024, 'a string of 1 to 1024 characters'],
    ['properties', optionalObject, OBJECT_TEXT],
  ],
  page: [
    ['name', nullableText, NAME_TEXT],
    ['category', nullableText, NAME_TEXT],
    ['properties', optionalObject, OBJECT_TEXT],
  ],
  screen: [
    ['name', nullableText, NAME_TEXT],
    ['category', nullableText, NAME_TEXT],
    ['properties', optionalObject, OBJECT_TEXT],
  ],
  group: [
    ['groupId', isIdentifier, ID_TEXT],
    ['traits', optionalObject, OBJECT_TEXT],
  ],
  alias: [['previousId', isIdentifier, ID_TEXT]],
};

/** True when `incomingMessageSchema` would accept `m` (without the userId/anonymousId rule). */
export function conformsToSchema(m: Loose): boolean {
  if (
    !optionalMessageId(m.messageId) ||
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

/**
 * The first rule `input` breaks, as a stable code and a sentence naming the field, or null when it
 * is a valid message (including the userId/anonymousId rule). Same codes as ingestion's verdicts.
 */
export function findRejection(input: unknown): Rejection | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { code: 'invalid_message', message: 'each message must be a JSON object' };
  }
  const m = input as Loose;
  if (!conformsToSchema(m)) {
    if (!(MESSAGE_TYPES as readonly unknown[]).includes(m.type)) return typeRejection(m.type);
    const rules = [...COMMON_RULES, ...TYPE_RULES[m.type as MessageType]];
    for (const [field, rule, expects] of rules) {
      if (rule(m[field])) continue;
      return fieldRejection(m.type as MessageType, field, m[field], expects);
    }
    return { code: 'invalid_message', message: `${m.type as string}: the message breaks a rule of its type` }; // unreachable while the rules agree
  }
  if (!hasId(m.userId) && !hasId(m.anonymousId)) {
    return { code: 'missing_user', message: `${m.type as string} needs a userId or an anonymousId` };
  }
  return null;
}

/** The rejection for a message whose `type` is missing or unknown. */
export function typeRejection(type: unknown): Rejection {
  return {
    code: 'invalid_type',
    message:
      type === undefined
        ? `message has no "type"; expected one of ${MESSAGE_TYPES.join(', ')}`
        : `unknown message type ${JSON.stringify(type).slice(0, 64)}; expected one of ${MESSAGE_TYPES.join(', ')}`,
  };
}

/** Codes for a field that breaks its rule; `expects` words the rule for invalid_field. */
function fieldRejection(type: MessageType, field: string, value: unknown, expects: string): Rejection {
  const missing = missingFieldRejection(type, field, value);
  if (missing) return missing;
  if (field === 'timestamp' || field === 'sentAt') return timestampRejection(field);
  return { code: 'invalid_field', message: `"${field}" must be ${expects}` };
}

/** A required field left out (or empty): its own code, when it has one. */
export function missingFieldRejection(type: string, field: string, value: unknown): Rejection | null {
  const code = MISSING_CODES[field];
  if (code && (value === undefined || value === null || value === '')) return { code, message: `${type} needs "${field}"` };
  return null;
}

export function timestampRejection(field: string): Rejection {
  return { code: 'invalid_timestamp', message: `"${field}" must be an ISO 8601 date string between the years 1 and 9999` };
}

/** An id (userId, anonymousId, groupId, previousId): well-formed text too, as a messageId (optionalMessageId says why: a user's deletion would purge another's). */
function isIdentifier(v: unknown): boolean {
  return typeof v === 'string' ? v.length >= 1 && v.length <= 1024 && isWellFormed(v) : typeof v === 'number' && Number.isFinite(v);
}
function optionalUserIdentifier(v: unknown): boolean {
  return v === undefined || v === null || v === '' || isIdentifier(v);
}
/**
 * A messageId is the store's dedupe key: SQLite keeps a lone surrogate (a JSON escape such as \ud800) as
 * U+FFFD, so two distinct ids would become one and the second be stored as a duplicate of the first,
 * answered 200 and never delivered (before 2026-12-01). Refused instead, naming the field.
 */
function optionalMessageId(v: unknown): boolean {
  return optionalText(v, 1, 256) && (v === undefined || isWellFormed(v as string));
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** String.prototype.isWellFormed, which the libraries this file is compiled against do not name yet. */
export function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
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

/** True for a userId/anonymousId that names someone: set, and not null or empty. */
export function hasId(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/** A time (ms) that every date function and an INTEGER column take: years 1 to 9999. */
export function isTime(ms: number): boolean {
  return ms >= MIN_TIME && ms <= MAX_TIME; // false for NaN too
}

/** ISO 8601 / RFC 3339 dates and times (Date.parse alone also takes "March 7" or "1"). */
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** Days in a month (1–12) of a year, proleptic Gregorian (no Date: it reads years 0–99 as 1900–1999). */
export function daysInMonth(year: number, month: number): number {
  return month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * An ISO 8601 time in ms, or NaN for anything else — impossible dates and times included, which
 * Date.parse would roll over (02-31 into March). A time without a zone is UTC, as a date alone is:
 * Date.parse would read it in the machine's own time zone.
 */
function parseIsoTime(text: string): number {
  const m = ISO_8601.exec(text);
  if (!m) return Number.NaN;
  const [, year, month, day, hour, minute, second, zone] = m;
  if (Number(month) < 1 || Number(month) > 12 || Number(day) < 1 || Number(day) > daysInMonth(Number(year), Number(month))) return Number.NaN;
  if (hour === undefined) return Date.parse(text);
  if (Number(hour) > 23 || Number(minute) > 59 || (second !== undefined && Number(second) > 59)) return Number.NaN;
  const iso = text[10] === ' ' ? `${text.slice(0, 10)}T${text.slice(11)}` : text;
  // A zone of hours alone (±hh, ISO 8601's shortest; PostgreSQL prints it for whole-hour zones), which the
  // pattern takes and Date.parse does not: before 2026-12-01 such a timestamp was refused as "not ISO 8601".
  return Date.parse(zone === undefined ? `${iso}Z` : zone.length === 3 ? `${iso}:00` : iso);
}

let lastTimeText = '';
let lastTime = Number.NaN;
/**
 * An ISO 8601 time in ms, or NaN (see parseIsoTime). Memoized for one entry: validation and skew
 * correction parse the same timestamp one after the other, and Date.parse is a visible part of the
 * ingest profile.
 */
export function parseTime(text: string): number {
  if (text !== lastTimeText) {
    lastTimeText = text;
    lastTime = parseIsoTime(text);
  }
  return lastTime;
}
