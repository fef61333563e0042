/**
 * Segment's Tracking API limits (seed §8): 32 KB a message, 500 KB a request. Segment refuses more, so
 * Sluice's client library keeps within them (its messages may go to Segment), and so does a forward to
 * a Tracking API; ingestion takes more (INGEST_MAX_REQUEST_BYTES) and marks what Segment would refuse
 * with segmentWarning.
 */
export const SEGMENT_MAX_MESSAGE_BYTES = 32 * 1024;
export const SEGMENT_MAX_REQUEST_BYTES = 500 * 1024;
/**
 * The most ingestion takes in one request (its body, inflated): RudderStack's gateway's limit, 4,000 KB
 * (rudder-server, Gateway.maxReqSizeInKB), the largest of the APIs Sluice's clients target. A local
 * relay must not be stricter than they are: RudderStack's browser SDK builds batches up to 512 KiB, and
 * refused as a whole with a 400 (which it does not retry) they were lost. A message has no limit of its
 * own but this one, as at RudderStack's gateway (its browser SDK only warns past 32 KB and sends anyway).
 */
export const INGEST_MAX_REQUEST_BYTES = 4000 * 1024;
export const MAX_BATCH_EVENTS = 2500;
export const MAX_WEBHOOKS = 5;
/** Seed §8: each webhook request must be answered within 5 seconds (the delivery engine's default; the inspector's waterfall draws it). */
export const WEBHOOK_TIMEOUT_MS = 5_000;
/** Deeper messages are refused: serializing them (for webhooks, for the UI) would overflow the stack. */
export const MAX_NESTING_DEPTH = 100;
/**
 * Of a delivery's body, a message's detail carries this much; the rest is read on request
 * (`deliveries.body`). Twice the largest message Segment takes (SEGMENT_MAX_MESSAGE_BYTES), so a body made
 * from one is cut only when it is larger, or a batch's shared context, merged into it, is large; an edited replay's
 * body has no limit of its own (megabytes, which the detail must not carry at every refresh).
 */
export const BODY_PREVIEW_BYTES = 64 * 1024;
/** Timestamps must fall in years 0001–9999 (ISO 8601's four-digit years), also after skew correction. */
export const MIN_TIME = Date.parse('0001-01-01T00:00:00.000Z');
export const MAX_TIME = Date.parse('9999-12-31T23:59:59.999Z');

/** Default ports: documented in the README; 0 picks a free port. */
export const DEFAULT_INGEST_PORT = 8787;
export const DEFAULT_UI_PORT = 8788;
export const DEFAULT_RECEIVER_PORT = 8789;
export const DEFAULT_HOST = '127.0.0.1';

const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;

/**
 * Why Segment's Tracking API would refuse a message Sluice accepted, or null: over 32 KB itself, or
 * sent in a batch over 500 KB (`batchBytes`, the request's body; null for a single call). Stored with
 * the message and shown with it, rather than refusing what other APIs (RudderStack's) take.
 */
export function segmentWarning(messageBytes: number, batchBytes: number | null): string | null {
  const reasons: string[] = [];
  if (messageBytes > SEGMENT_MAX_MESSAGE_BYTES) reasons.push(`over ${SEGMENT_MAX_MESSAGE_BYTES / 1024} KB (the message is ${bytes(messageBytes)})`);
  if (batchBytes !== null && batchBytes > SEGMENT_MAX_REQUEST_BYTES) reasons.push(`over ${SEGMENT_MAX_REQUEST_BYTES / 1024} KB (its batch is ${bytes(batchBytes)})`);
  return reasons.length > 0 ? `Segment would refuse this: ${reasons.join('; ')}` : null;
}

/** A userId or anonymousId is kept in its stored column up to this many characters (the message keeps it whole). */
export const ID_COLUMN_MAX = 1024;
