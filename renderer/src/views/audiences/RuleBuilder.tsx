import { EVENT_OPERATORS, MAX_CONDITIONS, TRAIT_OPERATORS } from '../../../../shared/audiences.ts';
import {
  emptyCondition,
  TRAIT_OPERATOR_LABELS,
  valueTypesFor,
  type AudienceForm,
  type ConditionForm,
  type FieldErrors,
  type FormChange,
  type ValueType,
} from './audience-form.ts';
import { WindowFields } from './WindowFields.tsx';

const VALUE_TYPE_LABELS: Record<ValueType, string> = { text: 'text', number: 'number', true: 'true', false: 'false' };

/** An audience's rule: users who match all (or any) of up to MAX_CONDITIONS trait or event conditions, each with its problem beside it. */
export function RuleBuilder({ form, shown, change, changeCondition }: {
  form: AudienceForm;
  shown: FieldErrors;
  change: FormChange;
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
