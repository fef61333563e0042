/**
 * The source form's model, without React: its state, the `sources.save` request it makes, and its
 * validation — the core's own schema (shared/settings.ts), so the problems shown as the user types
 * are the ones the core would answer, each beside its field — and a new write key.
 */
import type { ContractError, SourceView } from '../../../../shared/contract.ts';
import { SOURCE_KINDS, sourceFieldsSchema, type SourceKind } from '../../../../shared/settings.ts';
import { toHex } from '../../lib/hmac.ts';

export interface SourceForm {
  /** null while creating. */
  id: number | null;
  name: string;
  writeKey: string;
  kind: SourceKind;
}

/** Where a problem is shown: `name`, `writeKey`, `kind`, or `form` (the line beside Save). */
export type SourceErrors = Partial<Record<keyof SourceForm | 'form', string>>;

export const KIND_HINTS: Record<SourceKind, string> = {
  web: 'a website (analytics.js)',
  mobile: 'an iOS or Android app',
  server: 'a back end (Node, Python, Go, …)',
};

export { SOURCE_KINDS };

/**
 * A new write key, as Sluice makes the "default" source's: `wk_` and 12 random bytes in hex
 * (sources-repo.ts ensureDefault).
 */
export function generateWriteKey(fill: (bytes: Uint8Array<ArrayBuffer>) => void = (b) => crypto.getRandomValues(b)): string {
  const bytes = new Uint8Array(12);
  fill(bytes);
  return `wk_${toHex(bytes)}`;
}

/** A new source: no name yet, a generated key, `server` (the config file's default kind). */
export function newSourceForm(): SourceForm {
  return { id: null, name: '', writeKey: generateWriteKey(), kind: 'server' };
}

export function sourceFormOf(source: SourceView): SourceForm {
  return { id: source.id, name: source.name, writeKey: source.writeKey, kind: source.kind };
}

/** The `sources.save` request for the form. */
export function sourceRequestOf(form: SourceForm): { id?: number; name: string; writeKey: string; kind: SourceKind } {
  return { ...(form.id !== null ? { id: form.id } : {}), name: form.name, writeKey: form.writeKey.trim(), kind: form.kind };
}

/**
 * What is wrong with the form, the first problem per field: the core's schema, and the names and
 * keys the other sources have (the core refuses them too; said here before a round trip).
 */
export function validateSource(form: SourceForm, others: readonly SourceView[]): SourceErrors {
  const errors: SourceErrors = {};
  const { id: _, ...fields } = sourceRequestOf(form);
  const parsed = sourceFieldsSchema.safeParse(fields);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path);
      errors[field] ??= sentence(field, issue.message);
    }
  }
  const name = form.name.trim();
  const named = others.find((s) => s.name === name);
  if (!errors.name && named) errors.name = `Another source is already called “${name}”; choose another name.`;
  const keyed = others.find((s) => s.writeKey === form.writeKey.trim());
  if (!errors.writeKey && keyed) errors.writeKey = `The source “${keyed.name}” already has this write key; each source needs its own — generate one.`;
  return errors;
}

/** The core's refusal, each issue on its field; one without a field (config-declared, not found) in the form's line. */
export function errorsFromSourceRefusal(error: Pick<ContractError, 'message' | 'issues'>): SourceErrors {
  const errors: SourceErrors = {};
  const issues = error.issues?.length ? error.issues : [{ path: [], message: error.message }];
  for (const issue of issues) {
    const field = fieldOf(issue.path);
    errors[field] ??= sentence(field, issue.message);
  }
  return errors;
}

function fieldOf(path: readonly PropertyKey[]): keyof SourceErrors {
  const first = path[0];
  return first === 'name' || first === 'writeKey' || first === 'kind' ? first : 'form';
}

/** "must not be empty" → "The name must not be empty." — whole sentences, as the other forms show. */
function sentence(field: keyof SourceErrors, message: string): string {
  const end = /[.!?]$/.test(message) ? '' : '.';
  if (field !== 'form' && /^(must|may) /.test(message)) {
    const label = field === 'writeKey' ? 'The write key' : field === 'name' ? 'The name' : 'The kind';
    return `${label} ${message}${end}`;
  }
  return `${message.charAt(0).toUpperCase()}${message.slice(1)}${end}`;
}
