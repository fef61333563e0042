/**
 * The destination editor's model, without React: the form's state, the `destinations.save` request
 * it makes, and its validation — the core's own zod schema (shared/settings.ts), so the errors shown
 * as the user types are the ones the core would answer, each placed next to its field.
 */
import type { ContractError, DestinationView, SourceView } from '../../../../shared/contract.ts';
import { MAX_WEBHOOKS } from '../../../../shared/limits.ts';
import { toBase64, toHex } from '../../lib/hmac.ts';
import { destinationOptionsSchema, destinationSchema, webhookSchema, type DestinationKind, type SigningScheme } from '../../../../shared/settings.ts';
import { emptyTrackingApi, trackingApiField, trackingApiFormOf, trackingApiRequestOf, trackingApiSentence, type TrackingApiForm } from './tracking-api-form.ts';
import type { SecretState } from './secret-state.ts';
import { filterField, filterRowsOf, filtersRequestOf, filterSentence, type FilterRow } from '../transforms/filter-form.ts';

const concurrencySchema = destinationOptionsSchema.shape.concurrency.unwrap();
/** Deliveries of one destination in flight at once: the bounds and default of the core's schema. */
export const CONCURRENCY_MIN = concurrencySchema.minValue ?? 1;
export const CONCURRENCY_MAX = concurrencySchema.maxValue ?? 256;
const CONCURRENCY_DEFAULT = destinationOptionsSchema.parse({}).concurrency;

export interface HeaderRow {
  /** React key: rows are added and removed in the middle. */
  key: number;
  name: string;
  value: string;
}

export interface WebhookForm {
  key: number;
  url: string;
  headers: HeaderRow[];
  /** Extra trusted CA (PEM); empty for none. */
  caCert: string;
}

/** The shared secret as the form holds it (secret-state.ts). */
export type { SecretState };

/**
 * One Standard Webhooks secret (whsec_…) as the form holds it: `value` as typed, generated or revealed;
 * `stored`, the secret the destination has at that place, kept while `value` is empty — read with
 * destinations.revealSecret only on Reveal or at save, as the shared secret is.
 */
export interface SigningSecretRow {
  key: number;
  value: string;
  stored: { index: number; masked: string } | null;
}

export interface DestinationForm {
  /** null while creating. */
  id: number | null;
  name: string;
  enabled: boolean;
  /** Names of the connected sources (what the save request takes). */
  sources: string[];
  /** Webhooks, or a Tracking API to forward to: the fields of the other kind are kept but not saved. */
  kind: DestinationKind;
  /** A tracking-api destination's API (tracking-api-form.ts). */
  trackingApi: TrackingApiForm;
  webhooks: WebhookForm[];
  secret: SecretState;
  /** Which signatures requests carry: the shared secret's X-Signature, Standard Webhooks', or both. */
  signing: SigningScheme;
  /** At least one row (an empty one when there is no secret); two while rotating. */
  signingSecrets: SigningSecretRow[];
  bodyShape: 'seed' | 'full';
  /** As typed (a number input may be empty or hold "2.5" for a moment). */
  concurrency: string;
  /** The destination's filters, in order (transforms/filter-form.ts); saved with the rest. Its transform is saved on its own. */
  filters: FilterRow[];
}

/**
 * Where an error is shown: `name`, `sources`, `webhooks`, `webhooks.0.url`, `webhooks.0.headers.1`, `webhooks.0.caCert`, `webhooks.0`,
 * `sharedSecret`, `signing`, `signingSecrets` (none given), `signingSecrets.1` (that row), `bodyShape`, `concurrency`,
 * `trackingApi.url` (`.writeKey`, `.batchSize`, `.flushMs`, `.caCert`), `trackingApi`, `kind`, or `form`.
 */
export type FieldErrors = Record<string, string>;

let lastKey = 0;
const key = () => ++lastKey;

export function emptyWebhook(): WebhookForm {
  return { key: key(), url: '', headers: [], caCert: '' };
}

export function emptyHeader(): HeaderRow {
  return { key: key(), name: '', value: '' };
}

export function emptySigningSecret(): SigningSecretRow {
  return { key: key(), value: '', stored: null };
}

export function newForm(sourceNames: string[]): DestinationForm {
  return {
    id: null,
    name: '',
    enabled: true,
    // With a single source there is nothing to choose: connect it.
    sources: sourceNames.length === 1 ? [...sourceNames] : [],
    kind: 'webhooks',
    trackingApi: emptyTrackingApi(),
    webhooks: [emptyWebhook()],
    secret: { kind: 'none' },
    signing: 'segment',
    signingSecrets: [emptySigningSecret()],
    bodyShape: 'seed',
    concurrency: String(CONCURRENCY_DEFAULT),
    filters: [],
  };
}

export function formOf(view: DestinationView, sources: readonly SourceView[]): DestinationForm {
  return {
    id: view.id,
    name: view.name,
    enabled: view.enabled,
    sources: view.sourceIds.flatMap((id) => sources.filter((s) => s.id === id).map((s) => s.name)),
    kind: view.kind ?? 'webhooks',
    trackingApi: trackingApiFormOf(view.trackingApi ?? null),
    // A tracking-api destination has none: an empty one, should it become a webhooks destination.
    webhooks: view.webhooks.length === 0
      ? [emptyWebhook()]
      : view.webhooks.map((w) => ({
          key: key(),
          url: w.url,
          headers: Object.entries(w.headers ?? {}).map(([name, value]) => ({ key: key(), name, value })),
          caCert: w.caCert ?? '',
        })),
    secret: view.hasSecret ? { kind: 'stored', masked: view.maskedSecret ?? '••••••••' } : { kind: 'none' },
    signing: view.signing ?? 'segment',
    signingSecrets: view.maskedSigningSecrets?.length
      ? view.maskedSigningSecrets.map((masked, index) => ({ key: key(), value: '', stored: { index, masked } }))
      : [emptySigningSecret()],
    bodyShape: view.options.bodyShape,
    concurrency: String(view.options.concurrency),
    filters: filterRowsOf(view.filters),
  };
}

/**
 * What the form would save, keys omitted where the form says "none"; `storedSecret`,
 * `storedSigningSecrets` and `storedWriteKey` are the stored credentials' values when known. An
 * existing destination is saved by its `id`, so its name may change. A webhooks destination sends the
 * secrets of both schemes, whichever signing is chosen: the core signs with the chosen scheme's and
 * keeps the other's, so switching the scheme for a while loses no secret. A tracking-api destination
 * sends its `trackingApi` and nothing of webhooks or signing (its schema refuses them).
 */
export function requestOf(
  form: DestinationForm,
  storedSecret?: string,
  storedSigningSecrets: readonly string[] = [],
  storedWriteKey?: string,
): Record<string, unknown> {
  const concurrency = form.concurrency.trim();
  // An empty field is no number (NaN fails the schema as "expected number").
  const options = { bodyShape: form.bodyShape, concurrency: concurrency === '' ? Number.NaN : Number(concurrency) };
  const common = {
    ...(form.id !== null ? { id: form.id } : {}),
    name: form.name.trim(),
    enabled: form.enabled,
    sources: form.sources,
    ...(form.filters.length > 0 ? { filters: filtersRequestOf(form.filters) } : {}),
  };
  if (form.kind === 'tracking-api') return { ...common, kind: form.kind, trackingApi: trackingApiRequestOf(form.trackingApi, storedWriteKey), options };
  const secret = form.secret.kind === 'value' ? form.secret.value : form.secret.kind === 'stored' ? storedSecret : undefined;
  const signingSecrets = givenSigningSecrets(form).flatMap((row) => {
    const value = row.value.trim() !== '' ? row.value.trim() : storedSigningSecrets[row.stored!.index];
    return value === undefined ? [] : [value];
  });
  return {
    ...common,
    webhooks: form.webhooks.map((w) => {
      const headers: Record<string, string> = {};
      for (const row of w.headers) if (!isBlank(row)) headers[row.name.trim()] = row.value;
      const caCert = w.caCert.trim();
      return { url: w.url.trim(), headers, ...(caCert ? { caCert } : {}) };
    }),
    // An emptied secret field means "unsigned", not "an empty secret".
    ...(secret ? { sharedSecret: secret } : {}),
    signing: form.signing,
    ...(signingSecrets.length > 0 ? { signingSecrets } : {}),
    options,
  };
}

function isBlank(row: HeaderRow): boolean {
  return row.name.trim() === '' && row.value === '';
}

/** The Standard Webhooks rows that hold a secret (typed or stored), in order: the request's `signingSecrets`. */
function givenSigningSecrets(form: DestinationForm): SigningSecretRow[] {
  return form.signingSecrets.filter((row) => row.value.trim() !== '' || row.stored !== null);
}

/** A valid stand-in for a stored Standard Webhooks secret while checking the form: 32 zero bytes. */
const STORED_STAND_IN = `whsec_${'A'.repeat(43)}=`;

/**
 * Every problem the core would refuse the form for, by field, first problem per field. `takenNames`
 * are the other destinations' names, which the core refuses (`name_taken`).
 */
export function validate(form: DestinationForm, takenNames: readonly string[] = []): FieldErrors {
  const errors: FieldErrors = {};
  const add = (field: string, message: string) => {
    errors[field] ??= message;
  };
  const name = form.name.trim();
  if (takenNames.includes(name)) add('name', `Another destination is already called “${name}”; choose another name.`);
  const webhooks = form.kind !== 'tracking-api';
  if (webhooks) form.webhooks.forEach((w, i) => {
    if (w.url.trim() === '') add(`webhooks.${i}.url`, 'Enter the URL to post to, e.g. http://localhost:3000/hook.');
    const seen = new Set<string>();
    w.headers.forEach((row, j) => {
      const header = row.name.trim().toLowerCase();
      if (header === '' && row.value !== '') add(`webhooks.${i}.headers.${j}`, 'Give this header a name, or remove the row.');
      else if (header !== '' && seen.has(header)) add(`webhooks.${i}.headers.${j}`, `“${row.name.trim()}” is already set above; a header may appear once.`);
      seen.add(header);
    });
  });
  if (webhooks && form.signing !== 'segment') {
    const seenSecrets = new Set<string>();
    form.signingSecrets.forEach((row, i) => {
      const value = row.value.trim();
      if (value === '' && row.stored === null && form.signingSecrets.length > 1) add(`signingSecrets.${i}`, 'Generate or paste this secret, or remove it.');
      if (value !== '' && seenSecrets.has(value)) add(`signingSecrets.${i}`, 'This is the secret above again: the next secret must be a new one.');
      seenSecrets.add(value);
    });
  }
  // A stored secret is valid as it is: check the form with a stand-in. The id is the core's to check.
  const { id: _id, ...request } = requestOf(form, 'stored', [STORED_STAND_IN, STORED_STAND_IN], 'stored');
  const parsed = destinationSchema.safeParse(request);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path, form);
      add(field, sentence(field, issue.message, issue.code));
    }
  }
  // zod does not look into the webhooks once there are too many: check each one by itself too.
  ((request.webhooks ?? []) as unknown[]).forEach((webhook, i) => {
    const one = webhookSchema.safeParse(webhook);
    if (one.success) return;
    for (const issue of one.error.issues) {
      const field = fieldOf(['webhooks', i, ...issue.path], form);
      add(field, sentence(field, issue.message, issue.code));
    }
  });
  return errors;
}

/**
 * The form field a problem belongs to, from its path in the save request (a zod issue's path, or
 * one read back from the core's message). Header problems name the header, not the row: the row
 * is found by its name.
 */
export function fieldOf(path: readonly PropertyKey[], form: DestinationForm): string {
  const [root, index, part, header] = path;
  switch (root) {
    case 'name':
    case 'sharedSecret':
    case 'signing':
    case 'kind':
      return root;
    case 'trackingApi':
      return trackingApiField(index);
    case 'signingSecrets': {
      // The request's list leaves out the empty rows: find the row its index stands for.
      const row = typeof index === 'number' ? givenSigningSecrets(form)[index] : undefined;
      return row ? `signingSecrets.${form.signingSecrets.indexOf(row)}` : 'signingSecrets';
    }
    case 'filters':
      return filterField(path);
    case 'enabled':
      return 'form';
    case 'sources':
      return 'sources';
    case 'options':
      return index === 'bodyShape' || index === 'concurrency' ? index : 'form';
    case 'webhooks': {
      if (typeof index !== 'number') return 'webhooks';
      if (part === 'url' || part === 'caCert') return `webhooks.${index}.${part}`;
      if (part === 'headers' && typeof header === 'string') {
        const row = form.webhooks[index]?.headers.findIndex((r) => r.name.trim() === header) ?? -1;
        if (row >= 0) return `webhooks.${index}.headers.${row}`;
      }
      return `webhooks.${index}`;
    }
    default:
      return 'form';
  }
}

const LABELS: Record<string, string> = {
  name: 'The name',
  sharedSecret: 'The shared secret',
  signing: 'Signing',
  sources: 'Connected sources',
  bodyShape: 'The body shape',
};

/** A schema message ("must use http or https, not ftp") as a sentence that names its field and, where it can, the fix. */
export function sentence(field: string, message: string, code?: string): string {
  if (field.startsWith('filters')) return filterSentence(field, message);
  if (field === 'webhooks' && (code === 'too_big' || /at most/.test(message))) {
    return `A destination has at most ${MAX_WEBHOOKS} webhooks; remove one before saving.`;
  }
  if (field === 'webhooks' && (code === 'too_small' || /at least/.test(message))) return 'Add at least one webhook URL.';
  if (field === 'signingSecrets' && /needs a (Standard Webhooks )?secret/.test(message)) return 'Standard Webhooks signing needs a secret: generate one, or paste the receiver’s (whsec_…).';
  if (field === 'sharedSecret' && /signing "both" needs/.test(message)) return 'Signing with both needs a shared secret for X-Signature too: generate one, or choose Standard Webhooks alone.';
  // zod's own wording ("Too small: expected number to be >=1") says less than the bounds do.
  if (field === 'concurrency') return `Concurrency must be a whole number from ${CONCURRENCY_MIN} to ${CONCURRENCY_MAX}.`;
  const forward = trackingApiSentence(field, message);
  if (forward) return forward;
  const label = LABELS[field] ?? (/\.url$/.test(field) ? 'The URL' : /\.caCert$/.test(field) ? 'The CA certificate' : /^signingSecrets\./.test(field) ? 'The secret' : null);
  let text = message;
  if (label && /^(must|may|needs|is|at most|should)\b/.test(message)) text = `${label} ${message}`;
  text = text.charAt(0).toUpperCase() + text.slice(1);
  if (/not a valid URL$/.test(text)) text = `${text}; use a full URL such as http://localhost:3000/hook`;
  if (/\.caCert$/.test(field) && /PEM/.test(message)) text = `${text}: paste the whole file, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * The core's refusal of a save, placed next to the fields its issues name (their paths are the save
 * request's). A refusal without issues (the store failed, the destination was deleted meanwhile) is
 * the form's.
 */
export function errorsFromRefusal(error: Pick<ContractError, 'message' | 'issues'>, form: DestinationForm): FieldErrors {
  const errors: FieldErrors = {};
  const issues = error.issues?.length ? error.issues : [{ path: [], message: error.message }];
  for (const issue of issues) {
    const field = fieldOf(issue.path, form);
    errors[field] ??= sentence(field, issue.message);
  }
  return errors;
}

/** A new shared secret: 32 random bytes as lowercase hex. */
export function generateSecret(fill: (bytes: Uint8Array<ArrayBuffer>) => void = (b) => crypto.getRandomValues(b)): string {
  const bytes = new Uint8Array(32);
  fill(bytes);
  return toHex(bytes);
}

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function generateSigningSecret(fill: (bytes: Uint8Array<ArrayBuffer>) => void = (b) => crypto.getRandomValues(b)): string {
  const bytes = new Uint8Array(32);
  fill(bytes);
  return `whsec_${toBase64(bytes)}`;
}

/** Whether two forms would save the same thing (row keys aside): the editor's "unsaved changes". */
export function sameSettings(a: DestinationForm, b: DestinationForm): boolean {
  const secretKind = (f: DestinationForm) => (f.secret.kind === 'value' && f.secret.value === '' ? 'none' : f.secret.kind);
  const keyKind = (f: DestinationForm) => (f.trackingApi.writeKey.kind === 'value' && f.trackingApi.writeKey.value === '' ? 'none' : f.trackingApi.writeKey.kind);
  const plain = (f: DestinationForm) =>
    JSON.stringify([requestOf(f, '\u0000stored', ['\u0000stored 0', '\u0000stored 1'], '\u0000stored key'), f.kind === 'tracking-api' ? keyKind(f) : secretKind(f)]);
  return plain(a) === plain(b);
}
