/** What the built-in receiver's signature verdict means, in words a user can act on. */
import type { SignatureVerdict } from '../../../../shared/receiver.ts';
import type { Tone } from '../../store/outcome.ts';

export interface VerdictText {
  label: string;
  tone: Tone;
  why: string;
}

/**
 * @param signers names of the destinations that post to this hook with a shared secret.
 */
export function explainVerdict(verdict: SignatureVerdict, signers: readonly string[]): VerdictText {
  const named = signers.length > 0 ? signers.map((n) => `“${n}”`).join(', ') : null;
  switch (verdict) {
    case 'valid':
      return {
        label: '✓ valid',
        tone: 'ok',
        why: `X-Signature is the HMAC-SHA1 of the body under ${named ? `the shared secret of ${named}` : 'a destination’s shared secret'}: the body arrived exactly as Sluice signed it.`,
      };
    case 'invalid':
      return {
        label: '✗ invalid',
        tone: 'bad',
        why: 'X-Signature does not match the body under any destination’s shared secret: the body was changed after signing, or it was signed with a secret Sluice does not know.',
      };
    case 'missing':
      return {
        label: '✗ missing',
        tone: 'bad',
        why: `No X-Signature header, although ${named ?? 'a destination posting here'} has a shared secret: this request was not sent by that destination, or its secret was added after it was sent.`,
      };
    case 'unsigned':
      return {
        label: '○ unsigned',
        tone: 'muted',
        why: 'No X-Signature header, and no destination posting here has a shared secret, so there is nothing to check. Give the destination a shared secret to sign its deliveries.',
      };
    case 'unverifiable':
      return {
        label: '? unverifiable',
        tone: 'warn',
        why: 'The request carries an X-Signature, but no destination has a shared secret to check it with.',
      };
  }
}
