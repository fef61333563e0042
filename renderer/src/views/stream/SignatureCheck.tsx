import { useId, useState } from 'react';
import type { DestinationView } from '../../../../shared/contract.ts';
import { Field } from '../../components/Field.tsx';
import { checkSignature, type SignatureVerdict } from '../../lib/hmac.ts';
import { useInspector } from '../../store/react.ts';

/**
 * Recomputes X-Signature in the browser (HMAC-SHA1 of the body's UTF-8 bytes, WebCrypto) with a
 * pasted secret or the destination's own, and compares it with the one that was sent.
 */
export function SignatureCheck({ body, signature, destination, bodySent }: {
  body: string;
  signature: string | null;
  destination: DestinationView | undefined;
  bodySent: boolean;
}) {
  const inspector = useInspector();
  const id = useId();
  const [secret, setSecret] = useState('');
  const [reveal, setReveal] = useState(false);
  const [verdict, setVerdict] = useState<SignatureVerdict | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const check = async (value: string) => {
    setBusy(true);
    setProblem(null);
    try {
      setVerdict(await checkSignature(body, signature, value));
    } catch (error) {
      setVerdict(null);
      setProblem(`Could not compute the signature: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="signature-check" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} className="section-title">
        Signature check
      </h3>
      {!bodySent ? (
        <p className="muted">Nothing has been sent yet, so there is no X-Signature to check.</p>
      ) : (
        <>
          <p className="hint">
            X-Signature is the lowercase hex HMAC-SHA1 of the body above, keyed with the destination’s shared secret. Paste a secret to
            recompute it here (nothing leaves this window).
          </p>
          <form
            className="signature-form"
            onSubmit={(e) => {
              e.preventDefault();
              void check(secret);
            }}
          >
            <Field className="field-grow" label="Shared secret">
              {(control) => (
                <input
                  {...control}
                  type={reveal ? 'text' : 'password'}
                  aria-label="Shared secret"
                  value={secret}
                  onChange={(e) => {
                    setSecret(e.target.value);
                    setVerdict(null);
                  }}
                  autoComplete="off"
                  spellCheck={false}
                />
              )}
            </Field>
            <button type="button" className="btn btn-small" aria-pressed={reveal} onClick={() => setReveal(!reveal)}>
              {reveal ? 'Hide' : 'Show'}
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy || secret === ''}>
              Check signature
            </button>
            {destination?.hasSecret ? (
              <button
                type="button"
                className="btn"
                disabled={busy}
                onClick={async () => {
                  const result = await inspector.call('destinations.revealSecret', { id: destination.id });
                  if (!result.ok || result.value.secret === null) {
                    setProblem(result.ok ? 'The destination has no shared secret.' : `Could not read the destination’s secret: ${result.error.message}`);
                    return;
                  }
                  setSecret(result.value.secret);
                  await check(result.value.secret);
                }}
              >
                Use “{destination.name}” secret
              </button>
            ) : null}
          </form>
          <div role="status" aria-live="polite" className="signature-result">
            {problem ? <p className="error-text">{problem}</p> : null}
            {verdict ? <Verdict verdict={verdict} sent={signature} /> : null}
          </div>
        </>
      )}
    </section>
  );
}

function Verdict({ verdict, sent }: { verdict: SignatureVerdict; sent: string | null }) {
  const title =
    verdict.kind === 'match' ? '✓ Signature matches' : verdict.kind === 'mismatch' ? '✗ Signature does not match' : '– Request was not signed';
  return (
    <div className={`verdict verdict-${verdict.kind}`}>
      <p className="verdict-title">{title}</p>
      {verdict.kind === 'match' ? <p>This secret signs this exact body to the X-Signature that was sent. A receiver with it accepts the request.</p> : <p>{verdict.why}</p>}
      <dl className="facts">
        <div className="fact">
          <dt>sent</dt>
          <dd>
            <code>{sent ?? '(none)'}</code>
          </dd>
        </div>
        <div className="fact">
          <dt>computed</dt>
          <dd>
            <code>{verdict.computed}</code>
          </dd>
        </div>
      </dl>
    </div>
  );
}
