/**
 * Header names whose values are credentials: a webhook's static `Authorization: Bearer …`,
 * `X-Api-Key` and the like. The inspector masks their values until revealed, as it masks the shared
 * secret (DESIGN.md §6), so a screen share or a screenshot of a delivery does not hand out a token.
 * `X-Signature` is derived from the secret, not the secret itself, and stays visible: it is what a
 * user compares with the receiver's.
 */
const CREDENTIAL_NAME = /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|passw|api[-_]?key|auth|session|credential/i;

export function isCredentialHeader(name: string): boolean {
  return name.toLowerCase() !== 'x-signature' && CREDENTIAL_NAME.test(name);
}

/** A credential's value as shown until revealed: its auth scheme (Bearer, Basic, …) stays readable, the rest does not. */
export function maskedHeaderValue(value: string): string {
  if (value === '') return '';
  const scheme = /^(Bearer|Basic|Token|Digest|ApiKey|Negotiate)\s+\S/i.exec(value);
  return `${scheme ? `${scheme[1]} ` : ''}••••••••`;
}
