// shared/field-differences.ts: "field: wanted X, got Y", as sluice/testing's near misses and
// `sluice transform test`'s fixture diffs say it.
import { describe, expect, it } from 'vitest';
import { fieldDifferences } from '../../shared/field-differences.ts';

describe('fieldDifferences', () => {
  it('every difference by field path: changed, missing and extra keys, array items', () => {
    const expected = { type: 'track', properties: { total: 10, tags: ['a', 'b'], nested: { x: 1 } }, userId: 'u1' };
    const actual = { type: 'track', properties: { total: '10', tags: ['a'], nested: { x: 1, y: 2 } }, anonymousId: 'a1' };
    expect(fieldDifferences(expected, actual, '')).toEqual([
      'properties.total: wanted 10, got "10"',
      'properties.tags[1]: wanted "b", got nothing',
      'properties.nested.y: wanted nothing, got 2',
      'userId: wanted "u1", got nothing',
      'anonymousId: wanted nothing, got "a1"',
    ]);
  });

  it('equal values (keys in any order) differ nowhere', () => {
    expect(fieldDifferences({ a: 1, b: [{ c: null }] }, { b: [{ c: null }], a: 1 }, '')).toEqual([]);
  });

  it('partial: only the keys expected names, arrays whole, the first one with limit 1 (a filter\'s near miss)', () => {
    const expected = { plan: 'pro', tags: ['a'] };
    const actual = { plan: 'free', tags: ['a', 'b'], other: 1 };
    expect(fieldDifferences(expected, actual, 'traits', { partial: true })).toEqual(['traits.plan: wanted "pro", got "free"', 'traits.tags: wanted ["a"], got ["a","b"]']);
    expect(fieldDifferences(expected, actual, 'traits', { partial: true, limit: 1 })).toEqual(['traits.plan: wanted "pro", got "free"']);
    expect(fieldDifferences({ a: 1 }, 'text', 'properties', { partial: true })).toEqual(['properties: wanted an object, got "text"']);
  });

  it('long values are cut at 80 characters', () => {
    expect(fieldDifferences({ a: 'x'.repeat(100) }, { a: 'y' }, '')).toEqual([`a: wanted "${'x'.repeat(76)}..., got "y"`]);
  });
});
