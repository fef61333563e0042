import { z } from 'zod';
import {
  conformsToSchema,
  hasId,
  isTime,
  isWellFormed,
  missingFieldRejection,
  parseTime,
  timestampRejection,
  typeRejection,
  type RejectCode,
  type Rejection,
} from './message-rules.ts';

// The hand-written rules live in a zod-free module (the client library loads it without zod).
export {
  MESSAGE_STATUSES,
  MESSAGE_TYPES,
  conformsToSchema,
  findRejection,
  isTime,
  parseTime,
  type MessageStatus,
  type MessageType,
  type RejectCode,
  type Rejection,
} from './message-rules.ts';

const wellFormed = 'must be well-formed text (no lone surrogate)';
const identifier = z.union([z.string().min(1).max(1024).refine(isWellFormed, wellFormed), z.number().finite()]);
/** userId and anonymousId may each be empty or null, as long as one of them is set (checked after). */
const userIdentifier = z.union([z.string().max(1024).refine(isWellFormed, wellFormed), z.number().finite()]).nullish();
const jsonObject = z.record(z.string(), z.unknown());
const isoTime = z.string().max(64).refine((s) => isTime(parseTime(s)), 'not an ISO 8601 date between the years 1 and 9999');

/** Fields every message may carry. Unknown keys are kept: Segment messages are open-ended. */
const common = {
  messageId: z.string().min(1).max(256).refine(isWellFormed, wellFormed).optional(),
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

export type ValidationResult =
  | { ok: true; message: IncomingMessage }
  | { ok: false; rejection: Rejection };

/**
 * Validates one event. The zod schema above is the definition; `conformsToSchema` (message-rules.ts)
 * is the same rules written out by hand for ingestion's hot path (a test checks the two agree on
 * generated inputs).
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

function reject(code: RejectCode, message: string): ValidationResult {
  return { ok: false, rejection: { code, message } };
}

function describeIssue(issue: z.core.$ZodIssue | undefined, input: object): Rejection {
  const field = String(issue?.path[0] ?? 'type');
  const value = (input as Record<string, unknown>)[field];
  if (field === 'type') return typeRejection((input as { type?: unknown }).type);
  const missing = missingFieldRejection((input as { type: string }).type, field, value);
  if (missing) return missing;
  if (field === 'timestamp' || field === 'sentAt') return timestampRejection(field);
  return { code: 'invalid_field', message: `"${field}": ${issue?.message ?? 'invalid value'}` };
}
