/**
 * Where the destination editor shows each problem: beside its field when the form shows that field
 * now, otherwise in the form's own line beside Save, saying what it concerns. A problem that counts
 * toward "Fix the problem marked above" must be marked somewhere.
 */
import type { DestinationForm, FieldErrors } from './destination-form.ts';

/** Fields the editor always shows. */
const ALWAYS = new Set(['name', 'sources', 'kind', 'concurrency']);
/** A tracking-api destination's fields (TrackingApiFields.tsx), its section's own line included. */
const TRACKING_API = new Set(['trackingApi', 'trackingApi.url', 'trackingApi.writeKey', 'trackingApi.batchSize', 'trackingApi.flushMs', 'trackingApi.gzip', 'trackingApi.caCert']);

/** Whether the editor shows a problem keyed `field` beside a field of `form` as it is now. */
export function shownBeside(field: string, form: DestinationForm): boolean {
  if (ALWAYS.has(field)) return true;
  if (field === 'filters') return true;
  const filter = /^filters\.(\d+)/.exec(field);
  if (filter) return Number(filter[1]) < form.filters.length;
  const forward = form.kind === 'tracking-api';
  if (TRACKING_API.has(field)) return forward;
  if (forward) return false;
  if (field === 'webhooks' || field === 'signing' || field === 'bodyShape') return true;
  if (field === 'sharedSecret') return form.signing !== 'standard';
  if (field === 'signingSecrets') return form.signing !== 'segment';
  const secret = /^signingSecrets\.(\d+)$/.exec(field);
  if (secret) return form.signing !== 'segment' && Number(secret[1]) < form.signingSecrets.length;
  const webhook = /^webhooks\.(\d+)(?:\.url|\.caCert|\.headers\.(\d+))?$/.exec(field);
  if (webhook) {
    const w = form.webhooks[Number(webhook[1])];
    return w !== undefined && (webhook[2] === undefined || Number(webhook[2]) < w.headers.length);
  }
  return false;
}

/** A hidden field's problem, with what it concerns and how to reach its field. */
function aside(field: string, message: string): string {
  if (field === 'sharedSecret') return `Shared secret (kept, shown when Signing uses X-Signature): ${message}`;
  if (field.startsWith('signingSecrets')) return `Standard Webhooks secret (kept, shown when Signing uses Standard Webhooks): ${message}`;
  return message;
}

/** The problems by where they are shown: each beside its field when shown, the rest in `form`. */
export function placeErrors(errors: FieldErrors, form: DestinationForm): FieldErrors {
  const placed: FieldErrors = {};
  const rest: string[] = errors.form ? [errors.form] : [];
  for (const [field, message] of Object.entries(errors)) {
    if (field === 'form') continue;
    if (shownBeside(field, form)) placed[field] = message;
    else rest.push(aside(field, message));
  }
  if (rest.length > 0) placed.form = rest.join(' ');
  return placed;
}

/**
 * Said beside the Kind choice while the form is switched to tracking-api but still holds webhooks or
 * secrets: saving removes them (a tracking-api destination has no webhooks and is not signed; its
 * schema refuses them). Null when there is nothing to lose.
 */
export function kindSwitchNote(form: DestinationForm): string | null {
  if (form.kind !== 'tracking-api') return null;
  const urls = form.webhooks.filter((w) => w.url.trim() !== '').length;
  const secrets =
    form.secret.kind === 'stored' || (form.secret.kind === 'value' && form.secret.value !== '') || form.signingSecrets.some((row) => row.stored !== null || row.value.trim() !== '');
  if (urls === 0 && !secrets) return null;
  const lost = [urls === 0 ? null : urls === 1 ? 'its webhook' : `its ${urls} webhooks`, secrets ? 'its signing secrets' : null].filter((part) => part !== null).join(' and ');
  return `Saving as a Tracking API forward removes ${lost}: a tracking-api destination has none. Choose Webhooks again before saving to keep them.`;
}
