import { useState, type ReactNode } from 'react';
import { hookOf, receiverHook, receiverHookUrl, resolveHookUrl } from '../../../../shared/receiver-hooks.ts';
import { Field } from '../../components/Field.tsx';
import { isCredentialHeader } from '../../../../shared/credential-headers.ts';
import { useInspectorState } from '../../store/react.ts';
import { pointsAtIngest, selfLoopWarning } from '../../../../shared/loop-guard.ts';
import type { WebhookHealth } from '../../../../shared/contract.ts';
import type { SigningScheme } from '../../../../shared/settings.ts';
import { HealthLine } from './HealthLine.tsx';
import { emptyHeader, type FieldErrors, type WebhookForm } from './destination-form.ts';

/** One webhook of the destination: its URL, static headers (rows added and removed), and an extra trusted CA. */
/** The signature headers Sluice adds itself under each signing choice (unsigned or not). */
const SIGNATURE_HEADERS: Record<SigningScheme, string> = {
  segment: 'X-Signature',
  standard: 'webhook-id, webhook-timestamp and webhook-signature',
  both: 'X-Signature, webhook-id, webhook-timestamp and webhook-signature',
};

export function WebhookCard({ webhook, index, signing, errors, canRemove, onChange, onRemove, destinationId, health }: {
  webhook: WebhookForm;
  index: number;
  signing: SigningScheme;
  /** The saved destination's id, and this URL's health there (none while it is new or the URL is edited). */
  destinationId: number | null;
  health: WebhookHealth | undefined;
  /** The errors to show now, by field (`webhooks.<index>.url`, ...). */
  errors: FieldErrors;
  canRemove: boolean;
  /** `field` is the error key the change touches. */
  onChange: (webhook: WebhookForm, field: string) => void;
  onRemove: () => void;
}) {
  const n = index + 1;
  const prefix = `webhooks.${index}`;
  const id = `dst-wh-${webhook.key}`;
  const urlError = errors[`${prefix}.url`];
  const caError = errors[`${prefix}.caCert`];
  const cardError = errors[prefix];
  // Not an error (it can be saved), but every request would be refused by the loop guard.
  const ingestUrl = useInspectorState((s) => s.info?.ingestUrl);
  const loops = ingestUrl !== undefined && pointsAtIngest(webhook.url.trim(), ingestUrl);
  const receiverUrl = useInspectorState((s) => s.info?.receiverUrl ?? '');
  const receiver = receiverHint(webhook.url.trim(), receiverUrl, (url) => onChange({ ...webhook, url }, `${prefix}.url`));
  // Open when there is a certificate or a problem with it, then as the user leaves it.
  const [caOpen, setCaOpen] = useState(webhook.caCert !== '');
  const setHeader = (j: number, patch: { name?: string; value?: string }) =>
    onChange({ ...webhook, headers: webhook.headers.map((row, k) => (k === j ? { ...row, ...patch } : row)) }, `${prefix}.headers.${j}`);

  return (
    <fieldset className="dst-webhook" aria-invalid={urlError || caError || cardError ? true : undefined}>
      <legend className="dst-webhook-title">Webhook {n}</legend>
      <button type="button" className="btn btn-small btn-quiet dst-webhook-remove" aria-label={`Remove webhook ${n}`} disabled={!canRemove} onClick={onRemove}>
        Remove
      </button>
      <Field
        id={`${id}-url`}
        className="dst-field"
        label="URL"
        error={urlError}
        hint={loops ? <span className="field-warning" role="status">⚠ {selfLoopWarning('This URL')}.</span> : receiver}
      >
        {(control) => (
          <input
            {...control}
            type="text"
            className="dst-url mono"
            inputMode="url"
            spellCheck={false}
            placeholder="http://localhost:3000/hook"
            aria-label={`Webhook ${n} URL`}
            value={webhook.url}
            onChange={(e) => onChange({ ...webhook, url: e.target.value }, `${prefix}.url`)}
          />
        )}
      </Field>
      {destinationId !== null ? <HealthLine destinationId={destinationId} health={health} /> : null}

      <div className="dst-headers" role="group" aria-label={`Webhook ${n} static headers`}>
        <div className="field-label">Static headers</div>
        {webhook.headers.length === 0 ? <p className="hint dst-none">None. Sluice sends User-Agent, Content-Type, Sluice-Loop and {SIGNATURE_HEADERS[signing]} itself.</p> : null}
        {webhook.headers.map((row, j) => {
          const error = errors[`${prefix}.headers.${j}`];
          const rowId = `${id}-h-${row.key}`;
          return (
            <div key={row.key} className="dst-header-row">
              <input
                type="text"
                className="mono"
                spellCheck={false}
                placeholder="X-Header-Name"
                aria-label={`Webhook ${n} header ${j + 1} name`}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${rowId}-error` : undefined}
                value={row.name}
                onChange={(e) => setHeader(j, { name: e.target.value })}
              />
              <HeaderValueInput
                name={row.name}
                value={row.value}
                label={`Webhook ${n} header ${j + 1} value`}
                what={`header ${j + 1} of webhook ${n}`}
                invalid={error !== undefined}
                onChange={(value) => setHeader(j, { value })}
              />
              <button
                type="button"
                className="btn btn-small btn-quiet"
                aria-label={`Remove header ${j + 1} of webhook ${n}`}
                onClick={() => onChange({ ...webhook, headers: webhook.headers.filter((_, k) => k !== j) }, prefix)}
              >
                ✕
              </button>
              {error ? (
                <p className="dst-error dst-row-error" id={`${rowId}-error`}>
                  {error}
                </p>
              ) : null}
            </div>
          );
        })}
        <button
          type="button"
          className="btn btn-small"
          aria-label={`Add header to webhook ${n}`}
          onClick={() => onChange({ ...webhook, headers: [...webhook.headers, emptyHeader()] }, prefix)}
        >
          + Header
        </button>
      </div>

      <details className="dst-ca" open={caOpen || caError !== undefined} onToggle={(e) => setCaOpen(e.currentTarget.open)}>
        <summary>TLS: extra trusted CA certificate{webhook.caCert.trim() ? ' (set)' : ' (optional)'}</summary>
        <p className="hint">
          For a local HTTPS receiver whose certificate the system does not trust (mkcert and the like): paste its CA certificate (PEM). Without it such
          a receiver fails with <code>tls</code> and nothing is sent.
        </p>
        <textarea
          className="dst-pem mono"
          rows={4}
          spellCheck={false}
          placeholder={'-----BEGIN CERTIFICATE-----\n…\n-----END CERTIFICATE-----'}
          aria-label={`Webhook ${n} extra CA certificate (PEM)`}
          aria-invalid={caError ? true : undefined}
          aria-describedby={caError ? `${id}-ca-error` : undefined}
          value={webhook.caCert}
          onChange={(e) => onChange({ ...webhook, caCert: e.target.value }, `${prefix}.caCert`)}
        />
        {caError ? (
          <p className="dst-error" id={`${id}-ca-error`}>
            {caError}
          </p>
        ) : null}
      </details>
      {cardError ? <p className="dst-error">{cardError}</p> : null}
    </fieldset>
  );
}

/**
 * What a URL naming the built-in receiver does: by name (sluice://receiver/<hook>), it posts wherever
 * the receiver listens; by its address now (http://127.0.0.1:<port>/hooks/<hook>), it would reach
 * nothing after a start on another port — offered the named form.
 */
function receiverHint(url: string, receiverUrl: string, use: (url: string) => void): ReactNode {
  const named = receiverHook(url);
  if (named !== null) {
    const address = resolveHookUrl(url, receiverUrl);
    return (
      <>
        The built-in receiver’s hook “{named}”, wherever the receiver listens{address ? <> (now <code>{address}</code>)</> : null}.
      </>
    );
  }
  const hook = hookOf(url, receiverUrl);
  if (hook === null) return undefined;
  const symbolic = receiverHookUrl(hook);
  return (
    <>
      This is the built-in receiver at its port in this run; started on another port, Sluice renames it to <code>{symbolic}</code>, which reaches it
      wherever it listens.{' '}
      <button type="button" className="btn btn-small" onClick={() => use(symbolic)}>
        Use {symbolic}
      </button>
    </>
  );
}

/** A static header's value: a credential's (Authorization, X-Api-Key, …) is masked until revealed, like the shared secret. */
function HeaderValueInput({ name, value, label, what, invalid, onChange }: {
  name: string;
  value: string;
  label: string;
  /** Names the header in the reveal button's label ("Reveal header 2 of webhook 1"). */
  what: string;
  invalid: boolean;
  onChange: (value: string) => void;
}) {
  const [revealed, setRevealed] = useState(false);
  const credential = isCredentialHeader(name);
  return (
    <span className="dst-header-value">
      <input
        type={credential && !revealed ? 'password' : 'text'}
        autoComplete="off"
        className="mono"
        spellCheck={false}
        placeholder="value"
        aria-label={label}
        aria-invalid={invalid ? true : undefined}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
      {credential ? (
        <button type="button" className="btn btn-small btn-quiet" aria-pressed={revealed} aria-label={`${revealed ? 'Hide' : 'Reveal'} ${what}`} onClick={() => setRevealed(!revealed)}>
          {revealed ? 'Hide' : 'Reveal'}
        </button>
      ) : null}
    </span>
  );
}
