// The Webhook tab's body and the JSON tree's folding, without a browser: JSON indented token by token
// (the same as JSON.stringify's indentation for whole JSON, and its start for JSON cut anywhere),
// which nodes start open, what a folded node says, how many children show; and the core's cut of a
// big body in a message's detail (at a character boundary, with the whole size).
import { describe, expect, it } from 'vitest';
import { withBodyPreview } from '../../electron/core/api/views.ts';
import { BODY_PREVIEW_BYTES } from '../../shared/limits.ts';
import type { DeliveryView } from '../../shared/contract.ts';
import { CHILD_PAGE, childrenShown, FOLD_DEPTH, FOLD_ENTRIES, FOLD_LINES, foldedSummary, shownLines, startsOpen } from '../../renderer/src/components/json-fold.ts';
import { indentJson, parseBody } from '../../renderer/src/views/stream/body-text.ts';

const samples: unknown[] = [
  { version: 1, type: 'track', userId: 'u_1', event: 'Order Completed', properties: { revenue: 42.5, products: [{ sku: 'a' }, { sku: 'b' }], empty: {}, none: [] } },
  [1, -2.5e-7, true, false, null, 'x', [], {}, [[]], { a: { b: { c: [1, { d: null }] } } }],
  { tricky: 'braces { } [ ] , : and "quotes" and \\ backslashes \\" and \n newlines \u2028 ☃ 😀', 'key with : and ,': '{"json":"in a string"}' },
  'a string alone',
  12345,
  {},
];

describe('indentJson', () => {
  it('indents whole JSON exactly as JSON.stringify(value, null, 2) does', () => {
    for (const value of samples) expect(indentJson(JSON.stringify(value))).toBe(JSON.stringify(value, null, 2));
  });

  it('ignores the whitespace of JSON that was already indented', () => {
    const value = samples[0];
    expect(indentJson(JSON.stringify(value, null, 4))).toBe(JSON.stringify(value, null, 2));
  });

  it('gives, for the text cut anywhere, the start of what the whole text gives', () => {
    for (const value of samples) {
      const text = JSON.stringify(value);
      const whole = indentJson(text);
      for (let cut = 0; cut <= text.length; cut++) {
        const start = indentJson(text.slice(0, cut));
        expect(whole.startsWith(start), `${JSON.stringify(text.slice(0, cut))} → ${JSON.stringify(start)}`).toBe(true);
      }
    }
  });

  it('does not refuse text that is not JSON, and keeps every character that is not whitespace between tokens', () => {
    expect(indentJson('{"a":1}}]')).toBe('{\n  "a": 1\n}\n}\n]');
    expect(indentJson('not json')).toBe('notjson');
    const text = JSON.stringify(samples[2]);
    expect(indentJson(text).replace(/\n */g, '').replace(/": /g, '":')).toBe(text);
  });

  it('indents 200 KB in one pass, quickly', () => {
    const big = JSON.stringify({ items: Array.from({ length: 3000 }, (_, i) => ({ sku: `sku_${i}`, name: `Product ${i}`, price: i / 10 })) });
    expect(big.length).toBeGreaterThan(150_000);
    expect(indentJson(big)).toBe(JSON.stringify(JSON.parse(big), null, 2));
  });
});

describe('parseBody', () => {
  it('parses JSON and says when a body is not JSON', () => {
    expect(parseBody('{"a":[1]}')).toEqual({ ok: true, value: { a: [1] } });
    expect(parseBody('{"a":')).toEqual({ ok: false });
    expect(parseBody('')).toEqual({ ok: false });
  });
});

describe('folding', () => {
  it('opens the root whatever its size, small nodes near the top, nothing deep', () => {
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]));
    expect(startsOpen(wide, 0)).toBe(true);
    expect(startsOpen({ a: 1 }, 1)).toBe(true);
    expect(startsOpen({ a: { b: 1 } }, 2)).toBe(true);
    expect(startsOpen({ a: 1 }, 3)).toBe(false);
  });

  it('folds a node with many entries or many lines below the root', () => {
    const entries = (n: number) => Array.from({ length: n }, (_, i) => i);
    expect(startsOpen(entries(FOLD_ENTRIES), 1)).toBe(true);
    expect(startsOpen(entries(FOLD_ENTRIES + 1), 1)).toBe(false);
    // Few entries, but each an open object of many lines: too many lines in all.
    const objects = (n: number) => Array.from({ length: n }, () => Object.fromEntries(Array.from({ length: 28 }, (_, i) => [`f${i}`, i])));
    expect(shownLines(objects(3), 1)).toBe(2 + 3 * 30);
    expect(2 + 5 * 30).toBeGreaterThan(FOLD_LINES);
    expect(startsOpen(objects(5), 1)).toBe(false);
  });

  it('counts a child that starts folded as one line: an object holding a big array opens, the array stays folded', () => {
    const properties = { total: 42, products: Array.from({ length: 40 }, (_, i) => ({ sku: `sku_${i}` })), shipping: { city: 'Lyon' } };
    expect(startsOpen(properties.products, 2)).toBe(false);
    expect(startsOpen(properties.shipping, 2)).toBe(true);
    expect(shownLines(properties, 1)).toBe(2 + 1 + 1 + 3);
    expect(startsOpen(properties, 1)).toBe(true);
    // Lines as JSON.stringify would indent them, for a small value that opens whole.
    const small = { a: 1, b: [1, 2], c: {} };
    expect(shownLines(small, 1)).toBe(JSON.stringify(small, null, 2).split('\n').length);
    // Deeper than FOLD_DEPTH: folded, whatever its size.
    expect(shownLines({ a: 1 }, FOLD_DEPTH)).toBe(1);
  });

  it('says what a folded node holds', () => {
    expect(foldedSummary({ a: 1, b: 2 })).toEqual({ braces: '{…}', count: '2 keys' });
    expect(foldedSummary({ a: 1 })).toEqual({ braces: '{…}', count: '1 key' });
    expect(foldedSummary(Array.from({ length: 1234 }))).toEqual({ braces: '[…]', count: '1,234 items' });
    expect(foldedSummary([0])).toEqual({ braces: '[…]', count: '1 item' });
  });

  it('shows a page of children, more when asked, and as far as a child that holds a note', () => {
    expect(childrenShown(5000, CHILD_PAGE, -1)).toBe(CHILD_PAGE);
    expect(childrenShown(5000, CHILD_PAGE * 2, -1)).toBe(CHILD_PAGE * 2);
    expect(childrenShown(5000, CHILD_PAGE, 4321)).toBe(4322);
    expect(childrenShown(10, CHILD_PAGE, -1)).toBe(10);
  });
});

describe('withBodyPreview', () => {
  const view = (body: string | null): DeliveryView =>
    ({ id: 1, body, signature: null, attempts: [] }) as unknown as DeliveryView;

  it('leaves a body within the limit as it is, and says nothing of its size', () => {
    const body = 'é'.repeat(BODY_PREVIEW_BYTES / 2); // exactly the limit in bytes
    const shown = withBodyPreview(view(body));
    expect(shown.body).toBe(body);
    expect(shown.bodyBytes).toBeUndefined();
    expect(withBodyPreview(view(null)).body).toBeNull();
  });

  it('cuts a bigger body at a character boundary, with its whole size in bytes', () => {
    // 1 ASCII byte then 4-byte characters: the limit falls inside one.
    const body = `x${'😀'.repeat(BODY_PREVIEW_BYTES / 4 + 10)}`;
    const shown = withBodyPreview(view(body));
    expect(shown.bodyBytes).toBe(Buffer.byteLength(body));
    expect(body.startsWith(shown.body!)).toBe(true);
    expect(Buffer.byteLength(shown.body!)).toBe(1 + 4 * Math.floor((BODY_PREVIEW_BYTES - 1) / 4));
    expect(shown.body).not.toContain('\uFFFD');
  });
});
