import { describe, expect, it } from 'vitest';
import { nestingDepth, scanBatch } from '../../electron/core/ingest/batch-slices.ts';

const batchElementSlices = (text: string) => scanBatch(text).slices;

/** The element texts the scanner finds, checked against what JSON.parse sees. */
function elements(text: string): string[] | null {
  const slices = batchElementSlices(text);
  if (!slices) return null;
  const out: string[] = [];
  for (let i = 0; i < slices.length; i += 2) out.push(text.slice(slices[i], slices[i + 1]));
  return out;
}

describe('batchElementSlices', () => {
  it.each([
    ['compact', '{"batch":[{"a":1},{"b":2}]}'],
    ['spaced and indented', '{\n  "sentAt": "x",\n  "batch" : [\n    { "a" : 1 } ,\n\t{"b":[1,2,{"c":"]"}]}\n  ]\n}'],
    ['strings with brackets, braces, commas and escaped quotes', '{"batch":[{"s":"a\\"],{b,"},{"t":"\\\\"}]}'],
    ['batch after other keys with nested "batch" keys', '{"context":{"batch":[1,2,3]},"x":{"y":"batch"},"batch":[{"k":"v"}]}'],
    ['primitive elements', '{"batch":[1, "two", null, true, {"five":5}, [6]]}'],
    ['empty batch', '{"batch":[]}'],
    ['unicode', '{"batch":[{"e":"Ünïcödé 🚀"},{"e":"日本"}]}'],
    ['a later "batch" key wins, as in JSON.parse', '{"batch":[{"old":1}],"batch":[{"new":1},{"new":2}]}'],
    ['an escaped "batch" key is "batch" too', '{"\\u0062atch":[{"k":"v"}]}'],
    ['a later escaped "batch" key wins over a plain one', '{"batch":[1,"x"],"\\u0062atch":[{"new":1},{"new":2}]}'],
    ['a later plain "batch" key wins over an escaped one', '{"b\\u0061tch":[{"old":1}],"batch":[{"new":1}]}'],
  ])('%s', (_, text) => {
    const found = elements(text)!;
    const parsed = (JSON.parse(text) as { batch: unknown[] }).batch;
    expect(found.map((e) => JSON.parse(e))).toEqual(parsed);
    for (const e of found) expect(e).toBe(e.trim());
  });

  it('finds nothing when there is no top-level batch array', () => {
    expect(batchElementSlices('{"batch":{"a":[1]}}')).toBeNull();
    expect(batchElementSlices('{"x":{"batch":[1]}}')).toBeNull();
    expect(batchElementSlices('{"batch":5}')).toBeNull();
    // The last "batch" is not an array (JSON.parse keeps it): an earlier array is not the batch.
    for (const last of ['5', 'null', 'true', '"s"', '{"a":[1]}']) {
      expect(batchElementSlices(`{"batch":[1,2],"batch":${last}}`), last).toBeNull();
      expect(batchElementSlices(`{"batch":[1,2],"\\u0062atch":${last}}`), last).toBeNull();
    }
    expect(batchElementSlices('{"batchx":[1],"\\u0078":[2]}')).toBeNull();
  });

  it('agrees with JSON.parse on generated batches', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 3 || r < 0.3) return ['a"b', 'c\\\\', '[{,}]', 'x', 'é🚀'][Math.floor(rand() * 5)];
      if (r < 0.45) return Math.floor(rand() * 1e6) / 7;
      if (r < 0.5) return null;
      if (r < 0.75) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      const entries: [string, unknown][] = [];
      const size = Math.floor(rand() * 4);
      for (let i = 0; i < size; i++) entries.push([rand() < 0.2 ? `k${i}"]` : `k${i}`, value(depth + 1)]);
      return Object.fromEntries(entries);
    };
    for (let n = 0; n < 300; n++) {
      const batch = Array.from({ length: Math.floor(rand() * 6) }, () => value(0));
      const text = JSON.stringify({ pre: value(1), batch, post: value(1) }, null, n % 3 === 0 ? 2 : undefined);
      expect(elements(text)!.map((e) => JSON.parse(e))).toEqual(batch);
    }
  });
});

describe('nesting depth', () => {
  it.each([
    ['1', 0],
    ['{}', 1],
    ['{"a":[1,{"b":[]}]}', 4],
    ['{"s":"[[[[{{{{"}', 1], // brackets inside strings do not count
    ['{"s":"\\"[[["}', 1],
  ])('%s nests %i deep', (text, depth) => {
    expect(nestingDepth(text)).toBe(depth);
  });

  it('scanBatch reports the deepest nesting of the whole body', () => {
    expect(scanBatch('{"batch":[{"a":{"b":[1]}}]}').maxDepth).toBe(5);
  });
});
