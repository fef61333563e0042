import { useEffect, useMemo, useRef, useState } from 'react';
import type { DestinationView, RequestOf, SourceView } from '../../../../shared/contract.ts';
import { MAX_WEBHOOKS } from '../../../../shared/limits.ts';
import { Field } from '../../components/Field.tsx';
import { clockTime, fileName } from '../../lib/format.ts';
import { useInspector } from '../../store/react.ts';
import { DeleteDestinationDialog } from './DeleteDestinationDialog.tsx';
import {
  CONCURRENCY_MAX,
  CONCURRENCY_MIN,
  emptyWebhook,
  errorsFromRefusal,
  formOf,
  newForm,
  requestOf,
  sameSettings,
  validate,
  type DestinationForm,
  type FieldErrors,
} from './destination-form.ts';
import { placeErrors } from './error-places.ts';
import { healthOf } from './health.ts';
import { SecretField } from './SecretField.tsx';
import { SigningChoice, SigningSecretsField } from './SigningFields.tsx';
import { keptSecretProblems, storedToRead, withRevealedSigningSecrets, withRevealedWriteKey, type StoredCredentials } from './stored-secrets.ts';
import { TestEventPanel } from './TestEventPanel.tsx';
import { kindSwitchNote } from './error-places.ts';
import { KindChoice, TrackingApiFields } from './TrackingApiFields.tsx';
import { WebhookCard } from './WebhookCard.tsx';
import { TransformsSection } from '../transforms/TransformsSection.tsx';

/**
 * Creates, edits (rename included) or deletes one destination. Problems show next to their field as
 * the user types (the core's schema, run here), and the core's own refusal of a save lands on the
 * fields its issues name. A save applies to the next delivery attempt.
 */
export function DestinationEditor({ destination, sources, takenNames, onSaved, onDeleted }: {
  /** null: a new destination. */
  destination: DestinationView | null;
  sources: readonly SourceView[];
  /** The other destinations' names. */
  takenNames: readonly string[];
  onSaved: (id: number) => void;
  /** After a confirmed deletion: its name and how many deliveries were cancelled. */
  onDeleted: (id: number, name: string, cancelled: number) => void;
}) {
  const inspector = useInspector();
  const initial = () => (destination ? formOf(destination, sources) : newForm(sources.map((s) => s.name)));
  const [form, setForm] = useState<DestinationForm>(initial);
  const [baseline, setBaseline] = useState<DestinationForm>(() => form);
  // The view the baseline was read from: a refreshed list that says the same changes nothing.
  const basedOn = useRef(destination ? settingsOf(destination) : null);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [refusal, setRefusal] = useState<FieldErrors>({});
  const [saving, setSaving] = useState(false);
  const [savedAt, setSavedAt] = useState<number | null>(null);
  const [confirmingDelete, setConfirmingDelete] = useState(false);

  /** The config file that declares it: not renamed here (core: destinations/destination-settings.ts). */
  const declaredIn = destination?.fromConfig ?? null;
  const dirty = !sameSettings(form, baseline);
  const problems = useMemo(() => validate(form, takenNames), [form, takenNames]);
  // What the user sees: a field's problem once they have changed it or tried to save; the webhook count at once.
  const due: FieldErrors = {};
  for (const [field, message] of Object.entries(problems)) {
    if (submitted || field === 'webhooks' || touched.has(field)) due[field] = message;
  }
  for (const [field, message] of Object.entries(refusal)) due[field] ??= message;
  // Beside its field when the form shows it; otherwise in the form's line, so every problem counted is marked.
  const shown = placeErrors(due, form);

  // Someone else saved this destination (another window, the config): follow it unless the user is editing.
  useEffect(() => {
    if (!destination) return;
    const json = settingsOf(destination);
    if (json === basedOn.current || dirty) return;
    basedOn.current = json;
    const next = formOf(destination, sources);
    setForm(next);
    setBaseline(next);
  }, [destination]); // only a new view of the destination resyncs

  const change = (next: DestinationForm, field: string) => {
    setForm(next);
    setTouched((t) => (t.has(field) ? t : new Set([...t, field])));
    setRefusal({});
    setSavedAt(null);
  };

  const reveal = async (): Promise<string | null> => {
    if (form.id === null) return null;
    const result = await inspector.call('destinations.revealSecret', { id: form.id });
    if (!result.ok) return `Could not read the stored secret: ${result.error.message}.`;
    const value = result.value.secret;
    if (value === null) return 'The destination has no secret any more (it was saved elsewhere); reload the list.';
    // Revealing changes nothing to save: the baseline learns the value too.
    setForm((f) => ({ ...f, secret: { kind: 'value', value } }));
    setBaseline((b) => (b.secret.kind === 'stored' ? { ...b, secret: { kind: 'value', value } } : b));
    return null;
  };

  const revealSigning = async (): Promise<string | null> => {
    if (form.id === null) return null;
    const result = await inspector.call('destinations.revealSecret', { id: form.id });
    if (!result.ok) return `Could not read the stored secrets: ${result.error.message}.`;
    const values = result.value.signingSecrets;
    if (!withRevealedSigningSecrets(form, values)) return 'The destination does not have this secret any more (it was saved elsewhere); reload the list.';
    // As for the shared secret: revealing changes nothing to save.
    setForm((f) => withRevealedSigningSecrets(f, values) ?? f);
    setBaseline((b) => withRevealedSigningSecrets(b, values) ?? b);
    return null;
  };

  const revealWriteKey = async (): Promise<string | null> => {
    if (form.id === null) return null;
    const result = await inspector.call('destinations.revealSecret', { id: form.id });
    if (!result.ok) return `Could not read the stored write key: ${result.error.message}.`;
    const value = result.value.writeKey;
    if (value === null) return 'The destination has no write key any more (it was saved elsewhere); reload the list.';
    setForm((f) => withRevealedWriteKey(f, value));
    setBaseline((b) => withRevealedWriteKey(b, value));
    return null;
  };

  const save = async () => {
    setSubmitted(true);
    if (Object.keys(problems).length > 0) return;
    setSaving(true);
    // The stored secrets the form keeps are read now, to be sent back as they are.
    let stored: StoredCredentials | null = null;
    if (storedToRead(form)) {
      const read = await inspector.call('destinations.revealSecret', { id: form.id! });
      const kept = keptSecretProblems(form, read.ok ? read.value : null, read.ok ? undefined : read.error.message);
      if (Object.keys(kept).length > 0) {
        setSaving(false);
        setRefusal(kept);
        return;
      }
      stored = read.ok ? read.value : null;
    }
    // The transform is saved on its own (the transform editor): the one the destination has now goes along unchanged.
    const request = {
      ...requestOf(form, stored?.secret ?? undefined, stored?.signingSecrets, stored?.writeKey ?? undefined),
      ...(destination?.transform ? { transform: destination.transform } : {}),
    };
    const result = await inspector.call('destinations.save', request as RequestOf<'destinations.save'>);
    setSaving(false);
    if (!result.ok) {
      setRefusal(errorsFromRefusal(result.error, form));
      return;
    }
    const saved = formOf(result.value, sources);
    basedOn.current = settingsOf(result.value);
    setForm(saved);
    setBaseline(saved);
    setTouched(new Set());
    setSubmitted(false);
    setSavedAt(Date.now());
    onSaved(result.value.id);
  };

  const fieldProblems = Object.keys(shown).filter((field) => field !== 'form').length;
  const askToFix = fieldProblems > 0 && (submitted || Object.keys(refusal).length > 0);
  const isNew = form.id === null;
  const forward = form.kind === 'tracking-api';
  // Shown once and then gone from the list: deleted elsewhere (another window). A destination just
  // created is not listed yet either, but it has not been seen.
  const seen = useRef(destination !== null);
  if (destination) seen.current = true;
  const vanished = seen.current && destination === null;
  return (
    <form
      className="dst-editor"
      aria-label={isNew ? 'New destination' : `Destination ${baseline.name}`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <header className="dst-editor-head">
        <h2>{isNew ? 'New destination' : baseline.name}</h2>
        <span className={`dst-dirty${dirty ? '' : ' dst-hidden'}`} aria-hidden={!dirty}>
          ● unsaved changes
        </span>
      </header>
      {vanished ? (
        <p className="dst-vanished" role="alert">
          This destination was deleted elsewhere (in another window), so these settings can no longer be saved. Choose another destination, or create a new one.
        </p>
      ) : null}

      <div className="dst-grid">
        <Field
          id="dst-name"
          className="dst-field"
          label="Name"
          hint={
            declaredIn ? (
              <>
                Declared in <code title={declaredIn}>{fileName(declaredIn)}</code>, which Sluice applies by name at every start: rename it there. What
                you change here lasts until the next start.
              </>
            ) : isNew ? (
              'Each destination has its own name.'
            ) : (
              'Renaming keeps its deliveries and their history.'
            )
          }
          error={shown.name}
        >
          {(control) => (
            <input
              {...control}
              type="text"
              value={form.name}
              readOnly={declaredIn !== null}
              placeholder="e.g. my-app"
              onChange={(e) => change({ ...form, name: e.target.value }, 'name')}
            />
          )}
        </Field>
        <div className="dst-field dst-enabled">
          <label className="dst-check">
            <input type="checkbox" role="switch" checked={form.enabled} onChange={(e) => change({ ...form, enabled: e.target.checked }, 'enabled')} />
            Enabled
          </label>
          <p className="hint">{form.enabled ? 'Messages of the connected sources are delivered.' : 'Deliveries wait (pending) until it is enabled again.'}</p>
        </div>
      </div>

      <fieldset className="dst-fieldset" aria-describedby={shown.sources ? 'dst-sources-error' : undefined}>
        <legend className="field-label">Connected sources</legend>
        <div className="dst-checks">
          {sources.map((s) => (
            <label key={s.id} className="dst-check">
              <input
                type="checkbox"
                checked={form.sources.includes(s.name)}
                onChange={(e) =>
                  change({ ...form, sources: e.target.checked ? [...form.sources, s.name] : form.sources.filter((n) => n !== s.name) }, 'sources')
                }
              />
              {s.name} <span className="muted">· {s.kind}</span>
            </label>
          ))}
        </div>
        {shown.sources ? (
          <p className="dst-error" id="dst-sources-error">
            {shown.sources}
          </p>
        ) : form.sources.length === 0 ? (
          <p className="hint">No source connected: this destination receives nothing but test events and replays.</p>
        ) : null}
      </fieldset>

      <KindChoice kind={form.kind} error={shown.kind} note={kindSwitchNote(form)} onChange={(kind) => change({ ...form, kind }, 'kind')} />

      {forward ? (
        <TrackingApiFields
          value={form.trackingApi}
          errors={shown}
          onChange={(trackingApi, field) => change({ ...form, trackingApi }, field)}
          onReveal={revealWriteKey}
          destinationId={form.id}
          health={destination?.trackingApi?.url === form.trackingApi.url.trim() ? destination.health[0] : undefined}
        />
      ) : (
        <section className="dst-webhooks" aria-labelledby="dst-webhooks-title">
          <h3 id="dst-webhooks-title" className="section-title">
            Webhooks <span className="muted">{form.webhooks.length} of {MAX_WEBHOOKS} · each delivery is posted to all of them; any 2xx delivers it</span>
          </h3>
          {form.webhooks.map((w, i) => (
            <WebhookCard
              key={w.key}
              webhook={w}
              index={i}
              signing={form.signing}
              errors={shown}
              canRemove={form.webhooks.length > 1}
              onChange={(next, field) => change({ ...form, webhooks: form.webhooks.map((x, k) => (k === i ? next : x)) }, field)}
              onRemove={() => change({ ...form, webhooks: form.webhooks.filter((_, k) => k !== i) }, 'webhooks')}
              destinationId={form.id}
              health={healthOf(destination, w.url.trim())}
            />
          ))}
          {shown.webhooks ? (
            <p className="dst-error" role="alert">
              {shown.webhooks}
            </p>
          ) : null}
          <button type="button" className="btn btn-small" onClick={() => change({ ...form, webhooks: [...form.webhooks, emptyWebhook()] }, 'webhooks')}>
            + Add webhook
          </button>
        </section>
      )}

      <section className="dst-signing" aria-label={forward ? 'Delivery' : 'Signing and body'}>
        {forward ? null : (
          <>
            <SigningChoice signing={form.signing} error={shown.signing} onChange={(signing) => change({ ...form, signing }, 'signing')} />
            {form.signing !== 'standard' ? (
              <SecretField secret={form.secret} error={shown.sharedSecret} onChange={(secret) => change({ ...form, secret }, 'sharedSecret')} onReveal={reveal} />
            ) : null}
            {form.signing !== 'segment' ? (
              <SigningSecretsField
                rows={form.signingSecrets}
                errors={shown}
                onChange={(signingSecrets, field) => change({ ...form, signingSecrets }, field)}
                onReveal={revealSigning}
              />
            ) : null}
            <fieldset className="dst-fieldset" aria-describedby={shown.bodyShape ? 'dst-shape-error' : undefined}>
              <legend className="field-label">Body shape</legend>
              <div className="dst-checks dst-radios">
                <label className="dst-check">
                  <input type="radio" name="dst-shape" checked={form.bodyShape === 'seed'} onChange={() => change({ ...form, bodyShape: 'seed' }, 'bodyShape')} />
                  Mapped <span className="muted">— the documented fields per type (version, type, userId, event, properties, timestamp…)</span>
                </label>
                <label className="dst-check">
                  <input type="radio" name="dst-shape" checked={form.bodyShape === 'full'} onChange={() => change({ ...form, bodyShape: 'full' }, 'bodyShape')} />
                  Full message <span className="muted">— the whole normalized message plus version 1 (anonymousId, messageId, context…)</span>
                </label>
              </div>
              {shown.bodyShape ? (
                <p className="dst-error" id="dst-shape-error">
                  {shown.bodyShape}
                </p>
              ) : null}
            </fieldset>
          </>
        )}
        <Field
          id="dst-concurrency"
          className="dst-field dst-concurrency"
          label="Concurrency"
          hint={<>Deliveries of this destination in flight at once ({CONCURRENCY_MIN}–{CONCURRENCY_MAX}); lower it for a receiver that cannot take many requests at once.</>}
          error={shown.concurrency}
        >
          {(control) => (
            <input
              {...control}
              type="number"
              inputMode="numeric"
              min={CONCURRENCY_MIN}
              max={CONCURRENCY_MAX}
              step={1}
              value={form.concurrency}
              onChange={(e) => change({ ...form, concurrency: e.target.value }, 'concurrency')}
            />
          )}
        </Field>
      </section>

      <TransformsSection destination={destination} rows={form.filters} errors={shown} onRowsChange={(filters, field) => change({ ...form, filters }, field)} />

      <footer className="dst-actions">
        <button type="submit" className="btn btn-primary" disabled={saving || vanished}>
          {saving ? 'Saving…' : isNew ? 'Create destination' : 'Save changes'}
        </button>
        <button type="button" className="btn" disabled={!dirty || saving} onClick={() => { setForm(baseline); setTouched(new Set()); setSubmitted(false); setRefusal({}); }}>
          Discard changes
        </button>
        <p className="dst-save-status" role="status">
          {shown.form || askToFix
            ? <span className="tone-bad">
                {[shown.form, askToFix ? (fieldProblems === 1 ? 'Fix the problem marked above, then save.' : `Fix the ${fieldProblems} problems marked above, then save.`) : null].filter(Boolean).join(' ')}
              </span>
            : savedAt !== null
                ? <span className="tone-ok">Saved at {clockTime(savedAt)} — applies from the next delivery attempt.</span>
                : null}
        </p>
        {form.id !== null && !vanished ? (
          <button type="button" className="btn dst-delete" aria-haspopup="dialog" disabled={saving} onClick={() => setConfirmingDelete(true)}>
            Delete destination…
          </button>
        ) : null}
      </footer>
      {confirmingDelete && form.id !== null ? (
        <DeleteDestinationDialog
          id={form.id}
          name={baseline.name}
          onClose={() => setConfirmingDelete(false)}
          onDeleted={(cancelled) => onDeleted(form.id!, baseline.name, cancelled)}
        />
      ) : null}

      {form.id !== null && !vanished ? (
        <TestEventPanel
          destinationId={form.id}
          forward={baseline.kind === 'tracking-api'}
          blockedBy={dirty ? 'Save your changes first: the test uses the saved settings.' : !baseline.enabled ? 'Enable the destination and save to send a test event.' : null}
        />
      ) : null}
    </form>
  );
}

/** What the form is read from: the view less its receivers' health, which moves with every breaker change. */
function settingsOf(view: DestinationView): string {
  return JSON.stringify({ ...view, health: undefined });
}
