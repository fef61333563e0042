import type { AudienceForm, FieldErrors, FormChange } from './audience-form.ts';
import { WindowFields } from './WindowFields.tsx';

/** A computed trait's computation: the count of an event (within a window), or the last value of one of its properties. */
export function ComputationFields({ form, shown, change }: { form: AudienceForm; shown: FieldErrors; change: FormChange }) {
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
