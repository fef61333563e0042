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

type Json = unknown;
type JsonPath = (string | number)[];

/**
 * A JSON value (a transform's settings) with the value of each member whose name says credential
 * (isCredentialName), at any depth, replaced by SECRET_MASK: `{ apiKey, amplitude: { apiKey },
 * headers: { Authorization } }` shows none of the three. Empty values (null, '') stay as they are.
 */
export function maskCredentialValues(value: Json): Json {
  if (Array.isArray(value)) return value.map(maskCredentialValues);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [name, isCredentialName(name) && member !== null && member !== undefined && member !== '' ? SECRET_MASK : maskCredentialValues(member)]),
  );
}

/**
 * The inverse for a save: each SECRET_MASK in `value` (at any depth) is replaced by what `stored` holds
 * at the same place, so that an editor shown masked values can send them back. `missing` lists the
 * places where a mask stands and nothing is stored (a save should refuse those, not store the mask).
 */
export function keepMaskedValues(value: Json, stored: Json): { value: Json; missing: JsonPath[] } {
  const missing: JsonPath[] = [];
  const walk = (v: Json, s: Json, at: JsonPath): Json => {
    if (v === SECRET_MASK) {
      if (s === undefined) missing.push(at);
      return s;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, Array.isArray(s) ? s[i] : undefined, [...at, i]));
    if (v === null || typeof v !== 'object') return v;
    const from = s !== null && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, Json>) : {};
    return Object.fromEntries(Object.entries(v).map(([name, member]) => [name, walk(member, Object.hasOwn(from, name) ? from[name] : undefined, [...at, name])]));
  };
  return { value: walk(value, stored, []), missing };
}
