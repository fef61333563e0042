// The seed's webhook signature (X-Signature), with Node's crypto: the core signs and its receiver checks. The
// inspector checks signatures in the page with WebCrypto (renderer/src/lib/hmac.ts).
import { createHmac } from 'node:crypto';

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
