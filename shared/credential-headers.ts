/**
 * Header names whose values are credentials: a webhook's static `Authorization: Bearer …`,
 * `X-Api-Key`, a forward's `Authorization: Basic <write key>` and the like. Their values are masked
 * until revealed, as the shared secret and a Tracking API's write key are (DESIGN.md §6): the core
 * masks them in the attempts it gives the inspector (api/views.ts), the HAR export leaves them out
 * (transfer/har.ts), and the inspector masks what it shows of a webhook's own headers, so a screen
 * share, a screenshot or a shared file does not hand out a token. `X-Signature` is derived from the
 * secret, not the secret itself, and stays visible: it is what a user compares with the receiver's.
 */
const CREDENTIAL_NAME = /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|passw|api[-_]?key|auth|session|credential/i;

export function isCredentialHeader(name: string): boolean {
  return name.toLowerCase() !== 'x-signature' && isCredentialName(name);
}

/** A name (a header's, a transform setting's) whose value is taken for a credential: `apiKey`, `token`, `password`, `auth`… */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/**
 * What the inspector shows of a stored secret (a shared secret, a Standard Webhooks secret, a write
 * key, a credential header or transform setting): that there is one, and not a character of it — a
 * prefix shortens a guess and, in a screen share or a screenshot, names the secret. *Reveal* reads it
 * (destinations.revealSecret, deliveries.revealHeader).
 */
export const SECRET_MASK = '••••••••';

/** A credential's value as shown until revealed: its auth scheme (Bearer, Basic, …) stays readable, the rest does not. */
export function maskedHeaderValue(value: string): string {
  if (value === '') return '';
  const scheme = /^(Bearer|Basic|Token|Digest|ApiKey|Negotiate)\s+\S/i.exec(value);
  return `${scheme ? `${scheme[1]} ` : ''}${SECRET_MASK}`;
}

/** Headers with each credential's value masked (maskedHeaderValue), and the names masked. */
export function maskCredentials(headers: Record<string, string>): { headers: Record<string, string>; masked: string[] } {
  const masked: string[] = [];
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (isCredentialHeader(name) && value !== '') {
      masked.push(name);
      out[name] = maskedHeaderValue(value);
    } else out[name] = value;
  }
  return { headers: out, masked };
}
