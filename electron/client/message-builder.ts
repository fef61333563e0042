import { messageId } from './message-id.ts';
import { SEGMENT_MAX_MESSAGE_BYTES } from '../../shared/limits.ts';
import { findRejection, type MessageType } from '../../shared/message-rules.ts';
import { ClientError } from './errors.ts';
import { LIBRARY } from './version.ts';

/** A user or group identifier: a non-empty string or a finite number. */
export type Id = string | number;

/** Every message names its user: a `userId`, an `anonymousId`, or both. */
export type Identity = { userId: Id; anonymousId?: Id } | { userId?: Id; anonymousId: Id };

/**
 * Which destinations get the message: destination name → `true`/`false` (or per-destination
 * options). All are enabled by default; `{ All: false, Webhooks: true }` keeps only the webhooks.
 */
export type Integrations = Record<string, boolean | Record<string, unknown>>;

/** Fields every message call takes besides the user's identity. */
export interface CommonFields {
  /** Extra information about the environment (device, os, app, ip...). `context.library` is set by the client. */
  context?: Record<string, unknown>;
  integrations?: Integrations;
  /** When the message happened, for historical imports; default: now. A Date or an ISO 8601 string. */
  timestamp?: Date | string;
  /** Default: a random UUID. Give your own to make re-sends idempotent (the endpoint marks repeats as duplicates). */
  messageId?: string;
}

export type IdentifyParams = Identity & CommonFields & {
  /** What you know about the user: email, name, plan... */
  traits?: Record<string, unknown>;
};

export type TrackParams = Identity & CommonFields & {
  /** The event's name, e.g. "Order Completed". Required. */
  event: string;
  properties?: Record<string, unknown>;
};

/** A page's traits; they become the page message's `properties`. */
export interface PageTraits {
  url?: string;
  title?: string;
  referrer?: string;
  path?: string;
  [key: string]: unknown;
}

export type PageParams = Identity & CommonFields & {
  name?: string;
  category?: string;
  /** The page's url, title, referrer, path and any custom keys; sent as the message's `properties`. */
  traits?: PageTraits;
  /** Segment's name for the same thing; merged with `traits` (traits win on a clash). */
  properties?: Record<string, unknown>;
};

export type ScreenParams = Identity & CommonFields & {
  name?: string;
  category?: string;
  properties?: Record<string, unknown>;
};

export type GroupParams = Identity & CommonFields & {
  /** The group's (account's, company's) id. Required. */
  groupId: Id;
  traits?: Record<string, unknown>;
};

export type AliasParams = Identity & CommonFields & {
  /** The id the user had before (often an anonymousId). Required. */
  previousId: Id;
};

export interface ParamsByType {
  identify: IdentifyParams;
  track: TrackParams;
  page: PageParams;
  screen: ScreenParams;
  group: GroupParams;
  alias: AliasParams;
}

/** A validated message, serialized once: that text is what the batch request carries. */
export interface BuiltMessage {
  readonly id: string;
  readonly json: string;
  /** UTF-8 length of `json`. */
  readonly bytes: number;
}

type Loose = Record<string, unknown>;

/**
 * Turns one call's fields into a Segment message, validates it with the ingestion endpoint's own
 * rules and serializes it. The text is taken now, so changing the caller's objects afterwards does
 * not change what is sent. Throws {@link ClientError} when the message cannot be queued.
 */
export function buildMessage<T extends MessageType>(type: T, params: ParamsByType[T], now: number): BuiltMessage {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) {
    throw new ClientError('invalid_message', `${type}: expected an object of fields, got ${params === null ? 'null' : typeof params}`);
  }
  const p = params as unknown as Loose;
  const message: Loose = {
    type,
    messageId: p.messageId === undefined ? messageId() : p.messageId,
    timestamp: timestampOf(type, p.timestamp, now),
    userId: p.userId,
    anonymousId: p.anonymousId,
  };
  switch (type) {
    case 'identify':
      message.traits = p.traits ?? {};
      break;
    case 'track':
      message.event = p.event;
      message.properties = p.properties ?? {};
      break;
    case 'page':
      message.name = p.name;
      message.category = p.category;
      message.properties = pageProperties(p);
      break;
    case 'screen':
      message.name = p.name;
      message.category = p.category;
      message.properties = p.properties ?? {};
      break;
    case 'group':
      message.groupId = p.groupId;
      message.traits = p.traits ?? {};
      break;
    case 'alias':
      message.previousId = p.previousId;
      break;
  }
  if (p.context !== undefined && !isObject(p.context)) throw invalidField(type, 'context');
  message.context = { ...(p.context as Loose | undefined), library: LIBRARY };
  message.integrations = p.integrations;

  const rejection = findRejection(message);
  if (rejection) {
    const { code, message: reason } = rejection;
    throw new ClientError(code, `${type}: ${reason.startsWith(`${type} `) ? reason.slice(type.length + 1) : reason}`);
  }
  let json: string;
  try {
    json = JSON.stringify(message);
  } catch (error) {
    throw new ClientError('invalid_message', `${type}: the message cannot be serialized to JSON (${(error as Error).message})`, { cause: error });
  }
  const bytes = Buffer.byteLength(json);
  if (bytes > SEGMENT_MAX_MESSAGE_BYTES) {
    throw new ClientError(
      'message_too_large',
      `${type}: the message is ${bytes} bytes once serialized; a message may be at most ${SEGMENT_MAX_MESSAGE_BYTES / 1024} KB (${SEGMENT_MAX_MESSAGE_BYTES} bytes)`,
      { messageIds: [message.messageId as string] },
    );
  }
  return { id: message.messageId as string, json, bytes };
}

let lastNow = Number.NaN;
let lastIso = '';
/** The time as ISO 8601; formatting is a visible cost in a tight loop, and calls share milliseconds. */
export function isoTime(now: number): string {
  if (now !== lastNow) {
    lastNow = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

function timestampOf(type: string, value: unknown, now: number): unknown {
  if (value === undefined) return isoTime(now);
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new ClientError('invalid_timestamp', `${type}: "timestamp" is an invalid Date`);
    return value.toISOString();
  }
  return value; // a string is checked by validateMessage (ISO 8601, years 1 to 9999)
}

function pageProperties(p: Loose): unknown {
  const { traits, properties } = p;
  if (traits === undefined) return properties ?? {};
  if (properties === undefined) return traits;
  if (!isObject(traits)) throw invalidField('page', 'traits');
  if (!isObject(properties)) throw invalidField('page', 'properties');
  return { ...properties, ...traits };
}

function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidField(type: string, field: string): ClientError {
  return new ClientError('invalid_field', `${type}: "${field}" must be an object`);
}
