import { useState } from 'react';
import type { SigningScheme } from '../../../../shared/settings.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Field } from '../../components/Field.tsx';
import { emptySigningSecret, generateSigningSecret, type FieldErrors, type SigningSecretRow } from './destination-form.ts';

const CHOICES: { value: SigningScheme; label: string; detail: string }[] = [
  { value: 'segment', label: 'X-Signature (Segment’s)', detail: 'HMAC-SHA1 of the body with the shared secret, as Segment’s webhooks sign' },
  {
    value: 'standard',
    label: 'Standard Webhooks',
    detail: 'webhook-id, webhook-timestamp and webhook-signature (HMAC-SHA256, whsec_ secrets, rotation), as Svix and the standardwebhooks libraries verify',
  },
  { value: 'both', label: 'Both', detail: 'all four headers, for a receiver moving from one to the other' },
];

/** Which signatures the destination's requests carry (README: "Standard Webhooks signing"). */
export function SigningChoice({ signing, error, onChange }: { signing: SigningScheme; error: string | undefined; onChange: (signing: SigningScheme) => void }) {
  return (
    <fieldset className="dst-fieldset" aria-describedby={error ? 'dst-signing-error' : undefined}>
      <legend className="field-label">Signing</legend>
      <div className="dst-checks dst-radios">
        {CHOICES.map((choice) => (
          <label key={choice.value} className="dst-check">
            <input type="radio" name="dst-signing" checked={signing === choice.value} onChange={() => onChange(choice.value)} />
            <span>
              {choice.label} <span className="muted">— {choice.detail}</span>
            </span>
          </label>
        ))}
      </div>
      {error ? (
        <p className="dst-error" id="dst-signing-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

/**
 * The Standard Webhooks secrets: one, or two while rotating (each signs every request, so a receiver
 * holding either accepts it). Stored ones stay masked, and kept, until replaced, removed or revealed.
 */
export function SigningSecretsField({ rows, errors, onChange, onReveal }: {
  rows: SigningSecretRow[];
  errors: FieldErrors;
  /** `field` is the error key the change touches. */
  onChange: (rows: SigningSecretRow[], field: string) => void;
  /** Reads the stored secrets into the form; resolves with an error sentence, or null. */
  onReveal: () => Promise<string | null>;
}) {
  return (
    <div className="dst-signing-secrets" role="group" aria-label="Standard Webhooks secrets">
      {rows.map((row, i) => (
        <SigningSecretInput
          key={row.key}
          row={row}
          first={i === 0}
          // "None given" belongs to the first field.
          error={errors[`signingSecrets.${i}`] ?? (i === 0 ? errors.signingSecrets : undefined)}
          canRemove={rows.length > 1 || row.value !== '' || row.stored !== null}
          onChange={(next) => onChange(rows.map((r, k) => (k === i ? next : r)), `signingSecrets.${i}`)}
          onRemove={() => onChange(rows.length > 1 ? rows.filter((_, k) => k !== i) : [emptySigningSecret()], 'signingSecrets')}
          onReveal={onReveal}
        />
      ))}
      {rows.length < 2 ? (
        // Not the new row's field: it is empty by design until the user fills it (its problem shows once touched or at save).
        <button type="button" className="btn btn-small" onClick={() => onChange([...rows, emptySigningSecret()], 'signingSecrets')}>
          + Add next secret (rotation)
        </button>
      ) : (
        <p className="hint dst-rotation-hint">
          Both secrets sign every request (one v1 signature each): give the receiver the new one, then remove the old one here.
        </p>
      )}
    </div>
  );
}

function SigningSecretInput({ row, first, error, canRemove, onChange, onRemove, onReveal }: {
  row: SigningSecretRow;
  first: boolean;
  error: string | undefined;
  canRemove: boolean;
  onChange: (row: SigningSecretRow) => void;
  onRemove: () => void;
  onReveal: () => Promise<string | null>;
}) {
  const [revealed, setRevealed] = useState(false);
  const [revealing, setRevealing] = useState(false);
  const [revealError, setRevealError] = useState<string | null>(null);
  const label = first ? 'Standard Webhooks secret' : 'Next secret (rotation)';
  const name = first ? 'Standard Webhooks secret' : 'next secret';
  const hidden = row.stored !== null && row.value === '';
  const hint = hidden
    ? 'Stored: it keeps signing. Reveal it, or paste another to replace it.'
    : row.value
      ? 'The receiver verifies with the same secret (whsec_ and a 24- to 64-byte key in base64).'
      : first
        ? 'Generate one, or paste the one your receiver was given (whsec_…).'
        : 'The next secret: generate it, or paste the receiver’s new one (whsec_…).';

  const reveal = async () => {
    if (!hidden) {
      setRevealed(!revealed);
      return;
    }
    setRevealing(true);
    const problem = await onReveal();
    setRevealing(false);
    setRevealError(problem);
    if (!problem) setRevealed(true);
  };

  return (
    <Field id={`dst-sw-${row.key}`} className="dst-field" label={label} hint={hint} error={error ?? revealError}>
      {(control) => (
        <div className="dst-secret-row">
          <input
            {...control}
            className="dst-secret-input mono"
            type={revealed && !hidden ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            value={row.value}
            placeholder={row.stored ? `${row.stored.masked} (stored)` : 'none'}
            onChange={(e) => {
              setRevealError(null);
              onChange({ ...row, value: e.target.value });
            }}
          />
          <button
            type="button"
            className="btn btn-small dst-reveal"
            aria-label={`${revealed && !hidden ? 'Hide' : 'Reveal'} ${name}`}
            disabled={revealing || (!hidden && row.value === '')}
            onClick={() => void reveal()}
          >
            {revealed && !hidden ? 'Hide' : 'Reveal'}
          </button>
          <button
            type="button"
            className="btn btn-small"
            aria-label={first ? 'Generate a new Standard Webhooks secret' : 'Generate the next secret'}
            title="whsec_ and 32 random bytes in base64"
            onClick={() => {
              setRevealError(null);
              setRevealed(true);
              onChange({ ...row, value: generateSigningSecret() });
            }}
          >
            Generate
          </button>
          <CopyButton label={`Copy ${name}`} getText={() => row.value} className={row.value ? '' : 'dst-hidden'} />
          <button type="button" className="btn btn-small btn-quiet" aria-label={`Remove ${name}`} disabled={!canRemove} onClick={onRemove}>
            Remove
          </button>
        </div>
      )}
    </Field>
  );
}
