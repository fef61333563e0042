// The page's SHA-256 and HMAC-SHA256 (renderer/src/lib/hmac.ts) — WebCrypto where there is a secure
// context, the pure-JS fallback where there is not — against Node's crypto, and the Standard Webhooks
// check against signatures made by the spec authors' `standardwebhooks` package.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { checkStandardSignature, hmacSha256, sha256, standardKey, standardSignature, toBase64 } from '../../renderer/src/lib/hmac.ts';

const bytes = (n: number, seed = 7) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('SHA-256 (the fallback)', () => {
  it('hashes like Node: empty, one byte, the padding boundaries and several blocks', () => {
    // 55/56 and 119/120 bytes: where the length no longer fits in the last block.
    for (const n of [0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 1000, 100_003]) {
      const message = bytes(n);
      expect(hex(sha256(message)), `${n} bytes`).toBe(createHash('sha256').update(message).digest('hex'));
    }
    expect(hex(sha256(new TextEncoder().encode('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('HMAC-SHA256, with WebCrypto and with the fallback', () => {
  it('matches Node for empty, short, block-sized and longer-than-a-block keys, over empty and multi-block messages', async () => {
    const keys = [0, 1, 24, 32, 64, 65, 100, 200].map((n) => bytes(n, n));
    const messages = [new Uint8Array(0), new TextEncoder().encode('msg_1.1764085184.{"a":"Ünïcödé 🎉"}'), bytes(64), bytes(5_000, 3)];
    for (const key of keys) {
      for (const message of messages) {
        const expected = createHmac('sha256', key).update(message).digest('hex');
        const label = `key ${key.length} B, message ${message.length} B`;
        expect(hex(await hmacSha256(key, message)), `WebCrypto, ${label}`).toBe(expected);
        expect(hex(await hmacSha256(key, message, null)), `fallback, ${label}`).toBe(expected);
      }
    }
  });

  it('reads a whsec_ secret as its base64-decoded key, and refuses what is not base64', () => {
    const key = randomBytes(32);
    expect(Buffer.from(standardKey(`whsec_${key.toString('base64')}`)!).equals(key)).toBe(true);
    expect(toBase64(key)).toBe(key.toString('base64'));
    expect(standardKey('whsec_not base64!')).toBeNull();
    expect(standardKey('whsec_')).toBeNull();
  });
});

describe('the Standard Webhooks check', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const next = `whsec_${randomBytes(24).toString('base64')}`;
  const body = JSON.stringify({ type: 'track', event: 'Ünïcödé 🎉', padding: 'x'.repeat(300) });
  const id = 'msg_2Kx9_17';
  const at = new Date(1_764_085_184_000);
  const timestamp = String(at.getTime() / 1000);
  const signed = new Webhook(secret).sign(id, at, body);
  const rotated = `${signed} ${new Webhook(next).sign(id, at, body)}`;

  it('computes what the spec authors’ package signs, with WebCrypto and the fallback', async () => {
    expect(await standardSignature(secret, id, timestamp, body)).toBe(signed);
    expect(await standardSignature(secret, id, timestamp, body, null)).toBe(signed);
  });

  it('says match for the secret that signed, or for any of a rotation’s secrets, and mismatch otherwise', async () => {
    expect(await checkStandardSignature(body, { id, timestamp, signature: signed }, secret)).toEqual({ kind: 'match', computed: signed });
    // Rotating: either secret alone matches one of the two signatures sent; both at once too.
    expect(await checkStandardSignature(body, { id, timestamp, signature: rotated }, next)).toMatchObject({ kind: 'match' });
    expect(await checkStandardSignature(body, { id, timestamp, signature: rotated }, ` ${secret}  ${next} `)).toEqual({ kind: 'match', computed: rotated });

    const wrong = await checkStandardSignature(body, { id, timestamp, signature: signed }, next);
    expect(wrong).toMatchObject({ kind: 'mismatch', why: expect.stringContaining('does not produce any of the v1 signatures') });
    expect(wrong.computed).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(wrong.computed).not.toBe(signed);
    // The id and the timestamp are signed too: another one of either does not match.
    expect(await checkStandardSignature(body, { id: 'msg_other', timestamp, signature: signed }, secret)).toMatchObject({ kind: 'mismatch' });
    expect(await checkStandardSignature(body, { id, timestamp: String(Number(timestamp) + 1), signature: signed }, secret)).toMatchObject({ kind: 'mismatch' });
    expect(await checkStandardSignature(`${body} `, { id, timestamp, signature: signed }, secret)).toMatchObject({ kind: 'mismatch' });
  });

  it('explains a secret that is not in the whsec_ form, and headers that cannot be checked', async () => {
    expect(await checkStandardSignature(body, { id, timestamp, signature: signed }, 'not-a-secret!')).toMatchObject({ kind: 'mismatch', why: expect.stringContaining('not a Standard Webhooks secret') });
    expect(await checkStandardSignature(body, { id: null, timestamp, signature: signed }, secret)).toMatchObject({ kind: 'mismatch', why: expect.stringContaining('without webhook-id or webhook-timestamp') });
    expect(await checkStandardSignature(body, { id, timestamp, signature: null }, secret)).toMatchObject({ kind: 'unsigned' });
  });
});
