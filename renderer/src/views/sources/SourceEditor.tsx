import { useEffect, useMemo, useRef, useState } from 'react';
import type { SourceView } from '../../../../shared/contract.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Field } from '../../components/Field.tsx';
import { useInspector } from '../../store/react.ts';
import {
  errorsFromSourceRefusal,
  generateWriteKey,
  KIND_HINTS,
  newSourceForm,
  SOURCE_KINDS,
  sourceFormOf,
  sourceRequestOf,
  validateSource,
  type SourceErrors,
  type SourceForm,
} from './source-form.ts';

/**
 * Creates a source, or edits one created here (name, write key, kind). A new source gets a generated
 * write key, ready to copy. Problems show beside their field as the user types (the core's schema, run
 * here); the core's own refusal lands on the field it names. A key takes effect when saved: ingestion
 * accepts the new one and refuses the old one from then on.
 */
export function SourceEditor({ source, others, onSaved, onCancel }: {
  /** null: a new source. */
  source: SourceView | null;
  /** The other sources (their names and keys are taken). */
  others: readonly SourceView[];
  onSaved: (saved: SourceView, created: boolean) => void;
  onCancel: () => void;
}) {
  const inspector = useInspector();
  const [form, setForm] = useState<SourceForm>(() => (source ? sourceFormOf(source) : newSourceForm()));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [refusal, setRefusal] = useState<SourceErrors>({});
  const [saving, setSaving] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);

  const problems = useMemo(() => validateSource(form, others), [form, others]);
  const shown: SourceErrors = {};
  for (const [field, message] of Object.entries(problems) as [keyof SourceErrors, string][]) {
    if (submitted || touched.has(field)) shown[field] = message;
  }
  for (const [field, message] of Object.entries(refusal) as [keyof SourceErrors, string][]) shown[field] ??= message;

  const change = (patch: Partial<SourceForm>, field: keyof SourceForm) => {
    setForm((f) => ({ ...f, ...patch }));
    setTouched((t) => new Set(t).add(field));
    setRefusal({});
  };

  const save = async () => {
    setSubmitted(true);
    if (Object.keys(problems).length > 0) return;
    setSaving(true);
    const result = await inspector.call('sources.save', sourceRequestOf(form));
    setSaving(false);
    if (!result.ok) {
      setRefusal(errorsFromSourceRefusal(result.error));
      return;
    }
    onSaved(result.value, form.id === null);
  };

  const isNew = form.id === null;
  const keyChanged = source !== null && form.writeKey.trim() !== source.writeKey;
  const id = isNew ? 'src-new' : `src-${form.id}-edit`;
  const fieldProblems = Object.keys(shown).filter((field) => field !== 'form').length;
  return (
    <form
      className="src-editor"
      aria-label={isNew ? 'New source' : `Edit source ${source!.name}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
      <h3>{isNew ? 'New source' : `Edit “${source!.name}”`}</h3>
      <div className="src-editor-grid">
        <Field id={`${id}-name`} label="Name" hint="Shown in the stream and the filters; each source has its own." error={shown.name}>
          {(control) => (
            <input {...control} ref={nameRef} type="text" value={form.name} maxLength={100} placeholder="e.g. web" onChange={(e) => change({ name: e.target.value }, 'name')} />
          )}
        </Field>
        <Field id={`${id}-kind`} label="Kind" hint={KIND_HINTS[form.kind]} error={shown.kind}>
          {(control) => (
            <select {...control} value={form.kind} onChange={(e) => change({ kind: e.target.value as SourceForm['kind'] }, 'kind')}>
              {SOURCE_KINDS.map((kind) => (
                <option key={kind} value={kind}>
                  {kind}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field
          id={`${id}-key`}
          className="src-key-field"
          label="Write key"
          hint={
            keyChanged
              ? 'Once saved, clients still sending the old key are refused (401 invalid_write_key).'
              : isNew
                ? 'Generated for you: copy it into your client. Letters, digits and _ - . ~ only.'
                : 'Clients send it as the Basic auth user name, or as writeKey in the body.'
          }
          error={shown.writeKey}
        >
          {(control) => (
            <span className="src-key-line">
              <input {...control} type="text" className="mono" spellCheck={false} autoComplete="off" value={form.writeKey} onChange={(e) => change({ writeKey: e.target.value }, 'writeKey')} />
              <CopyButton text={form.writeKey.trim()} label={`Copy the write key${isNew ? '' : ` of ${source!.name}`}`} />
              <button type="button" className="btn btn-small" onClick={() => change({ writeKey: generateWriteKey() }, 'writeKey')}>
                Generate
              </button>
            </span>
          )}
        </Field>
      </div>
      <div className="src-editor-actions">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          {saving ? 'Saving…' : isNew ? 'Create source' : 'Save changes'}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <p className="src-editor-status tone-bad" role="status">
          {[shown.form, submitted && fieldProblems > 0 ? (fieldProblems === 1 ? 'Fix the problem marked above, then save.' : `Fix the ${fieldProblems} problems marked above, then save.`) : null]
            .filter(Boolean)
            .join(' ')}
        </p>
      </div>
    </form>
  );
}
