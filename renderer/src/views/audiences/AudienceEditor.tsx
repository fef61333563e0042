import { useMemo, useState } from 'react';
import { propertyName } from '../../../../shared/audience-property.ts';
import type { AudienceView } from '../../../../shared/audiences.ts';
import type { RequestOf, SourceView } from '../../../../shared/contract.ts';
import { Field } from '../../components/Field.tsx';
import { SourcePicker } from '../../components/SourcePicker.tsx';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { checkSave, formOf, newForm, type AudienceForm, type ConditionForm, type FieldErrors } from './audience-form.ts';
import { PreviewPanel, usePreview } from './AudiencePreview.tsx';
import { ComputationFields } from './ComputationFields.tsx';
import { DestinationsChoice } from './DestinationsChoice.tsx';
import { RuleBuilder } from './RuleBuilder.tsx';
import { TimingFields } from './SyncTiming.tsx';

/**
 * Creates or edits an audience or computed trait: a rule builder (or the computation), the timing,
 * and a live preview of who is in it now — count and sample — before anything is saved.
 */
export function AudienceEditor({ audience, sources, onSaved, onCancel }: {
  /** null: a new one. */
  audience: AudienceView | null;
  sources: readonly SourceView[];
  onSaved: (id: number) => void;
  onCancel: () => void;
}) {
  const inspector = useInspector();
  const destinations = useInspectorState((s) => s.destinations);
  const [form, setForm] = useState<AudienceForm>(() => (audience ? formOf(audience) : newForm(sources[0]?.id ?? null)));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  /** The core's refusal of the chosen destinations (one deleted meanwhile), shown under the list. */
  const [destinationRefusal, setDestinationRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const preview = usePreview(form);

  const problems = useMemo(() => checkSave(form).errors, [form]);
  const shown: FieldErrors = {};
  for (const [field, message] of Object.entries(problems)) {
    if (submitted || [...touched].some((t) => field === t || field.startsWith(`${t}.`))) shown[field] = message;
  }
  if (destinationRefusal) shown.destinationIds ??= destinationRefusal;

  const change = (patch: Partial<AudienceForm>, field: string) => {
    setForm((f) => ({ ...f, ...patch }));
    setTouched((t) => new Set(t).add(field));
    setRefusal(null);
    setDestinationRefusal(null);
  };
  const changeCondition = (index: number, patch: Partial<ConditionForm>, field: string) => {
    setForm((f) => ({ ...f, conditions: f.conditions.map((c, i) => (i === index ? { ...c, ...patch } : c)) }));
    setTouched((t) => new Set(t).add(`conditions.${index}.${field}`));
    setRefusal(null);
  };

  const save = async () => {
    setSubmitted(true);
    const { request } = checkSave(form);
    if (!request) return;
    setSaving(true);
    const result = await inspector.call('audiences.save', request as RequestOf<'audiences.save'>);
    setSaving(false);
    if (!result.ok) {
      setRefusal(`Not saved: ${result.error.message}`);
      const issue = result.error.issues?.find((i) => i.path[0] === 'destinationIds');
      setDestinationRefusal(issue ? `${issue.message.charAt(0).toUpperCase()}${issue.message.slice(1)}.` : null);
      return;
    }
    onSaved(result.value.id);
  };

  const property = propertyName(form.name);
  const what = form.kind === 'audience' ? 'audience' : 'computed trait';
  return (
    <form
      className="aud-editor"
      aria-label={audience ? `Edit ${audience.name}` : `New ${what}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h2>{audience ? `Edit “${audience.name}”` : form.kind === 'audience' ? 'New audience' : 'New computed trait'}</h2>

      {audience ? null : (
        <fieldset className="aud-fieldset">
          <legend className="field-label">Kind</legend>
          <div className="segmented" role="radiogroup" aria-label="Kind">
            {(['audience', 'computed_trait'] as const).map((kind) => (
              <button
                key={kind}
                type="button"
                role="radio"
                aria-checked={form.kind === kind}
                className={`btn${form.kind === kind ? ' on' : ''}`}
                onClick={() => change({ kind }, 'kind')}
              >
                {kind === 'audience' ? 'Audience' : 'Computed trait'}
              </button>
            ))}
          </div>
        </fieldset>
      )}

      <div className="aud-grid">
        <Field
          id="aud-name"
          label="Name"
          hint={property ? <>Sent as the trait <code>{property}</code></> : 'The trait it sends is the snake_case of the name.'}
          error={shown.name}
        >
          {(control) => (
            <input
              {...control}
              type="text"
              value={form.name}
              maxLength={100}
              placeholder={form.kind === 'audience' ? 'High Value Users' : 'Orders last 7 days'}
              onChange={(e) => change({ name: e.target.value }, 'name')}
            />
          )}
        </Field>
        <Field id="aud-source" label="Source" hint="Whose users it is made of (by userId)." error={shown.sourceId}>
          {(control) => (
            <SourcePicker {...control} sources={sources} value={form.sourceId} promptLabel="Choose a source" onChange={(sourceId) => change({ sourceId }, 'sourceId')} />
          )}
        </Field>
      </div>

      {form.kind === 'audience' ? (
        <RuleBuilder form={form} shown={shown} change={change} changeCondition={changeCondition} />
      ) : (
        <ComputationFields form={form} shown={shown} change={change} />
      )}

      <TimingFields form={form} shown={shown} change={change} />

      <DestinationsChoice
        form={form}
        shown={shown}
        change={change}
        sourceName={sources.find((s) => s.id === form.sourceId)?.name ?? null}
        destinations={destinations}
      />

      <PreviewPanel preview={preview} kind={form.kind} editing={audience !== null} />

      <div className="aud-actions">
        <button type="submit" className="btn btn-primary" disabled={saving}>
          {audience ? 'Save changes' : form.kind === 'audience' ? 'Create audience' : 'Create computed trait'}
        </button>
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <p className="aud-error" role="alert">
          {refusal ?? (submitted && Object.keys(problems).length > 0 ? 'Fix the fields marked in red, then save again.' : '')}
        </p>
      </div>
    </form>
  );
}
