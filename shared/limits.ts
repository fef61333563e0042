/** Limits of the ingestion API (seed §8) and of webhook settings (seed §2.3). */
export const MAX_MESSAGE_BYTES = 32 * 1024;
export const MAX_REQUEST_BYTES = 500 * 1024;
export const MAX_BATCH_EVENTS = 2500;
export const MAX_WEBHOOKS = 5;
/** Deeper messages are refused: serializing them (for webhooks, for the UI) would overflow the stack. */
export const MAX_NESTING_DEPTH = 100;
/**
 * Of a delivery's body, a message's detail carries this much; the rest is read on request
 * (`deliveries.body`). Twice the largest message ingestion takes (MAX_MESSAGE_BYTES), so a body made
 * from one is cut only when a batch's shared context, merged into it, is large; an edited replay's
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
