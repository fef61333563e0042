import { isTime, parseTime } from '../../../shared/message-rules.ts';
import type { IncomingMessage as SegmentMessage } from '../../../shared/messages.ts';

/** What a batch request carries besides its events; merged into each event (event fields win). */
export interface BatchEnvelope {
  context?: Record<string, unknown>;
  integrations?: Record<string, unknown>;
  sentAt?: string;
  /** The Sluices the request passed through before this one (its Sluice-Loop header; shared/loop-guard.ts). */
  via?: string[];
  /** Sent by `sluice import` or a file dropped on the inspector (IMPORT_HEADER): its times are the messages' own. */
  imported?: true;
}

/**
 * The header `sluice import` and the inspector's import send with each batch: the messages were
 * captured earlier, so their `sentAt` (carried in from the export) says nothing of this clock's skew
 * and their time is kept as the client gave it (correctedTimestamp). It changes nothing else.
 */
export const IMPORT_HEADER = 'sluice-import';

/** What a message's request contributes to it (the `requests` row). */
export interface RequestInfo {
  envelope: BatchEnvelope;
  /** ms since epoch. */
  receivedAt: number;
  /** Batch-level sentAt in ms, or null. */
  sentAt: number | null;
  ip: string | null;
}

/**
 * The message's time corrected for the client's clock skew, as Segment does:
 * receivedAt − (sentAt − originalTimestamp); the client's timestamp as is when there is no sentAt;
 * receivedAt when the client gave no timestamp. RudderStack's SDKs send their event time as
 * `originalTimestamp` and no `timestamp` (as its data plane reads them): that is used when it is a date.
 * An imported request's messages keep their own time: their sentAt is from when they were captured.
 */
export function correctedTimestamp(input: Pick<SegmentMessage, 'timestamp' | 'sentAt'> & { originalTimestamp?: unknown }, request: RequestInfo): number {
  let original: number;
  if (input.timestamp !== undefined) original = parseTime(input.timestamp);
  else if (typeof input.originalTimestamp === 'string' && isTime((original = parseTime(input.originalTimestamp)))) {
    // RudderStack's event time (not validated at ingestion, so only a real date counts)
  } else return request.receivedAt;
  if (request.envelope.imported) return original;
  const sentAt = input.sentAt !== undefined ? parseTime(input.sentAt) : request.sentAt;
  return sentAt === null ? original : request.receivedAt - (sentAt - original);
}

/**
 * The message as Sluice forwards it: what the client sent, plus, as Segment's API does,
 * - batch-level `context`/`integrations` merged in, `context.ip` from the request when absent;
 * - `messageId` (generated at ingestion when the client sent none);
 * - `receivedAt`, the client's `timestamp` kept as `originalTimestamp`, and `timestamp` corrected.
 * Completes `input` in place and returns it.
 */
export function normalizeMessage(
  input: SegmentMessage,
  request: RequestInfo,
  stored: { messageId: string; type: string },
): Record<string, unknown> {
  const message = input as Record<string, unknown>;
  const { envelope, ip } = request;
  if (message.writeKey !== undefined) delete message.writeKey; // a credential, not part of the message
  message.type = stored.type;
  if (envelope.context) message.context = { ...envelope.context, ...input.context };
  if (ip) {
    const context = (message.context ??= {}) as Record<string, unknown>;
    if (context.ip === undefined) context.ip = ip;
  }
  if (envelope.integrations) message.integrations = { ...envelope.integrations, ...input.integrations };
  message.messageId = stored.messageId;
  if (input.sentAt === undefined && envelope.sentAt !== undefined) message.sentAt = envelope.sentAt;
  const timestamp = correctedTimestamp(input, request);
  // A message forwarded by another Sluice (or pipeline) keeps the originalTimestamp it arrived with.
  if (input.timestamp !== undefined && message.originalTimestamp === undefined) message.originalTimestamp = input.timestamp;
  message.receivedAt = new Date(request.receivedAt).toISOString();
  message.timestamp = new Date(timestamp).toISOString();
  return message;
}
