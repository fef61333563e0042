/**
 * X-Signature as Sluice computes it (shared/signature.ts): lowercase hex HMAC-SHA1 of the body's
 * UTF-8 bytes, keyed with the shared secret. In the browser with WebCrypto; where WebCrypto is not
 * available (a page that is not a secure context), with the small SHA-1 below.
 */
export async function hmacSha1Hex(secret: string, body: string, subtle: SubtleCrypto | undefined = globalThis.crypto?.subtle): Promise<string> {
  const encoder = new TextEncoder();
  const key = encoder.encode(secret);
  const data = encoder.encode(body);
  if (subtle) {
    const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
    return toHex(new Uint8Array(await subtle.sign('HMAC', cryptoKey, data)));
  }
  return toHex(hmacSha1(key, data));
}

/** Bytes as lowercase hex. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** HMAC (RFC 2104) over SHA-1, block size 64. */
export function hmacSha1(key: Uint8Array, data: Uint8Array): Uint8Array {
  let k = key.length > 64 ? sha1(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  k = block;
  const inner = new Uint8Array(64 + data.length);
  const outer = new Uint8Array(64 + 20);
  for (let i = 0; i < 64; i++) {
    inner[i] = k[i]! ^ 0x36;
    outer[i] = k[i]! ^ 0x5c;
  }
  inner.set(data, 64);
  outer.set(sha1(inner), 64);
  return sha1(outer);
}

/** SHA-1 (FIPS 180-4). */
export function sha1(message: Uint8Array): Uint8Array {
  const length = message.length;
  const padded = new Uint8Array(((length + 8) >> 6) * 64 + 64);
  padded.set(message);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor((length * 8) / 2 ** 32));
  view.setUint32(padded.length - 4, (length * 8) >>> 0);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  const w = new Uint32Array(80);
  for (let offset = 0; offset < padded.length; offset += 64) {
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
