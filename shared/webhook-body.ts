/**
 * The JSON body of a webhook request for one message (seed table 2.2, DESIGN.md §5.1). Used by the
 * delivery engine to send, and by the inspector to show exactly what is sent.
 */

import { daysInMonth } from './message-rules.ts';

/** 'forward': the message as forwarded to a Tracking API (a tracking-api destination's; see webhookBody). */
export type BodyShape = 'seed' | 'full' | 'forward';

export type WebhookBody = Record<string, unknown>;

/**
 * What a destination's bodies are built from, as its kind says (electron/core/delivery/kinds/): the
 * shape, and the secret of the X-Signature (null: unsigned). The delivery engine's body builder
 * (electron/core/delivery/body.ts) takes it, in the engine's thread and in the writer's; a body built
 * ahead is used only while its destination's recipe is still the same.
 */
export interface BodyRecipe {
  bodyShape: BodyShape;
  sharedSecret: string | null;
}

type Message = Record<string, unknown>;

/** Copies `keys` of `from` that are present and not null, in this order. */
function pick(from: unknown, keys: readonly string[]): Record<string, unknown> | undefined {
  if (typeof from !== 'object' || from === null) return undefined;
  const out: Record<string, unknown> = {};
  let any = false;
  for (const key of keys) {
    const value = (from as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) {
      out[key] = value;
      any = true;
    }
  }
  return any ? out : undefined;
}

function set(body: WebhookBody, key: string, value: unknown): void {
  if (value !== undefined && value !== null) body[key] = value;
}

/** Ids are strings in webhook bodies (seed §2.2); clients may send numbers. */
function setId(body: WebhookBody, key: string, value: unknown): void {
  if (typeof value === 'number') body[key] = String(value);
  else if (typeof value === 'string' && value !== '') body[key] = value;
}

/** What `Date.prototype.toISOString()` produces for years 0000–9999. */
const CANONICAL_ISO = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

function isCanonicalIso(text: string): boolean {
  if (!CANONICAL_ISO.test(text)) return false;
  const day = Number(text.slice(8, 10));
  if (day <= 28) return true;
  // 29–31: a day the month really has (Date.parse would roll 02-30 over into March).
  return day <= daysInMonth(Number(text.slice(0, 4)), Number(text.slice(5, 7)));
}

/** The message's time as ISO 8601 UTC with milliseconds. */
function isoTimestamp(message: Message): string {
  // Normalized messages already carry toISOString()'s form: keep it rather than parse and format again.
  if (typeof message.timestamp === 'string' && isCanonicalIso(message.timestamp)) return message.timestamp;
  const ms = Date.parse(String(message.timestamp ?? ''));
  return new Date(Number.isNaN(ms) ? Date.now() : ms).toISOString();
}

/**
 * Maps a normalized message to its webhook body. "seed": exactly the seed's fields per type, in the
 * seed's order, each only when the message has it (never null). "full": the whole message, with
 * version 1 first. "forward": the message as a Tracking API takes it from a client — what the client
 * sent, batch-level context and integrations merged in, its messageId, `originalTimestamp`, and
 * `timestamp` as Sluice corrected it (the event's time on a true clock; no sentAt goes with it, so the
 * API keeps that time however late the forward); only `receivedAt`, this hop's, is left out.
 */
export function webhookBody(message: Message, shape: BodyShape = 'seed'): WebhookBody {
  const type = String(message.type);
  if (shape === 'forward') {
    const { receivedAt: _hop, sentAt: _sent, ...forwarded } = message;
    return forwarded;
  }
  if (shape === 'full') {
    const { version: _clientVersion, ...rest } = message; // ours is version 1, whatever the client sent
    return { version: 1, ...rest, timestamp: isoTimestamp(message) };
  }
  const body: WebhookBody = { version: 1, type };
  switch (type) {
    case 'page':
      setId(body, 'userId', message.userId);
      set(body, 'properties', message.properties);
      break;
    case 'screen': {
      setId(body, 'userId', message.userId);
      set(body, 'name', message.name);
      const context = message.context as Record<string, unknown> | undefined;
      const screenContext: Record<string, unknown> = {};
      const device = pick(context?.device, ['model', 'type']);
      const os = pick(context?.os, ['name', 'version']);
      const app = pick(context?.app, ['build', 'name', 'version']);
      if (device) screenContext.device = device;
      if (os) screenContext.os = os;
      if (app) screenContext.app = app;
      body.timestamp = isoTimestamp(message);
      if (device || os || app) body.context = screenContext;
      return body;
    }
    case 'identify':
      setId(body, 'userId', message.userId);
      set(body, 'traits', message.traits);
      break;
    case 'track':
      setId(body, 'userId', message.userId);
      set(body, 'event', message.event);
      set(body, 'properties', message.properties);
      break;
    case 'alias':
      setId(body, 'Previous ID', message.previousId);
      setId(body, 'User ID', message.userId);
      break;
    case 'group':
      setId(body, 'groupId', message.groupId);
      setId(body, 'userId', message.userId);
      set(body, 'traits', message.traits);
      break;
    case 'delete': {
      const notification: WebhookBody = { type: 'delete' };
      setId(notification, 'userId', message.userId);
      notification.timestamp = isoTimestamp(message);
      return notification;
    }
  }
  body.timestamp = isoTimestamp(message);
  return body;
}

/** The body of a deletion notification (seed §2.2: no version). */
export function deleteBody(userId: string, at: number): WebhookBody {
  return { type: 'delete', userId, timestamp: new Date(at).toISOString() };
}
