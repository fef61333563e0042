import type { AudienceForm, FieldErrors, FormChange } from './audience-form.ts';

/** When the syncs run: demo (right after saving, then every N seconds) or realistic (the service's schedule). */
export function TimingFields({ form, shown, change }: { form: AudienceForm; shown: FieldErrors; change: FormChange }) {
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

/** Demo or realistic: here, and in an audience's detail. */
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
