/**
 * The stored credentials an edit keeps without knowing them — the shared secret, the Standard Webhooks
 * secrets, a tracking-api destination's write key — shown masked and read with
 * destinations.revealSecret only on Reveal or at save, to be sent back as they are.
 */
import type { Responses } from '../../../../shared/contract.ts';
import type { DestinationForm, FieldErrors } from './destination-form.ts';

/** What destinations.revealSecret reads. */
export type StoredCredentials = Responses['destinations.revealSecret'];

/**
 * Whether a save must read the stored credentials first: the form keeps one without knowing it (a
 * webhooks destination keeps the secrets of both schemes, the one not signing included).
 */
export function storedToRead(form: DestinationForm): boolean {
  if (form.id === null) return false;
  if (form.kind === 'tracking-api') return form.trackingApi.writeKey.kind === 'stored';
  return form.secret.kind === 'stored' || form.signingSecrets.some((row) => row.stored !== null && row.value.trim() === '');
}

/**
 * What keeping the stored credentials at save runs into: the fields whose stored value could not be
 * read (`failure`: why the read failed; otherwise it is gone, saved elsewhere meanwhile).
 */
export function keptSecretProblems(form: DestinationForm, read: { secret: string | null; signingSecrets: string[]; writeKey?: string | null } | null, failure?: string): FieldErrors {
  const errors: FieldErrors = {};
  const why = failure ?? 'it is gone';
  if (form.kind === 'tracking-api') {
    if (form.trackingApi.writeKey.kind === 'stored' && (read?.writeKey ?? null) === null) {
      errors['trackingApi.writeKey'] = `Could not keep the stored write key (${why}); type it again.`;
    }
    return errors;
  }
  if (form.secret.kind === 'stored' && (read === null || read.secret === null)) {
    errors.sharedSecret = `Could not keep the stored secret (${why}); generate or type one, or remove it.`;
  }
  form.signingSecrets.forEach((row, i) => {
    if (row.stored !== null && row.value.trim() === '' && read?.signingSecrets[row.stored.index] === undefined) {
      errors[`signingSecrets.${i}`] = `Could not keep the stored secret (${why}); generate or paste one, or remove it.`;
    }
  });
  return errors;
}

/**
 * The stored Standard Webhooks secrets filled in from what destinations.revealSecret read, by their
 * place; null when one of them is no longer there.
 */
export function withRevealedSigningSecrets(form: DestinationForm, values: readonly string[]): DestinationForm | null {
  if (form.signingSecrets.some((row) => row.stored !== null && values[row.stored.index] === undefined)) return null;
  return { ...form, signingSecrets: form.signingSecrets.map((row) => (row.stored && row.value === '' ? { ...row, value: values[row.stored.index]! } : row)) };
}

/** The stored write key filled in (revealing changes nothing to save); the form as it was when it holds none stored. */
export function withRevealedWriteKey(form: DestinationForm, value: string): DestinationForm {
  if (form.trackingApi.writeKey.kind !== 'stored') return form;
  return { ...form, trackingApi: { ...form.trackingApi, writeKey: { kind: 'value', value } } };
}
