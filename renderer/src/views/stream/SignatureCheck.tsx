import { useId, useState } from 'react';
import type { DestinationView } from '../../../../shared/contract.ts';
import { Field } from '../../components/Field.tsx';
import { checkSignature, checkStandardSignature, type SignatureVerdict, type StandardSent } from '../../lib/hmac.ts';
import { useInspector } from '../../store/react.ts';

/** Which signature a check recomputes: the seed's X-Signature, or Standard Webhooks' webhook-signature (with the id and timestamp it signs). */
export type SignedWith = { scheme: 'x-signature'; signature: string | null } | { scheme: 'standard'; sent: StandardSent };

/**
 * Recomputes a signature in the browser (WebCrypto, or the fallback of lib/hmac.ts) with a pasted
 * secret or the destination's own, and compares it with the one that was sent: X-Signature (HMAC-SHA1
 * of the body's UTF-8 bytes) or webhook-signature (HMAC-SHA256 of "id.timestamp.body", any of its v1
 * signatures).
 */
export function SignatureCheck({ body, loadBody, signed, destination, bodySent, title = 'Signature check' }: {
  body: string;
  /** The whole body, when `body` is only its start (a big body: the check reads it all first). */
  loadBody?: (() => Promise<string>) | undefined;
  signed: SignedWith;
  destination: DestinationView | undefined;
  bodySent: boolean;
  title?: string;
}) {
  const inspector = useInspector();
  const id = useId();
  const [secret, setSecret] = useState('');
  const [reveal, setReveal] = useState(false);
  const [verdict, setVerdict] = useState<SignatureVerdict | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const standard = signed.scheme === 'standard';
  const secretLabel = standard ? 'Standard Webhooks secret' : 'Shared secret';
  // The destination's own secrets, when it has some of this kind.
  const own = !destination ? 0 : standard ? destination.maskedSigningSecrets.length : destination.hasSecret ? 1 : 0;

  const check = async (value: string) => {
    setBusy(true);
    setProblem(null);
    try {
      const text = loadBody ? await loadBody() : body;
      setVerdict(signed.scheme === 'standard' ? await checkStandardSignature(text, signed.sent, value) : await checkSignature(text, signed.signature, value));
    } catch (error) {
      setVerdict(null);
      setProblem(`Could not compute the signature: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const checkOwn = async () => {
    const result = await inspector.call('destinations.revealSecret', { id: destination!.id });
    const value = !result.ok ? null : standard ? result.value.signingSecrets.join(' ') || null : result.value.secret;
    if (value === null) {
      const none = standard ? 'The destination has no Standard Webhooks secret.' : 'The destination has no shared secret.';
      setProblem(result.ok ? none : `Could not read the destination’s secret: ${result.error.message}`);
      return;
    }
    setSecret(value);
    await check(value);
  };

  return (
    <section className="signature-check" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`} className="section-title">
        {title}
      </h3>
      {!bodySent ? (
        <p className="muted">Nothing has been sent yet, so there is no signature to check.</p>
      ) : (
        <>
          <p className="hint">
            {standard
              ? 'webhook-signature holds “v1,” and the base64 HMAC-SHA256 of webhook-id, webhook-timestamp and the body above joined by dots, keyed with the base64-decoded part of a whsec_ secret — one signature per secret while rotating. Paste a secret, or several separated by spaces, to recompute it here (nothing leaves this window).'
              : 'X-Signature is the lowercase hex HMAC-SHA1 of the body above, keyed with the destination’s shared secret. Paste a secret to recompute it here (nothing leaves this window).'}
          </p>
          <form
            className="signature-form"
            onSubmit={(e) => {
              e.preventDefault();
              void check(secret);
            }}
          >
            <Field className="field-grow" label={secretLabel}>
              {(control) => (
                <input
                  {...control}
                  type={reveal ? 'text' : 'password'}
                  aria-label={secretLabel}
                  placeholder={standard ? 'whsec_…' : undefined}
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
            {/* A toggle: its name stays, aria-pressed says whether the secret is shown. */}
            <button type="button" className="btn btn-small" aria-label={`Show ${standard ? 'Standard Webhooks secret' : 'shared secret'}`} aria-pressed={reveal} onClick={() => setReveal(!reveal)}>
              Show
            </button>
            <button type="submit" className="btn btn-primary" disabled={busy || secret === ''}>
              {standard ? 'Check webhook-signature' : 'Check X-Signature'}
            </button>
            {destination && own > 0 ? (
              <button type="button" className="btn" disabled={busy} onClick={() => void checkOwn()}>
                Use “{destination.name}” {standard ? (own > 1 ? 'Standard Webhooks secrets' : 'Standard Webhooks secret') : 'shared secret'}
              </button>
            ) : null}
          </form>
          <div role="status" aria-live="polite" className="signature-result">
            {problem ? <p className="error-text">{problem}</p> : null}
            {verdict ? <Verdict verdict={verdict} signed={signed} /> : null}
          </div>
        </>
      )}
    </section>
  );
}

function Verdict({ verdict, signed }: { verdict: SignatureVerdict; signed: SignedWith }) {
  const title =
    verdict.kind === 'match' ? '✓ Signature matches' : verdict.kind === 'mismatch' ? '✗ Signature does not match' : '– Request was not signed';
  const sent = signed.scheme === 'standard' ? signed.sent.signature : signed.signature;
  const matched =
    signed.scheme === 'standard'
      ? 'This secret signs this webhook-id, webhook-timestamp and exact body to a v1 signature that was sent. A receiver with it accepts the request (Standard Webhooks receivers also refuse a webhook-timestamp more than a few minutes away from their clock).'
      : 'This secret signs this exact body to the X-Signature that was sent. A receiver with it accepts the request.';
  return (
    <div className={`verdict verdict-${verdict.kind}`}>
      <p className="verdict-title">{title}</p>
      {verdict.kind === 'match' ? <p>{matched}</p> : <p>{verdict.why}</p>}
      <dl className="facts">
        {signed.scheme === 'standard' ? (
          <div className="fact">
            <dt>signed</dt>
            <dd>
              <code>
                {signed.sent.id ?? '(no webhook-id)'}.{signed.sent.timestamp ?? '(no webhook-timestamp)'}.‹the body above›
              </code>
            </dd>
          </div>
        ) : null}
        <div className="fact">
          <dt>sent</dt>
          <dd>
            <code>{sent ?? '(none)'}</code>
          </dd>
        </div>
        <div className="fact">
          <dt>computed</dt>
          <dd>
            <code>{verdict.computed || '(nothing)'}</code>
          </dd>
        </div>
      </dl>
    </div>
  );
}
