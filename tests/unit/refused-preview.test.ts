// refusedPreview (ingest/refused-requests.ts): the start of a refused body as stored, with write keys masked.
import { describe, expect, it } from 'vitest';
import { REFUSED_PREVIEW_BYTES, refusedPreview } from '../../electron/core/ingest/refused-requests.ts';

const bytes = (text: string) => new Uint8Array(Buffer.from(text));

describe('refusedPreview', () => {
  it('masks every writeKey value but its last four characters, and keeps the rest as sent', () => {
    const body = '{"writeKey" : "wk_live_secret_1234","batch":[{"writeKey":"abc","event":"E"}],"n":12345678901234567890}';
    expect(refusedPreview(bytes(body))).toBe('{"writeKey" : "••••1234","batch":[{"writeKey":"••••","event":"E"}],"n":12345678901234567890}');
  });

  it('masks a value with escapes, and one the preview cuts short', () => {
    expect(refusedPreview(bytes('{"writeKey":"a\\"b_secret_WXYZ"}'))).toBe('{"writeKey":"••••WXYZ"}');
    // The key in an escaped spelling is the same key to JSON.parse (and to the writeKey the body names).
    expect(refusedPreview(bytes('{"write\\u004bey":"wk_escaped_ABCD","event":"E"}'))).toBe('{"write\\u004bey":"••••ABCD","event":"E"}');
    const cut = `{"pad":"${'x'.repeat(REFUSED_PREVIEW_BYTES - 40)}","writeKey":"${'s'.repeat(5000)}"}`;
    const preview = refusedPreview(bytes(cut));
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(REFUSED_PREVIEW_BYTES);
    expect(preview).not.toContain('sssss');
    expect(preview.endsWith('"writeKey":"••••')).toBe(true);
  });

  it('cuts at a character, never inside one', () => {
    const preview = refusedPreview(bytes('é'.repeat(REFUSED_PREVIEW_BYTES)));
    expect(preview).toBe('é'.repeat(REFUSED_PREVIEW_BYTES / 2));
  });
});
