import { useState } from 'react';
import { isCredentialHeader, maskedHeaderValue } from '../../../shared/credential-headers.ts';

/**
 * A header's value in a headers table: a credential's is masked until revealed
 * (shared/credential-headers.ts). `reveal`: the value came masked from the core (an attempt's
 * request: AttemptView.maskedHeaders), and Reveal reads it from there, as the destination editor
 * reads a write key; without it the value is here and Reveal only shows it.
 */
export function HeaderValue({ name, value, reveal }: { name: string; value: string; reveal?: () => Promise<string> }) {
  const [revealed, setRevealed] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (!reveal && (!isCredentialHeader(name) || value === '')) return <code>{value}</code>;
  const shown = revealed !== null;
  const toggle = async () => {
    if (shown) return setRevealed(null);
    if (!reveal) return setRevealed(value);
    setBusy(true);
    setProblem(null);
    try {
      setRevealed(await reveal());
    } catch (error) {
      setProblem(`Could not reveal ${name}: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="header-credential">
      <code>{shown ? revealed : reveal ? value : maskedHeaderValue(value)}</code>
      <button type="button" className="btn btn-small btn-quiet" aria-pressed={shown} aria-label={`${shown ? 'Hide' : 'Reveal'} ${name}`} disabled={busy} onClick={() => void toggle()}>
        {shown ? 'Hide' : 'Reveal'}
      </button>
      {problem ? (
        <span role="alert" className="error-text">
          {problem}
        </span>
      ) : null}
    </span>
  );
}
