import { useState } from 'react';
import { isCredentialHeader, maskedHeaderValue } from '../lib/credential-headers.ts';

/** A header's value in a headers table: a credential's is masked until revealed (lib/credential-headers.ts). */
export function HeaderValue({ name, value }: { name: string; value: string }) {
  const [revealed, setRevealed] = useState(false);
  if (!isCredentialHeader(name) || value === '') return <code>{value}</code>;
  return (
    <span className="header-credential">
      <code>{revealed ? value : maskedHeaderValue(value)}</code>
      <button type="button" className="btn btn-small btn-quiet" aria-pressed={revealed} aria-label={`${revealed ? 'Hide' : 'Reveal'} ${name}`} onClick={() => setRevealed(!revealed)}>
        {revealed ? 'Hide' : 'Reveal'}
      </button>
    </span>
  );
}
