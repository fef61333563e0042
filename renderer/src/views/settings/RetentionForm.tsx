import { useEffect, useState } from 'react';
import type { StorageView } from '../../../../shared/storage.ts';
import { DEFAULT_RETENTION } from '../../../../shared/retention.ts';
import { Field } from '../../components/Field.tsx';
import { useInspector } from '../../store/react.ts';
import { formatBytes, limitWords, pruneWords } from '../storage/storage-words.ts';
import { boundsWords, checkForm, formOf, issuesToErrors, parseNumber, sameRetention, type LimitKey, type RetentionErrors, type RetentionForm as Form } from './retention-form.ts';

const LIMITS: { key: LimitKey; label: string; unit: string; none: string; hint: string }[] = [
  { key: 'maxAgeDays', label: 'Maximum age', unit: 'days', none: 'No age limit', hint: 'Messages received longer ago than this go' },
  { key: 'maxMessages', label: 'Maximum messages', unit: 'messages', none: 'No message limit', hint: 'Past this count the oldest go' },
  { key: 'maxBytes', label: 'Maximum database size', unit: 'MB', none: 'No size limit', hint: 'Past this size the oldest go' },
];

const DEFAULTS_WORDS = `${limitWords('maxAgeDays', DEFAULT_RETENTION.maxAgeDays)}, ${limitWords('maxMessages', DEFAULT_RETENTION.maxMessages)}, ${limitWords('maxBytes', DEFAULT_RETENTION.maxBytes)}`;

/**
 * The retention: three limits, each a number or no limit, checked as typed with the core's schema;
 * Save sets it (`storage.setRetention`), which prunes at once when the store is over, and says what
 * that removed. Where the retention comes from is said: a config file's wins again at the next start.
 */
export function RetentionForm({ stats, onSaved }: { stats: StorageView; onSaved: () => void }) {
  const inspector = useInspector();
  const [form, setForm] = useState<Form>(() => formOf(stats.retention));
  const [edited, setEdited] = useState(false);
  const [serverErrors, setServerErrors] = useState<RetentionErrors>({});
  const [saving, setSaving] = useState(false);
  const [saved, setSaved] = useState<string | null>(null);
  // A config file's retention wins again at the next start, whatever is saved here meanwhile.
  const fromConfig = stats.configured !== null;

  // The retention changed elsewhere (another window, a restart) while nothing is typed here: follow it.
  useEffect(() => {
    if (!edited) setForm(formOf(stats.retention));
  }, [stats.retention.maxAgeDays, stats.retention.maxMessages, stats.retention.maxBytes, edited]);

  const checked = checkForm(form);
  const errors: RetentionErrors = checked.ok ? serverErrors : checked.errors;
  const unchanged = checked.ok && sameRetention(checked.retention, stats.retention);

  const change = (key: LimitKey, patch: Partial<Form[LimitKey]>) => {
    setForm((f) => ({ ...f, [key]: { ...f[key], ...patch } }));
    setEdited(true);
    setServerErrors({});
    setSaved(null);
  };

  const save = async () => {
    if (!checked.ok) return;
    setSaving(true);
    setSaved(null);
    const before = stats.lastPrune?.at ?? null;
    const result = await inspector.call('storage.setRetention', { retention: checked.retention });
    setSaving(false);
    if (!result.ok) {
      setServerErrors(issuesToErrors(result.error.issues, `It was not saved: ${result.error.message}.`));
      return;
    }
    const view = result.value;
    const pruned = view.lastPrune && view.lastPrune.at !== before ? view.lastPrune : null;
    const until = fromConfig ? ' Until the next start: the config file’s retention wins then.' : '';
    setSaved(
      pruned
        ? `Saved. The store was over the new limits: ${pruneWords(pruned, view.retention, Date.now())}.${until}`
        : `Saved: the store is within the new limits.${until}`,
    );
    setEdited(false);
    setForm(formOf(view.retention));
    onSaved();
  };

  return (
    <form
      className="retention-form"
      aria-label="Retention"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {fromConfig ? (
        <p className="retention-note">
          {stats.retentionFrom === 'config' ? 'Set by the config file: it wins again at the next start. A change saved here lasts until then.' : 'Saved here; the config file’s retention wins again at the next start.'}
        </p>
      ) : (
        <p className="hint">
          {stats.retentionFrom === 'default' ? `Sluice’s defaults (${DEFAULTS_WORDS}), ` : 'Saved in Settings, '}
          checked every minute: the oldest messages go first, with their deliveries and attempts — never one still being delivered.
        </p>
      )}
      <div className="retention-limits">
        {LIMITS.map(({ key, label, unit, none, hint }) => (
          <LimitField key={key} limit={key} label={label} unit={unit} noneLabel={none} hint={hint} value={form[key]} error={errors[key]} onChange={(patch) => change(key, patch)} />
        ))}
      </div>
      <div className="retention-actions">
        <button type="submit" className="btn btn-primary" disabled={saving || !checked.ok || (unchanged && !edited)}>
          {saving ? 'Saving…' : 'Save retention'}
        </button>
        {edited ? (
          <button
            type="button"
            className="btn"
            disabled={saving}
            onClick={() => {
              setForm(formOf(stats.retention));
              setEdited(false);
              setServerErrors({});
            }}
          >
            Undo changes
          </button>
        ) : null}
        <p role="status" className={errors.form ? 'error-text' : undefined}>
          {errors.form ?? saved ?? ''}
        </p>
      </div>
    </form>
  );
}

function LimitField({ limit, label, unit, noneLabel, hint, value, error, onChange }: {
  limit: LimitKey;
  label: string;
  unit: string;
  noneLabel: string;
  hint: string;
  value: Form[LimitKey];
  error: string | undefined;
  onChange: (patch: Partial<Form[LimitKey]>) => void;
}) {
  const mb = limit === 'maxBytes' && !value.none ? parseNumber(value.value) : null;
  const extra = mb !== null && mb >= 1024 ? ` (${formatBytes(mb * 1024 ** 2)})` : '';
  return (
    <div className="retention-limit">
      <Field label={label} hint={value.none ? 'Kept without limit.' : `${hint}: ${boundsWords(limit)}${extra}.`} error={value.none ? null : error}>
        {(control) => (
          <span className="retention-input">
            <input
              {...control}
              type="text"
              inputMode="numeric"
              autoComplete="off"
              spellCheck={false}
              disabled={value.none}
              value={value.value}
              onChange={(e) => onChange({ value: e.target.value })}
            />
            <span className="muted" aria-hidden="true">
              {unit}
            </span>
          </span>
        )}
      </Field>
      <label className="retention-no-limit">
        <input type="checkbox" checked={value.none} onChange={(e) => onChange({ none: e.target.checked })} />
        <span>{noneLabel}</span>
      </label>
    </div>
  );
}
