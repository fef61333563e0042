import { useEffect, useMemo, useRef, useState } from 'react';
import { propertyName } from '../../../../shared/audience-property.ts';
import {
  EVENT_OPERATORS,
  MAX_CONDITIONS,
  TRAIT_OPERATORS,
  WINDOW_UNITS,
  type AudiencePreviewView,
  type AudienceView,
} from '../../../../shared/audiences.ts';
import type { RequestOf, SourceView } from '../../../../shared/contract.ts';
import { Field } from '../../components/Field.tsx';
import { formatCount } from '../../lib/format.ts';
import { useInspector } from '../../store/react.ts';
import {
  checkSave,
  emptyCondition,
  formatValue,
  formOf,
  newForm,
  previewRequest,
  TRAIT_OPERATOR_LABELS,
  valueTypesFor,
  type AudienceForm,
  type ConditionForm,
  type FieldErrors,
  type ValueType,
  type WindowForm,
} from './audience-form.ts';

/** The preview follows the form this long after the last change. */
const PREVIEW_DELAY_MS = 400;

const VALUE_TYPE_LABELS: Record<ValueType, string> = { text: 'text', number: 'number', true: 'true', false: 'false' };

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
  const [form, setForm] = useState<AudienceForm>(() => (audience ? formOf(audience) : newForm(sources[0]?.id ?? null)));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const preview = usePreview(form);

  const problems = useMemo(() => checkSave(form).errors, [form]);
  const shown: FieldErrors = {};
  for (const [field, message] of Object.entries(problems)) {
    if (submitted || [...touched].some((t) => field === t || field.startsWith(`${t}.`))) shown[field] = message;
  }

  const change = (patch: Partial<AudienceForm>, field: string) => {
    setForm((f) => ({ ...f, ...patch }));
    setTouched((t) => new Set(t).add(field));
    setRefusal(null);
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
        <Field id="aud-source" label="Source" hint="Its users, and its webhook destinations receive the syncs." error={shown.sourceId}>
          {(control) => (
            <select {...control} value={form.sourceId ?? ''} onChange={(e) => change({ sourceId: Number(e.target.value) }, 'sourceId')}>
              {form.sourceId === null ? <option value="">Choose a source</option> : null}
              {sources.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>

      {form.kind === 'audience' ? (
        <RuleBuilder form={form} shown={shown} change={change} changeCondition={changeCondition} />
      ) : (
        <ComputationFields form={form} shown={shown} change={change} />
      )}

      <TimingFields form={form} shown={shown} change={change} />

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

type Change = (patch: Partial<AudienceForm>, field: string) => void;

function RuleBuilder({ form, shown, change, changeCondition }: {
  form: AudienceForm;
  shown: FieldErrors;
  change: Change;
  changeCondition: (index: number, patch: Partial<ConditionForm>, field: string) => void;
}) {
  return (
    <fieldset className="aud-fieldset aud-rule">
      <legend className="section-title">Rule</legend>
      <div className="aud-match">
        <span>Users who match</span>
        <select aria-label="Match" value={form.match} onChange={(e) => change({ match: e.target.value as 'all' | 'any' }, 'match')}>
          <option value="all">all</option>
          <option value="any">any</option>
        </select>
        <span>of these conditions:</span>
      </div>
      <ol className="aud-conditions">
        {form.conditions.map((c, i) => (
          <li key={c.key}>
            <ConditionRow
              condition={c}
              index={i}
              shown={shown}
              onChange={(patch, field) => changeCondition(i, patch, field)}
              onRemove={form.conditions.length > 1 ? () => change({ conditions: form.conditions.filter((_, j) => j !== i) }, 'conditions') : null}
            />
          </li>
        ))}
      </ol>
      {shown.conditions ? <p className="aud-error">{shown.conditions}</p> : null}
      <div className="aud-add">
        {(['trait', 'event'] as const).map((kind) => (
          <button
            key={kind}
            type="button"
            className="btn btn-small"
            disabled={form.conditions.length >= MAX_CONDITIONS}
            onClick={() => change({ conditions: [...form.conditions, emptyCondition(kind)] }, 'conditions')}
          >
            + {kind === 'trait' ? 'Trait' : 'Event'} condition
          </button>
        ))}
      </div>
    </fieldset>
  );
}

function ConditionRow({ condition: c, index, shown, onChange, onRemove }: {
  condition: ConditionForm;
  index: number;
  shown: FieldErrors;
  onChange: (patch: Partial<ConditionForm>, field: string) => void;
  onRemove: (() => void) | null;
}) {
  const n = index + 1;
  const error = (field: string) => shown[`conditions.${index}.${field}`];
  const errors = Object.entries(shown)
    .filter(([field]) => field.startsWith(`conditions.${index}.`) || field === `conditions.${index}`)
    .map(([, message]) => message);
  const types = valueTypesFor(c.operator);
  const valueType = types.includes(c.valueType) ? c.valueType : types[0];
  return (
    <div className="aud-condition" role="group" aria-label={`Condition ${n}`}>
      <div className="aud-condition-line">
        <select aria-label={`Condition ${n} kind`} value={c.kind} onChange={(e) => onChange({ kind: e.target.value as 'trait' | 'event' }, 'kind')}>
          <option value="trait">Trait</option>
          <option value="event">Performed event</option>
        </select>
        {c.kind === 'trait' ? (
          <>
            <input
              type="text"
              aria-label={`Condition ${n} trait`}
              placeholder="plan"
              value={c.trait}
              aria-invalid={error('trait') ? true : undefined}
              onChange={(e) => onChange({ trait: e.target.value }, 'trait')}
            />
            <select aria-label={`Condition ${n} operator`} value={c.operator} onChange={(e) => onChange({ operator: e.target.value as ConditionForm['operator'] }, 'operator')}>
              {TRAIT_OPERATORS.map((op) => (
                <option key={op} value={op}>
                  {TRAIT_OPERATOR_LABELS[op]}
                </option>
              ))}
            </select>
            {types.length > 1 ? (
              <select aria-label={`Condition ${n} value type`} value={valueType} onChange={(e) => onChange({ valueType: e.target.value as ValueType }, 'valueType')}>
                {types.map((t) => (
                  <option key={t} value={t}>
                    {VALUE_TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
            ) : null}
            {valueType === 'text' || valueType === 'number' ? (
              <input
                type="text"
                inputMode={valueType === 'number' ? 'decimal' : undefined}
                aria-label={`Condition ${n} value`}
                placeholder={valueType === 'number' ? '100' : 'pro'}
                value={c.value}
                aria-invalid={error('value') ? true : undefined}
                onChange={(e) => onChange({ value: e.target.value }, 'value')}
              />
            ) : null}
          </>
        ) : (
          <>
            <input
              type="text"
              aria-label={`Condition ${n} event`}
              placeholder="Order Completed"
              value={c.event}
              aria-invalid={error('event') ? true : undefined}
              onChange={(e) => onChange({ event: e.target.value }, 'event')}
            />
            <select aria-label={`Condition ${n} how often`} value={c.eventOperator} onChange={(e) => onChange({ eventOperator: e.target.value as ConditionForm['eventOperator'] }, 'eventOperator')}>
              {EVENT_OPERATORS.map((op) => (
                <option key={op} value={op}>
                  {op === 'at_least' ? 'at least' : 'at most'}
                </option>
              ))}
            </select>
            <input
              type="text"
              inputMode="numeric"
              className="aud-number"
              aria-label={`Condition ${n} times`}
              value={c.count}
              aria-invalid={error('count') ? true : undefined}
              onChange={(e) => onChange({ count: e.target.value }, 'count')}
            />
            <span>times</span>
            <WindowFields label={`Condition ${n}`} window={c.within} invalid={Boolean(error('within.amount'))} onChange={(within) => onChange({ within }, 'within')} />
          </>
        )}
        {onRemove ? (
          <button type="button" className="btn btn-quiet btn-small aud-remove" aria-label={`Remove condition ${n}`} onClick={onRemove}>
            ✕
          </button>
        ) : null}
      </div>
      {errors.length > 0 ? <p className="aud-error">{errors[0]}</p> : null}
    </div>
  );
}

function WindowFields({ label, window, invalid, onChange }: { label: string; window: WindowForm; invalid: boolean; onChange: (w: WindowForm) => void }) {
  return (
    <span className="aud-window">
      <label className="tool-check">
        <input type="checkbox" checked={window.on} onChange={(e) => onChange({ ...window, on: e.target.checked })} />
        within the last
      </label>
      <input
        type="text"
        inputMode="numeric"
        className="aud-number"
        aria-label={`${label} window length`}
        disabled={!window.on}
        value={window.amount}
        aria-invalid={invalid ? true : undefined}
        onChange={(e) => onChange({ ...window, amount: e.target.value })}
      />
      <select aria-label={`${label} window unit`} disabled={!window.on} value={window.unit} onChange={(e) => onChange({ ...window, unit: e.target.value as WindowForm['unit'] })}>
        {WINDOW_UNITS.map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </select>
    </span>
  );
}

function ComputationFields({ form, shown, change }: { form: AudienceForm; shown: FieldErrors; change: Change }) {
  const c = form.computation;
  const set = (patch: Partial<AudienceForm['computation']>, field: string) => change({ computation: { ...c, ...patch } }, `computation.${field}`);
  const errors = Object.entries(shown).filter(([field]) => field.startsWith('computation')).map(([, m]) => m);
  return (
    <fieldset className="aud-fieldset aud-rule">
      <legend className="section-title">Computation</legend>
      <div className="aud-condition-line">
        <select aria-label="Computation" value={c.kind} onChange={(e) => set({ kind: e.target.value as AudienceForm['computation']['kind'] }, 'kind')}>
          <option value="event_count">Count of event</option>
          <option value="last_property">Last value of a property of event</option>
        </select>
        <input
          type="text"
          aria-label="Computation event"
          placeholder="Order Completed"
          value={c.event}
          aria-invalid={shown['computation.event'] ? true : undefined}
          onChange={(e) => set({ event: e.target.value }, 'event')}
        />
        {c.kind === 'last_property' ? (
          <input
            type="text"
            aria-label="Computation property"
            placeholder="plan"
            value={c.property}
            aria-invalid={shown['computation.property'] ? true : undefined}
            onChange={(e) => set({ property: e.target.value }, 'property')}
          />
        ) : (
          <WindowFields label="Computation" window={c.within} invalid={Boolean(shown['computation.within.amount'])} onChange={(within) => set({ within }, 'within')} />
        )}
      </div>
      <p className={errors.length > 0 ? 'aud-error' : 'aud-help'}>
        {errors[0] ??
          (c.kind === 'event_count'
            ? 'Each user who performed the event gets the count; it is sent again when it changes, and 0 once there is none.'
            : 'The value the property had on the user’s latest such event; null once there is none.')}
      </p>
    </fieldset>
  );
}

function TimingFields({ form, shown, change }: { form: AudienceForm; shown: FieldErrors; change: Change }) {
  return (
    <fieldset className="aud-fieldset">
      <legend className="section-title">Sync timing</legend>
      <div className="aud-condition-line">
        <ModeSwitch mode={form.mode} onChange={(mode) => change({ mode }, 'mode')} />
        {form.mode === 'demo' ? (
          <label className="aud-inline">
            every
            <input
              type="text"
              inputMode="numeric"
              className="aud-number"
              aria-label="Seconds between syncs"
              value={form.intervalSeconds}
              aria-invalid={shown.intervalSeconds ? true : undefined}
              onChange={(e) => change({ intervalSeconds: e.target.value }, 'intervalSeconds')}
            />
            seconds
          </label>
        ) : null}
      </div>
      <p className={shown.intervalSeconds ? 'aud-error' : 'aud-help'}>
        {shown.intervalSeconds ??
          (form.mode === 'demo'
            ? 'Demo: the first sync right after saving, then at this interval (and whenever you press Sync now).'
            : 'Realistic, as the service behaves: the first sync six or more hours after creation, then every two to three hours.')}
      </p>
    </fieldset>
  );
}

export function ModeSwitch({ mode, onChange, disabled = false }: { mode: AudienceForm['mode']; onChange: (mode: AudienceForm['mode']) => void; disabled?: boolean }) {
  return (
    <div className="segmented" role="radiogroup" aria-label="Sync mode">
      {(['demo', 'realistic'] as const).map((m) => (
        <button
          key={m}
          type="button"
          role="radio"
          aria-checked={mode === m}
          disabled={disabled}
          className={`btn${mode === m ? ' on' : ''}`}
          onClick={() => mode !== m && onChange(m)}
        >
          {m === 'demo' ? 'Demo' : 'Realistic'}
        </button>
      ))}
    </div>
  );
}

interface PreviewState {
  status: 'idle' | 'counting' | 'ready' | 'failed';
  result: AudiencePreviewView | null;
  error: string | null;
}

/** Evaluates the form as it stands (debounced); keeps the last result on screen while counting. */
function usePreview(form: AudienceForm): PreviewState {
  const inspector = useInspector();
  const [state, setState] = useState<PreviewState>({ status: 'idle', result: null, error: null });
  const request = useMemo(() => previewRequest(form), [form]);
  const key = request ? JSON.stringify(request) : null;
  const generation = useRef(0);
  useEffect(() => {
    const number = ++generation.current;
    if (key === null) {
      setState((s) => ({ ...s, status: 'idle' }));
      return;
    }
    setState((s) => ({ ...s, status: 'counting' }));
    const timer = setTimeout(async () => {
      const result = await inspector.call('audiences.preview', JSON.parse(key) as RequestOf<'audiences.preview'>);
      if (number !== generation.current) return;
      setState(result.ok ? { status: 'ready', result: result.value, error: null } : { status: 'failed', result: null, error: result.error.message });
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [inspector, key]);
  return state;
}

function PreviewPanel({ preview, kind, editing }: { preview: PreviewState; kind: AudienceForm['kind']; editing: boolean }) {
  // An incomplete form shows no stale count.
  const r = preview.status === 'idle' ? null : preview.result;
  const noun = kind === 'audience' ? 'member' : 'user with a value';
  const nouns = kind === 'audience' ? 'members' : 'users with a value';
  let headline: string;
  if (preview.status === 'idle') headline = kind === 'audience' ? 'Complete the rule to see who is in it.' : 'Complete the computation to see its values.';
  else if (preview.status === 'failed') headline = `Could not count: ${preview.error}`;
  else if (!r) headline = 'Counting…';
  else headline = `${formatCount(r.members)} ${r.members === 1 ? noun : nouns} now, of ${formatCount(r.users)} user${r.users === 1 ? '' : 's'} of the source`;
  return (
    <section className="aud-preview" aria-label="Preview" aria-busy={preview.status === 'counting'}>
      <h3 className="section-title">
        Preview <span className="muted">{preview.status === 'counting' ? '· counting…' : ''}</span>
      </h3>
      <p role="status" className={preview.status === 'failed' ? 'aud-error' : undefined}>
        {headline}
      </p>
      {r && editing && r.joining !== null ? (
        <p className="aud-help">
          The next sync would send {formatCount(r.joining)} joined{kind === 'computed_trait' ? ' or changed' : ''} and {formatCount(r.leaving ?? 0)} left.
        </p>
      ) : null}
      {r && r.sample.length > 0 ? (
        <ul className="aud-sample" aria-label="Sample of members">
          {r.sample.map((m) => (
            <li key={m.userId}>
              <span className="mono">{m.userId}</span>
              {kind === 'computed_trait' ? <span className="muted"> = {formatValue(m.value)}</span> : null}
            </li>
          ))}
          {r.members > r.sample.length ? <li className="muted">and {formatCount(r.members - r.sample.length)} more</li> : null}
        </ul>
      ) : null}
    </section>
  );
}
