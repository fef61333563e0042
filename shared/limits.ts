/** Limits of the ingestion API (seed §8) and of webhook settings (seed §2.3). */
export const MAX_MESSAGE_BYTES = 32 * 1024;
export const MAX_REQUEST_BYTES = 500 * 1024;
export const MAX_BATCH_EVENTS = 2500;
export const MAX_WEBHOOKS = 5;

/** Default ports: documented in the README; 0 picks a free port. */
export const DEFAULT_INGEST_PORT = 8787;
export const DEFAULT_UI_PORT = 8788;
export const DEFAULT_HOST = '127.0.0.1';
