// mergeSchemas against ajv: the one schema plan-diff compares for a $ref and its siblings accepts
// exactly what ajv accepts for both (allOf), over shapes where keywords merge and where they stay apart.
import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import { mergeSchemas } from '../../../electron/core/plans/schema-merge.ts';

const ajv = new AjvModule.default({ strict: false, allErrors: true });

const TARGETS: Record<string, unknown>[] = [
  { type: ['number', 'null'], maximum: 1000, minimum: 0 },
  { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, additionalProperties: false, required: ['a'] },
  { type: 'object', properties: { a: { type: 'string' } } },
  { enum: [1, 2, 3, 'x'] },
  { type: 'array', items: { type: 'number' }, maxItems: 3 },
  { type: 'string', pattern: '^a', minLength: 2 },
  { exclusiveMinimum: 5 },
  { type: 'integer', multipleOf: 2 },
];
const SIBLINGS: Record<string, unknown>[] = [
  { maximum: 100 }, { type: 'integer' }, { type: 'number' }, { enum: [2, 3, 'y'] }, { required: ['b'] },
  { properties: { a: { maxLength: 2 } } }, { properties: { c: { type: 'string' } } }, { additionalProperties: false },
  { items: { minimum: 1 } }, { pattern: '^ab' }, { minimum: 6 }, { maxItems: 2, uniqueItems: true }, { const: 2 }, { minLength: 3, description: 'd' },
];
const VALUES: unknown[] = [null, 0, 1, 2, 3, 5, 5.5, 6, 50, 150, 2000, -1, 'x', 'y', 'a', 'ab', 'abc', [], [1], [0, 1], [1, 2, 3], [1, 1], [1, 2, 3, 4], {}, { a: 'x' }, { a: 'xyz' }, { a: 'x', b: 1 }, { a: 'x', c: 'z' }, { b: 2 }];

describe('mergeSchemas', () => {
  it('accepts what ajv accepts for the target and the siblings together', () => {
    const differ: string[] = [];
    for (const target of TARGETS) {
      for (const siblings of SIBLINGS) {
        const both = ajv.compile({ allOf: [target, siblings] });
        const merged = ajv.compile(mergeSchemas(target, siblings) as object);
        for (const value of VALUES) if (both(value) !== merged(value)) differ.push(`${JSON.stringify(target)} + ${JSON.stringify(siblings)} on ${JSON.stringify(value)}`);
      }
    }
    expect(differ).toEqual([]);
  });

  it('says in one keyword what one keyword can say, and keeps the rest apart', () => {
    expect(mergeSchemas({ type: ['number', 'null'], maximum: 1000 }, { type: 'integer', maximum: 100 })).toEqual({ type: 'integer', maximum: 100 });
    expect(mergeSchemas({ type: 'string', pattern: '^a' }, { pattern: '^ab' })).toEqual({ type: 'string', pattern: '^a', allOf: [{ pattern: '^ab' }] });
    expect(mergeSchemas({ properties: { a: {} } }, { additionalProperties: false })).toEqual({ properties: { a: {} }, allOf: [{ additionalProperties: false }] });
    expect(mergeSchemas(false, { maximum: 1 })).toBe(false);
  });
});
