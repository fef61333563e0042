// The scanner that finds where a text stops being JSON (shared/json-error-place.ts) agrees with
// JSON.parse: on thousands of texts cut and changed from valid JSON, it finds an error exactly when
// JSON.parse throws, and at the position JSON.parse names whenever its message names one.
import { describe, expect, it } from 'vitest';
import { jsonErrorOffset, jsonErrorPlace } from '../../shared/json-error-place.ts';

const SAMPLE = JSON.stringify(
  { batch: [{ type: 'track', event: 'Order "Completed"', n: -12.5e-3, ok: true, no: false, none: null, list: [1, [2, {}], []], s: 'é😀\\n\u0001' }], sentAt: '2026-01-01' },
  null,
  2,
);
const NOISE = ['', ',', '}', ']', '{', '[', '"', '\\', ':', 'x', '0', '-', '.', 'e', ' ', '\n', 'tru', '\u0000', '\uFFFD', '01', '1.', '-x'];

/** A deterministic pseudo-random generator (a test must be repeatable). */
function random(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('jsonErrorOffset agrees with JSON.parse', () => {
  it('on texts cut and changed from valid JSON', () => {
    const next = random(29);
    let errors = 0;
    let positioned = 0;
    for (let k = 0; k < 5_000; k++) {
      const at = Math.floor(next() * SAMPLE.length);
      const cutTo = next() < 0.2 ? at : SAMPLE.length;
      const text = SAMPLE.slice(0, at) + NOISE[Math.floor(next() * NOISE.length)] + SAMPLE.slice(at + Math.floor(next() * 3), cutTo);
      let message: string | null = null;
      try {
        JSON.parse(text);
      } catch (error) {
        message = (error as Error).message;
      }
      const offset = jsonErrorOffset(text);
      expect(offset === null, text).toBe(message === null);
      if (message === null) continue;
      errors++;
      const named = /at position (\d+)/.exec(message);
      if (named) {
        positioned++;
        expect(offset, `${text}\n${message}`).toBe(Number(named[1]));
      } else if (/Unexpected end of JSON input/.test(message)) expect(offset).toBe(text.length);
      else if (/Unexpected token/.test(message)) {
        // V8 names the character it refused: the scanner stops at that one.
        const token = /Unexpected token '(.+?)', /s.exec(message)?.[1];
        if (token !== undefined) expect(text.slice(offset!).startsWith(token), `${text}\n${message}`).toBe(true);
      }
    }
    expect(errors).toBeGreaterThan(3_000);
    expect(positioned).toBeGreaterThan(500);
  });

  it('on a million arrays deep: no stack overflow', () => {
    expect(jsonErrorOffset('['.repeat(1_000_000))).toBe(1_000_000);
  });

  it('lines: the first line, lines of \\r\\n, a line after a blank one', () => {
    expect(jsonErrorPlace('x')).toMatchObject({ line: 1, column: 1, lines: [{ number: 1, text: 'x' }], mark: 0 });
    expect(jsonErrorPlace('{\r\n"a":\r\n\r\n]}')).toMatchObject({
      line: 4,
      column: 1,
      lines: [
        { number: 2, text: '"a":' },
        { number: 3, text: '' },
        { number: 4, text: ']}' },
      ],
    });
    expect(jsonErrorPlace('\n x')).toMatchObject({ line: 2, column: 2, lines: [{ number: 1, text: '' }, { number: 2, text: ' x' }] });
  });
});
