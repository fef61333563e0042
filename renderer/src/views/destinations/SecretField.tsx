import { useState } from 'react';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Field } from '../../components/Field.tsx';
import { generateSecret, type SecretState } from './destination-form.ts';

/**
 * The shared secret: masked until revealed. A stored secret stays in the core until Reveal (or a
 * save) reads it with `destinations.revealSecret`; a generated one is shown so it can be copied
 * into the receiver.
 */
export function SecretField({ secret, error, onChange, onReveal }: {
  secret: SecretState;
  error: string | undefined;
  onChange: (secret: SecretState) => void;
  /** Reads the stored secret; resolves with an error sentence, or null once it is in the form. */
  onReveal: () => Promise<string | null>;
}) {
  const [revealed, setRevealed] = useState(false);
  const [revealing, setRevealing] = useState(false);
  const [revealError, setRevealError] = useState<string | null>(null);
  const value = secret.kind === 'value' ? secret.value : '';
  const shown = error ?? revealError;
  const hint =
    secret.kind === 'stored'
      ? 'Stored: deliveries carry X-Signature, the HMAC-SHA1 of the body with this secret. Reveal it, or type to replace it.'
      : value
        ? 'Deliveries will carry X-Signature, the HMAC-SHA1 of the body with this secret; the receiver needs the same secret.'
        : 'None: deliveries are sent without X-Signature. Generate a secret to have them signed.';

  const reveal = async () => {
    if (secret.kind !== 'stored') {
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
    <Field id="dst-secret" className="dst-field" label="Shared secret" hint={hint} error={shown}>
      {(control) => (
        <div className="dst-secret-row">
          <input
            {...control}
            className="dst-secret-input mono"
            type={revealed && secret.kind !== 'stored' ? 'text' : 'password'}
            autoComplete="off"
            spellCheck={false}
            value={value}
            placeholder={secret.kind === 'stored' ? `${secret.masked} (stored)` : 'none'}
            onChange={(e) => {
              setRevealError(null);
              onChange(e.target.value === '' && secret.kind === 'stored' ? secret : { kind: 'value', value: e.target.value });
            }}
          />
          <button
            type="button"
            className="btn btn-small dst-reveal"
            aria-label={revealed && secret.kind !== 'stored' ? 'Hide shared secret' : 'Reveal shared secret'}
            disabled={revealing || (secret.kind === 'none' && value === '')}
            onClick={() => void reveal()}
          >
            {revealed && secret.kind !== 'stored' ? 'Hide' : 'Reveal'}
          </button>
          <button
            type="button"
            className="btn btn-small"
            aria-label="Generate a new shared secret"
            title="32 random bytes, hex"
            onClick={() => {
              setRevealError(null);
              setRevealed(true);
              onChange({ kind: 'value', value: generateSecret() });
            }}
          >
            Generate
          </button>
          <CopyButton label="Copy shared secret" getText={() => value} className={value ? '' : 'dst-hidden'} />
          <button
            type="button"
            className="btn btn-small btn-quiet"
            aria-label="Remove shared secret"
            disabled={secret.kind === 'none' || (secret.kind === 'value' && value === '')}
            onClick={() => {
              setRevealError(null);
              setRevealed(false);
              onChange({ kind: 'none' });
            }}
          >
            Remove
          </button>
        </div>
      )}
    </Field>
  );
}
