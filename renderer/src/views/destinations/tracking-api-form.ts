/**
 * The destination editor's model for a tracking-api destination (one that forwards messages unchanged
 * to Segment, a RudderStack data plane or another Sluice): the fields as the form holds them, the
 * `trackingApi` part of the save request, and its problems in sentences. destination-form.ts uses it.
 */
import type { TrackingApiView } from '../../../../shared/contract.ts';
import { trackingApiSchema } from '../../../../shared/settings.ts';
import type { SecretState } from './secret-state.ts';

const batchSizeSchema = trackingApiSchema.shape.batchSize.unwrap();
const flushMsSchema = trackingApiSchema.shape.flushMs.unwrap();
/** The core's bounds for a batch's size and the flush wait (ms). */
export const BATCH_SIZE_MIN = batchSizeSchema.minValue ?? 1;
export const BATCH_SIZE_MAX = batchSizeSchema.maxValue ?? 500;
export const FLUSH_MS_MIN = flushMsSchema.minValue ?? 0;
export const FLUSH_MS_MAX = flushMsSchema.maxValue ?? 60_000;
const DEFAULTS = trackingApiSchema.parse({ url: 'http://x', writeKey: 'x' });

export interface TrackingApiForm {
  /** The API's base URL (requests go to `<url>/v1/batch`). */
  url: string;
  /** A credential: kept masked as the shared secret is (`stored` until read with destinations.revealSecret). */
  writeKey: SecretState;
  /** As typed, like the concurrency. */
  batchSize: string;
  flushMs: string;
  gzip: boolean;
  /** Extra trusted CA (PEM); empty for none. */
  caCert: string;
}

export function emptyTrackingApi(): TrackingApiForm {
  return { url: '', writeKey: { kind: 'none' }, batchSize: String(DEFAULTS.batchSize), flushMs: String(DEFAULTS.flushMs), gzip: DEFAULTS.gzip, caCert: '' };
}

export function trackingApiFormOf(view: TrackingApiView | null): TrackingApiForm {
  if (!view) return emptyTrackingApi();
  return {
    url: view.url,
    writeKey: { kind: 'stored', masked: view.maskedWriteKey },
    batchSize: String(view.batchSize),
    flushMs: String(view.flushMs),
    gzip: view.gzip,
    caCert: view.caCert ?? '',
  };
}

/** The request's `trackingApi`; `storedWriteKey` is the stored key's value when known (read at save). */
export function trackingApiRequestOf(form: TrackingApiForm, storedWriteKey?: string): Record<string, unknown> {
  const writeKey = form.writeKey.kind === 'value' ? form.writeKey.value.trim() : form.writeKey.kind === 'stored' ? storedWriteKey : undefined;
  const caCert = form.caCert.trim();
  return {
    url: form.url.trim(),
    // None given: an empty key, which the schema refuses next to the field ("must not be empty").
    writeKey: writeKey ?? '',
    batchSize: numberOf(form.batchSize),
    flushMs: numberOf(form.flushMs),
    gzip: form.gzip,
    ...(caCert ? { caCert } : {}),
  };
}

/** An empty field is no number (NaN fails the schema as "expected number"). */
function numberOf(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? Number.NaN : Number(trimmed);
}

/** The form field of a problem under `trackingApi` in the save request. */
export function trackingApiField(part: PropertyKey | undefined): string {
  return part === 'url' || part === 'writeKey' || part === 'batchSize' || part === 'flushMs' || part === 'gzip' || part === 'caCert' ? `trackingApi.${part}` : 'trackingApi';
}

/** A schema message about a tracking-api field as a sentence with its fix; null for a field of another kind. */
export function trackingApiSentence(field: string, message: string): string | null {
  switch (field) {
    case 'trackingApi.url':
      if (/not a valid URL/.test(message)) return 'Enter the API’s URL, such as https://api.segment.io (Sluice posts to its /v1/batch).';
      if (/credentials/.test(message)) return 'The URL must not contain credentials; the write key goes in its own field.';
      return null;
    case 'trackingApi.writeKey':
      if (/empty/.test(message)) return 'Enter the write key of the source the messages should arrive in (sent as Basic auth).';
      return `The write key ${message}.`;
    case 'trackingApi.batchSize':
      return `Batch size must be a whole number from ${BATCH_SIZE_MIN} to ${BATCH_SIZE_MAX}.`;
    case 'trackingApi.flushMs':
      return `The flush wait must be a whole number of milliseconds from ${FLUSH_MS_MIN} to ${FLUSH_MS_MAX}.`;
    default:
      return null;
  }
}
