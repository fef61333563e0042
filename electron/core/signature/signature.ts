// Webhook signatures, with Node's crypto: the seed's X-Signature and Standard Webhooks' headers. The core
// signs and its receiver checks; the inspector checks in the page with WebCrypto (renderer/src/lib/hmac.ts).
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * X-Signature of a webhook request (seed §5.1): lowercase hex HMAC-SHA1, keyed with the shared
 * secret, of the UTF-8 bytes of the body exactly as sent.
 */
export function signBody(body: string, sharedSecret: string): string {
  return createHmac('sha1', sharedSecret).update(body, 'utf8').digest('hex');
}

/**
 * What a receiver written as the seed describes does: parse the body, stringify it again, sign that
 * and compare. Sluice sends `JSON.stringify(body)`, which survives this round trip byte for byte.
 */
export function verifyAsSeedReceiver(receivedBody: string, signature: string | undefined, sharedSecret: string): boolean {
  if (!signature) return false;
  let canonical: string;
  try {
    canonical = JSON.stringify(JSON.parse(receivedBody));
  } catch {
    return false;
  }
  return signBody(canonical, sharedSecret) === signature;
}

/** The key a `whsec_…` secret stands for (its base64 part, decoded). */
function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/**
 * Standard Webhooks (standardwebhooks.com): `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`
 * under each secret, space-separated — two while a secret is being rotated, so a receiver holding
 * either accepts the request.
 */
export function standardSignature(id: string, timestamp: number, body: string, secrets: readonly string[]): string {
  return secrets.map((secret) => `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`).join(' ');
}

/** The three Standard Webhooks headers of one attempt: the id stays the same across a delivery's retries. */
export function standardHeaders(id: string, nowMs: number, body: string, secrets: readonly string[]): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': standardSignature(id, timestamp, body, secrets) };
}

/** Whether any `v1,` signature in the header is the body's under any of the secrets. */
export function verifyStandard(
  body: string,
  headers: { id: string | undefined; timestamp: string | undefined; signature: string | undefined },
  secrets: readonly string[],
): boolean {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature || !/^\d+$/.test(timestamp)) return false;
  const sent = signature
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => Buffer.from(part.slice(3), 'base64'));
  return secrets.some((secret) => {
    const expected = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest();
    return sent.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
  });
}
