// withoutMember (ingest/batch-slices.ts): a stored message's text without its top-level `writeKey`,
// the rest exactly as written — not re-serialized, so big integers, spacing and escapes stay.
import { describe, expect, it } from 'vitest';
import { withoutMember } from '../../electron/core/ingest/batch-slices.ts';

describe('withoutMember', () => {
  it.each([
    ['{"writeKey":"k","a":1}', '{"a":1}'],
    ['{"a":1,"writeKey":"k"}', '{"a":1}'],
    ['{ "a" : 1 , "writeKey" : "k" , "b" : 2 }', '{ "a" : 1 , "b" : 2 }'],
    ['{"a":1,"writeKey":"k","b":[1,{"writeKey":2}]}', '{"a":1,"b":[1,{"writeKey":2}]}'], // only the top level
    ['{"writ\\u0065Key":"k","n":12345678901234567890}', '{"n":12345678901234567890}'], // an escaped spelling is the same key
    ['{"a":{"b":"}"},"writeKey":"x\\"y", "c":true}', '{"a":{"b":"}"},"c":true}'],
    ['{"writeKey":"a","writeKey":"b"}', '{}'], // every copy (JSON.parse keeps the last)
    ['{"x":1,"writeKey":"a","y":2,"writeKey":"b"}', '{"x":1,"y":2}'],
    ['{"a":1,"writeKey":"x","writeKey":"y"}', '{"a":1}'], // a run of them last: the comma before the run goes
    ['{"a":1, "writeKey":"x" , "writeKey":"y" }', '{"a":1 }'],
    ['{"writeKey":"x","writeKey":"y","a":1,"writeKey":"z"}', '{"a":1}'],
    ['{"a":1,"writeKey":"x","writeKey":"y","b":2}', '{"a":1,"b":2}'],
    ['{"a":"writeKey","b":null,"writeKey":null}', '{"a":"writeKey","b":null}'], // a value, not a key
    ['{"writeKey":{"nested":[1,2,{"c":"]"}]},"e":-1.5e3}', '{"e":-1.5e3}'],
  ])('%s → %s', (text, expected) => {
    const out = withoutMember(text, 'writeKey');
    expect(out).toBe(expected);
    const parsed = JSON.parse(text) as Record<string, unknown>;
    delete parsed.writeKey;
    expect(JSON.parse(out)).toEqual(parsed);
  });

  it('leaves a text without the key as it is (the same string)', () => {
    const text = '{"a" :  [1, "writeKey"], "b":{"writeKey":1}}';
    expect(withoutMember(text, 'writeKey')).toBe(text);
  });

  it('keeps valid JSON for every order of kept and named members, with any spacing (seeded, 2,000 texts)', () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return (seed >>> 16) % n; // the high bits: an LCG's low bits repeat with a short period
    };
    const space = () => [' ', '', '\n', '\t '][random(4)]!;
    for (let round = 0; round < 2000; round++) {
      const members = Array.from({ length: 1 + random(6) }, (_, i) => (random(2) ? `"writeKey"${space()}:${space()}"k${i}"` : `"m${i}"${space()}:${space()}${[i, '"writeKey"', '{"writeKey":1}', 'null'][random(4)]}`));
      const text = `{${space()}${members.join(`${space()},${space()}`)}${space()}}`;
      const expected = JSON.parse(text) as Record<string, unknown>;
      delete expected.writeKey;
      expect(JSON.parse(withoutMember(text, 'writeKey')), text).toEqual(expected);
    }
  });
});
