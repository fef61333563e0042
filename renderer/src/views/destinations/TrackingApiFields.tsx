import { useState } from 'react';
import type { WebhookHealth } from '../../../../shared/contract.ts';
import { pointsAtIngest, selfLoopWarning } from '../../../../shared/loop-guard.ts';
import type { DestinationKind } from '../../../../shared/settings.ts';
import { Field } from '../../components/Field.tsx';
import { useInspectorState } from '../../store/react.ts';
import type { FieldErrors, SecretState } from './destination-form.ts';
import { HealthLine } from './HealthLine.tsx';
import { BATCH_SIZE_MAX, BATCH_SIZE_MIN, FLUSH_MS_MAX, FLUSH_MS_MIN, type TrackingApiForm } from './tracking-api-form.ts';

const KINDS: { value: DestinationKind; label: string; detail: string }[] = [
  { value: 'webhooks', label: 'Webhooks', detail: 'each message posted to your URLs, signed, in the body shape you choose' },
  {
    value: 'tracking-api',
    label: 'Tracking API (forward)',
    detail: 'each message unchanged, in batches, to Segment, a RudderStack data plane or another Sluice (POST <url>/v1/batch)',
  },
];

/** What the destination is: webhooks, or a Tracking API that messages are forwarded to; `note`: what a switch of kind removes on save. */
export function KindChoice({ kind, error, note, onChange }: { kind: DestinationKind; error: string | undefined; note: string | null; onChange: (kind: DestinationKind) => void }) {
  const describedBy = [error ? 'dst-kind-error' : null, note ? 'dst-kind-note' : null].filter(Boolean).join(' ');
  return (
    <fieldset className="dst-fieldset" aria-describedby={describedBy || undefined}>
      <legend className="field-label">Kind</legend>
      <div className="dst-checks dst-radios">
        {KINDS.map((choice) => (
          <label key={choice.value} className="dst-check">
            <input type="radio" name="dst-kind" checked={kind === choice.value} onChange={() => onChange(choice.value)} />
            <span>
              {choice.label} <span className="muted">— {choice.detail}</span>
            </span>
          </label>
        ))}
      </div>
      {note ? (
        <p className="field-warning dst-kind-note" id="dst-kind-note" role="status">
          ⚠ {note}
        </p>
      ) : null}
      {error ? (
        <p className="dst-error" id="dst-kind-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/**
 * A tracking-api destination's API: its URL, the write key (a credential: masked, and a stored one kept
 * until shown or replaced, as the shared secret is), batching, gzip and an extra trusted CA; the batch
 * URL's health once saved.
 */
export function TrackingApiFields({ value, errors, onChange, onReveal, destinationId, health }: {
  value: TrackingApiForm;
  errors: FieldErrors;
  /** `field` is the error key the change touches. */
  onChange: (next: TrackingApiForm, field: string) => void;
  /** Reads the stored write key into the form; resolves with an error sentence, or null. */
  onReveal: () => Promise<string | null>;
  destinationId: number | null;
  /** The saved API's health (its batch URL's breaker), while the URL is the saved one. */
  health: WebhookHealth | undefined;
}) {
  const ingestUrl = useInspectorState((s) => s.info?.ingestUrl);
  const loops = ingestUrl !== undefined && pointsAtIngest(value.url.trim(), ingestUrl);
  const caError = errors['trackingApi.caCert'];
  const [caOpen, setCaOpen] = useState(value.caCert !== '');
  const set = (patch: Partial<TrackingApiForm>, field: string) => onChange({ ...value, ...patch }, field);

  return (
    <section className="dst-forward" aria-labelledby="dst-forward-title">
      <h3 id="dst-forward-title" className="section-title">
        Tracking API <span className="muted">· accepted messages go unchanged (same messageId, context, timestamps), batched</span>
      </h3>
      {errors.trackingApi ? (
        <p className="dst-error" role="alert">
          {errors.trackingApi}
        </p>
      ) : null}
      <Field
        id="dst-api-url"
        className="dst-field"
        label="API URL"
        error={errors['trackingApi.url']}
        hint={
          loops ? (
            <span className="field-warning" role="status">⚠ {selfLoopWarning('This URL')}.</span>
          ) : (
            'Requests go to <url>/v1/batch (or to the URL itself when it ends so): Segment’s API, a RudderStack data plane, another Sluice’s ingest URL.'
          )
        }
      >
        {(control) => (
          <input
            {...control}
            type="text"
            className="dst-url mono"
            inputMode="url"
            spellCheck={false}
            placeholder="https://api.segment.io"
            value={value.url}
            onChange={(e) => set({ url: e.target.value }, 'trackingApi.url')}
          />
        )}
      </Field>
      {destinationId !== null ? <HealthLine destinationId={destinationId} health={health} /> : null}
      <WriteKeyField writeKey={value.writeKey} error={errors['trackingApi.writeKey']} onChange={(writeKey) => set({ writeKey }, 'trackingApi.writeKey')} onReveal={onReveal} />
      <div className="dst-grid dst-forward-batching">
        <Field
          id="dst-api-batch"
          className="dst-field dst-number"
          label="Batch size"
          hint={`Messages per request at most (${BATCH_SIZE_MIN}–${BATCH_SIZE_MAX}); each request also stays under 500 KB.`}
          error={errors['trackingApi.batchSize']}
        >
          {(control) => (
            <input {...control} type="number" inputMode="numeric" min={BATCH_SIZE_MIN} max={BATCH_SIZE_MAX} step={1} value={value.batchSize} onChange={(e) => set({ batchSize: e.target.value }, 'trackingApi.batchSize')} />
          )}
        </Field>
        <Field
          id="dst-api-flush"
          className="dst-field dst-number"
          label="Flush wait (ms)"
          hint={`How long a partial batch waits for more messages (${FLUSH_MS_MIN}–${FLUSH_MS_MAX}; 0 sends at once).`}
          error={errors['trackingApi.flushMs']}
        >
          {(control) => (
            <input {...control} type="number" inputMode="numeric" min={FLUSH_MS_MIN} max={FLUSH_MS_MAX} step={1} value={value.flushMs} onChange={(e) => set({ flushMs: e.target.value }, 'trackingApi.flushMs')} />
          )}
        </Field>
      </div>
      <div className="dst-field">
        <label className="dst-check">
          <input
            type="checkbox"
            checked={value.gzip}
            aria-invalid={errors['trackingApi.gzip'] ? true : undefined}
            aria-describedby={errors['trackingApi.gzip'] ? 'dst-api-gzip-error' : undefined}
            onChange={(e) => set({ gzip: e.target.checked }, 'trackingApi.gzip')}
          />
          Gzip request bodies
        </label>
        {errors['trackingApi.gzip'] ? (
          <p className="dst-error" id="dst-api-gzip-error">
            {errors['trackingApi.gzip']}
          </p>
        ) : (
          <p className="hint">Content-Encoding: gzip — Segment, RudderStack and Sluice all read it; smaller requests for big batches.</p>
        )}
      </div>
      <details className="dst-ca" open={caOpen || caError !== undefined} onToggle={(e) => setCaOpen(e.currentTarget.open)}>
        <summary>TLS: extra trusted CA certificate{value.caCert.trim() ? ' (set)' : ' (optional)'}</summary>
        <p className="hint">For an API on local HTTPS whose certificate the system does not trust: paste its CA certificate (PEM).</p>
        <textarea
          className="dst-pem mono"
          rows={4}
          spellCheck={false}
          placeholder={'-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----'}
          aria-label="Tracking API extra CA certificate (PEM)"
          aria-invalid={caError ? true : undefined}
          aria-describedby={caError ? 'dst-api-ca-error' : undefined}
          value={value.caCert}
          onChange={(e) => set({ caCert: e.target.value }, 'trackingApi.caCert')}
        />
        {caError ? (
          <p className="dst-error" id="dst-api-ca-error">
            {caError}
          </p>
        ) : null}
      </details>
    </section>
  );
}

/** The write key: a password field with Show; a stored one stays in the core until shown (or a save) reads it. */
function WriteKeyField({ writeKey, error, onChange, onReveal }: {
  writeKey: SecretState;
  error: string | undefined;
  onChange: (writeKey: SecretState) => void;
  onReveal: () => Promise<string | null>;
}) {
  const [shown, setShown] = useState(false);
  const [revealing, setRevealing] = useState(false);
  const [revealError, setRevealError] = useState<string | null>(null);
  const stored = writeKey.kind === 'stored';
  const text = writeKey.kind === 'value' ? writeKey.value : '';
  const visible = shown && !stored;
  const show = async () => {
    if (!stored) {
      setShown(!shown);
      return;
    }
    setRevealing(true);
    const problem = await onReveal();
    setRevealing(false);
    setRevealError(problem);
    if (!problem) setShown(true);
  };
  return (
    <Field
      id="dst-api-key"
      className="dst-field"
      label="Write key"
      error={error ?? revealError}
      hint={
        stored
          ? 'Stored: sent as Basic auth with every request. Show it, or type another to replace it.'
          : 'The write key of the source the messages should arrive in; sent as Basic auth (writeKey:), as Segment’s libraries do.'
      }
    >
      {(control) => (
        <div className="dst-secret-row">
          <input
            {...control}
            className="dst-secret-input mono"
            type={visible ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            value={text}
            placeholder={writeKey.kind === 'stored' ? `${writeKey.masked} (stored)` : 'none'}
            // Emptied while a stored key is kept: still the stored one, as with the shared secret.
            onChange={(e) => {
              setRevealError(null);
              onChange(e.target.value === '' && stored ? writeKey : { kind: 'value', value: e.target.value });
            }}
          />
          <button
            type="button"
            className="btn btn-small dst-reveal"
            aria-label={visible ? 'Hide write key' : 'Show write key'}
            disabled={revealing || (!stored && text === '')}
            onClick={() => void show()}
          >
            {visible ? 'Hide' : 'Show'}
          </button>
        </div>
      )}
    </Field>
  );
}
