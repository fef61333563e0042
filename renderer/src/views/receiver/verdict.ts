/** What the built-in receiver's signature verdict means, in words a user can act on. */
import type { DestinationView } from '../../../../shared/contract.ts';
import type { InboxEntry, SignatureVerdict } from '../../../../shared/receiver.ts';
import type { Tone } from '../../store/outcome.ts';

export interface VerdictText {
  label: string;
  tone: Tone;
  why: string;
  /** The scheme the request was signed with, when it carried a signature: "X-Signature", "Standard Webhooks", or both. */
  scheme: string | null;
}

/** Which signatures a request carried: the seed's X-Signature, Standard Webhooks' webhook-signature. */
export function signaturesOf(headers: InboxEntry['headers']): { x: boolean; standard: boolean } {
  const has = (name: string) => Object.entries(headers).some(([k, v]) => k.toLowerCase() === name && v !== undefined);
  return { x: has('x-signature'), standard: has('webhook-signature') };
}

/** Whether a destination's requests carry a signature: a shared secret for X-Signature, or Standard Webhooks secrets. */
export function signsRequests(d: Pick<DestinationView, 'signing' | 'hasSecret' | 'maskedSigningSecrets'>): boolean {
  return (d.signing !== 'standard' && d.hasSecret) || (d.signing !== 'segment' && d.maskedSigningSecrets.length > 0);
}

/**
 * @param signers names of the destinations that post to this hook and sign their requests.
 * @param headers the request's headers: the verdict names the signatures they carried.
 */
export function explainVerdict(verdict: SignatureVerdict, signers: readonly string[], headers: InboxEntry['headers']): VerdictText {
  const named = signers.length > 0 ? signers.map((n) => `“${n}”`).join(', ') : null;
  const carried = signaturesOf(headers);
  const both = carried.x && carried.standard;
  const scheme = both ? 'X-Signature and Standard Webhooks' : carried.standard ? 'Standard Webhooks' : carried.x ? 'X-Signature' : null;
  switch (verdict) {
    case 'valid':
      return {
        label: '✓ valid',
        tone: 'ok',
        scheme,
        why: both
          ? `X-Signature and webhook-signature both match the body under ${named ? `the secrets of ${named}` : 'a destination’s secrets'}: the body arrived exactly as Sluice signed it.`
          : carried.standard
            ? `webhook-signature is the HMAC-SHA256 of webhook-id, webhook-timestamp and the body under ${named ? `a Standard Webhooks secret of ${named}` : 'a destination’s Standard Webhooks secret'}: the body arrived exactly as Sluice signed it.`
            : `X-Signature is the HMAC-SHA1 of the body under ${named ? `the shared secret of ${named}` : 'a destination’s shared secret'}: the body arrived exactly as Sluice signed it.`,
      };
    case 'invalid':
      return {
        label: '✗ invalid',
        tone: 'bad',
        scheme,
        why: both
          ? 'X-Signature or webhook-signature does not match the body under any destination’s secret of its kind: the body was changed after signing, or it was signed with a secret Sluice does not know.'
          : carried.standard
            ? 'webhook-signature does not match webhook-id, webhook-timestamp and the body under any destination’s Standard Webhooks secret: the request was changed after signing, or it was signed with a secret Sluice does not know.'
            : 'X-Signature does not match the body under any destination’s shared secret: the body was changed after signing, or it was signed with a secret Sluice does not know.',
      };
    case 'missing':
      return {
        label: '✗ missing',
        tone: 'bad',
        scheme,
        why: `No X-Signature or webhook-signature header, although ${named ?? 'a destination posting here'} signs its requests: this request was not sent by that destination, or its signing was set up after it was sent.`,
      };
    case 'unsigned':
      return {
        label: '○ unsigned',
        tone: 'muted',
        scheme,
        why: 'No X-Signature or webhook-signature header, and no destination posting here signs its requests, so there is nothing to check. Give the destination a secret (X-Signature’s shared secret, or Standard Webhooks’) to sign its deliveries.',
      };
    case 'unverifiable':
      return {
        label: '? unverifiable',
        tone: 'warn',
        scheme,
        why: both
          ? 'The request carries X-Signature and webhook-signature, but no destination has secrets of both kinds to check them with.'
          : carried.standard
            ? 'The request carries a webhook-signature, but no destination has a Standard Webhooks secret (whsec_…) to check it with.'
            : 'The request carries an X-Signature, but no destination has a shared secret to check it with.',
      };
  }
}
