/**
 * The signatures Sluice sends, recomputed in the page. X-Signature (electron/core/signature/signature.ts):
 * lowercase hex HMAC-SHA1 of the body's UTF-8 bytes, keyed with the shared secret. Standard Webhooks:
 * `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed with a `whsec_` secret's decoded bytes.
 * With WebCrypto; where it is not available (a page served on a LAN address is not a secure context),
 * with the small SHA-1 and SHA-256 below (`subtle: null` picks them, for tests).
 */
export async function hmacSha1Hex(secret: string, body: string, subtle: SubtleCrypto | null = globalThis.crypto?.subtle ?? null): Promise<string> {
  return toHex(await hmacWith('SHA-1', new TextEncoder().encode(secret), new TextEncoder().encode(body), subtle));
}

/** HMAC-SHA256 of `data` under the raw `key` bytes. */
export async function hmacSha256(key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>, subtle: SubtleCrypto | null = globalThis.crypto?.subtle ?? null): Promise<Uint8Array> {
  return hmacWith('SHA-256', key, data, subtle);
}

async function hmacWith(hash: 'SHA-1' | 'SHA-256', key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>, subtle: SubtleCrypto | null): Promise<Uint8Array> {
  if (subtle) {
    // WebCrypto refuses an empty HMAC key; the fallback computes it like Node does.
    if (key.length > 0) {
      const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash }, false, ['sign']);
      return new Uint8Array(await subtle.sign('HMAC', cryptoKey, data));
    }
  }
  return hmac(hash === 'SHA-1' ? sha1 : sha256, key, data);
}

/** Bytes as lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** HMAC (RFC 2104) over SHA-1, block size 64. */
export function hmacSha1(key: Uint8Array, data: Uint8Array): Uint8Array {
  return hmac(sha1, key, data);
}

/** HMAC (RFC 2104) over a hash whose block is 64 bytes (SHA-1, SHA-256). */
function hmac(hash: (message: Uint8Array) => Uint8Array, key: Uint8Array, data: Uint8Array): Uint8Array {
  const k = new Uint8Array(64);
  k.set(key.length > 64 ? hash(key) : key);
  const inner = new Uint8Array(64 + data.length);
  for (let i = 0; i < 64; i++) inner[i] = k[i]! ^ 0x36;
  inner.set(data, 64);
  const innerHash = hash(inner);
  const outer = new Uint8Array(64 + innerHash.length);
  for (let i = 0; i < 64; i++) outer[i] = k[i]! ^ 0x5c;
  outer.set(innerHash, 64);
  return hash(outer);
}

/** The message padded to whole 64-byte blocks, its bit length at the end (SHA-1 and SHA-256 alike). */
function padded(message: Uint8Array): DataView {
  const length = message.length;
  const bytes = new Uint8Array(((length + 8) >> 6) * 64 + 64);
  bytes.set(message);
  bytes[length] = 0x80;
  const view = new DataView(bytes.buffer);
  view.setUint32(bytes.length - 8, Math.floor((length * 8) / 2 ** 32));
  view.setUint32(bytes.length - 4, (length * 8) >>> 0);
  return view;
}

/** SHA-1 (FIPS 180-4). */
export function sha1(message: Uint8Array): Uint8Array {
  const view = padded(message);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  const w = new Uint32Array(80);
  for (let offset = 0; offset < view.byteLength; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 80; i++) {
      const x = w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!;
      w[i] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let i = 0; i < 80; i++) {
      const [f, k] =
        i < 20 ? [(b & c) | (~b & d), 0x5a827999] : i < 40 ? [b ^ c ^ d, 0x6ed9eba1] : i < 60 ? [(b & c) | (b & d) | (c & d), 0x8f1bbcdc] : [b ^ c ^ d, 0xca62c1d6];
      const t = (((a << 5) | (a >>> 27)) + f + e + k + w[i]!) >>> 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) >>> 0;
    h1 = (h1 + b) >>> 0;
    h2 = (h2 + c) >>> 0;
    h3 = (h3 + d) >>> 0;
    h4 = (h4 + e) >>> 0;
  }
  const out = new Uint8Array(20);
  const outView = new DataView(out.buffer);
  [h0, h1, h2, h3, h4].forEach((h, i) => outView.setUint32(i * 4, h));
  return out;
}

const SHA256_K = Uint32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 (FIPS 180-4). */
export function sha256(message: Uint8Array): Uint8Array {
  const view = padded(message);
  const h = Uint32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));
  for (let offset = 0; offset < view.byteLength; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const x = w[i - 15]!;
      const y = w[i - 2]!;
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
      w[i] = w[i - 16]! + s0 + w[i - 7]! + s1;
    }
    let [a, b, c, d, e, f, g, hh] = h as unknown as [number, number, number, number, number, number, number, number];
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + SHA256_K[i]! + w[i]!) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) >>> 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, hh].forEach((v, i) => (h[i] = h[i]! + v));
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  h.forEach((v, i) => outView.setUint32(i * 4, v));
  return out;
}

/** Bytes as base64 (btoa works on one char per byte). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The key a `whsec_…` secret stands for (its base64 part, decoded); null when it is not base64. */
export function standardKey(secret: string): Uint8Array<ArrayBuffer> | null {
  const encoded = secret.startsWith('whsec_') ? secret.slice(6) : secret;
  if (encoded === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  try {
    return Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Standard Webhooks' `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under one `whsec_` secret; null for a secret that is not base64. */
export async function standardSignature(secret: string, id: string, timestamp: string, body: string, subtle: SubtleCrypto | null = globalThis.crypto?.subtle ?? null): Promise<string | null> {
  const key = standardKey(secret);
  if (!key) return null;
  return `v1,${toBase64(await hmacSha256(key, new TextEncoder().encode(`${id}.${timestamp}.${body}`), subtle))}`;
}

export type SignatureVerdict =
  | { kind: 'match'; computed: string }
  | { kind: 'mismatch'; computed: string; why: string }
  | { kind: 'unsigned'; computed: string; why: string };

/** Compares a recomputed signature with the one that was sent, and says why they differ. */
export async function checkSignature(body: string, sent: string | null, secret: string): Promise<SignatureVerdict> {
  const computed = await hmacSha1Hex(secret, body);
  if (!sent) {
    return {
      kind: 'unsigned',
      computed,
      why: 'The request carried no X-Signature: the destination has no shared secret. Set one in its settings to have requests signed.',
    };
  }
  if (computed === sent.trim().toLowerCase()) return { kind: 'match', computed };
  const why =
    secret !== secret.trim()
      ? 'The secret you entered starts or ends with whitespace; secrets are used byte for byte.'
      : 'This secret does not produce the X-Signature that was sent: the destination signs with a different secret. The body shown is exactly the one that was signed, so a receiver that verifies the raw body (or JSON.stringify of the parsed body) with the right secret will match.';
  return { kind: 'mismatch', computed, why };
}

/** Standard Webhooks' three headers as a request carried them (null: absent). */
export interface StandardSent {
  id: string | null;
  timestamp: string | null;
  signature: string | null;
}

/**
 * Compares Standard Webhooks' webhook-signature with the signatures of one or more `whsec_` secrets
 * (separated by spaces): a match when any computed `v1,` signature is one of those sent — a receiver
 * holding any one of the secrets accepts the request, which is how rotation works.
 */
export async function checkStandardSignature(body: string, sent: StandardSent, secrets: string): Promise<SignatureVerdict> {
  const keys = secrets.split(/\s+/).filter((s) => s !== '');
  if (!sent.signature) return { kind: 'unsigned', computed: '', why: 'The request carried no webhook-signature: the destination does not sign with Standard Webhooks.' };
  if (!sent.id || !sent.timestamp) {
    return { kind: 'mismatch', computed: '', why: 'The request carried webhook-signature without webhook-id or webhook-timestamp, so there is nothing to recompute it over.' };
  }
  const computed = await Promise.all(keys.map((key) => standardSignature(key, sent.id!, sent.timestamp!, body)));
  if (keys.length === 0 || computed.includes(null)) {
    return { kind: 'mismatch', computed: '', why: 'That is not a Standard Webhooks secret: paste the whole value, “whsec_” and the key in base64 (several secrets separated by spaces).' };
  }
  const text = computed.join(' ');
  const signatures = sent.signature.split(/\s+/).filter((part) => part.startsWith('v1,'));
  if (computed.some((signature) => signatures.includes(signature!))) return { kind: 'match', computed: text };
  return {
    kind: 'mismatch',
    computed: text,
    why: `${keys.length > 1 ? 'None of these secrets produces' : 'This secret does not produce'} any of the v1 signatures that were sent: the destination signs with other secrets. Each is the HMAC-SHA256 of webhook-id, webhook-timestamp and the body shown, joined by dots, under the secret's base64-decoded key.`,
  };
}
