// diffPlans' classification of what the CLI test does not reach: const, alternatives, boolean
// schemas, recursive references, keywords it cannot judge, words that are not changes.
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../shared/tracking-plan.ts';
import { diffPlans } from '../../../electron/core/plans/plan-diff.ts';

/** The changes of one event's schema, as "kind path: text". */
function diff(before: JsonSchema, after: JsonSchema): string[] {
  return diffPlans({ events: { E: before } }, { events: { E: after } }).map((c) => `${c.kind} ${c.path}: ${c.text}`);
}
const prop = (schema: unknown) => ({ type: 'object', properties: { p: schema } });

describe('diffPlans', () => {
  it('const added, changed and removed', () => {
    expect(diff(prop({ type: 'string' }), prop({ type: 'string', const: 'a' }))).toEqual(['breaking properties.p: now must be "a"']);
    expect(diff(prop({ const: 'a' }), prop({ const: 'b' }))).toEqual(['breaking properties.p: must be "b" instead of "a"']);
    expect(diff(prop({ const: 'a' }), prop({}))).toEqual(['compatible properties.p: no longer must be "a"']);
  });

  it('an enum added where any value went is breaking; dropped is compatible; order and key order are no change', () => {
    expect(diff(prop({ type: 'string' }), prop({ type: 'string', enum: ['a', 'b'] }))).toEqual(['breaking properties.p: now limited to "a", "b"']);
    expect(diff(prop({ enum: ['a', 'b'] }), prop({}))).toEqual(['compatible properties.p: no longer limited to "a", "b"']);
    expect(diff(prop({ enum: ['a', { x: 1, y: 2 }] }), prop({ enum: [{ y: 2, x: 1 }, 'a'] }))).toEqual([]);
  });

  it('anyOf alternatives: removed is breaking, added compatible; added to oneOf is breaking (a value matching two is refused)', () => {
    const s = (...types: string[]) => prop({ anyOf: types.map((type) => ({ type })) });
    expect(diff(s('string', 'number'), s('string'))).toEqual(['breaking properties.p: anyOf: 1 alternative removed or changed']);
    expect(diff(s('string'), s('string', 'number'))).toEqual(['compatible properties.p: anyOf: 1 alternative added']);
    expect(diff(prop({ oneOf: [{ type: 'string' }] }), prop({ oneOf: [{ type: 'string' }, { minLength: 1 }] }))).toEqual([
      'breaking properties.p: oneOf: 1 alternative added (a value matching two is refused by oneOf: counted as breaking)',
    ]);
  });

  it('boolean schemas, and a type where there was none', () => {
    expect(diff(prop(true), prop(false))).toEqual(['breaking properties.p: now accepts nothing (false)']);
    expect(diff(prop(false), prop({ type: 'string' }))).toEqual(['compatible properties.p: accepted nothing (false), now accepts values']);
    expect(diff(prop({}), prop({ type: 'string' }))).toEqual(['breaking properties.p: type narrowed from any type to string']);
    expect(diff(prop({ type: 'string' }), prop({ type: 'number' }))).toEqual(['breaking properties.p: type changed from string to number']);
  });

  it('a keyword it cannot judge counts as breaking; an empty description equals none; vendor keywords are no change', () => {
    expect(diff(prop({ type: 'string' }), prop({ type: 'string', not: { const: 'x' } }))).toEqual(['breaking properties.p: not added (Sluice cannot tell whether that narrows: counted as breaking)']);
    expect(diff(prop({ type: 'string', description: '' }), prop({ type: 'string', id: '/properties/p', $schema: 'x', labels: { a: 'b' } }))).toEqual([]);
  });

  it('recursive schemas: compared as far as they go, without looping', () => {
    const tree = (leaf: string) => ({ type: 'object', properties: { child: { $ref: '#' }, leaf: { type: leaf } } });
    expect(diff(tree('string'), tree('string'))).toEqual([]);
    // The reference is followed once (child is the root again), then stops where it would loop.
    expect(diff(tree('string'), tree('number'))).toEqual(['breaking properties.child.leaf: type changed from string to number', 'breaking properties.leaf: type changed from string to number']);
  });
  it('a property added where the old plan typed its unnamed properties is compared with that type; where it said nothing of them, it is compatible', () => {
    // {x: "abc"} went through additionalProperties; NEW wants x a number.
    const open = { type: 'object', additionalProperties: { type: 'string' } };
    expect(diff(open, { ...open, properties: { x: { type: 'number' } } })).toEqual([
      'compatible properties.x: optional property added',
      'breaking properties.x: type changed from string to number (compared with what the old plan accepted there as an unnamed property)',
    ]);
    // No additionalProperties: the plan promised nothing of keys it did not list; a new optional property is compatible.
    expect(diff({ type: 'object' }, prop({ type: 'string' }))).toEqual(['compatible properties.p: optional property added']);
    // Old refused other properties: nothing sent had the key, so adding it only widens.
    expect(diff({ type: 'object', additionalProperties: false }, { ...prop({ type: 'string' }), additionalProperties: false })).toEqual(['compatible properties.p: optional property added']);
    // The same type as before, or any value: no narrowing.
    expect(diff(open, { ...open, properties: { x: { type: 'string', description: 'the x' } } })).toEqual(['compatible properties.x: optional property added']);
  });

  it('tuples against lists, and positions past a tuple, use the rest each side allows (additionalItems, or items when it is one schema)', () => {
    const S = { type: 'string' };
    // ["s", 1] was accepted by the one-place tuple (its rest is anything), refused by the list of strings.
    expect(diff(prop({ type: 'array', items: [S] }), prop({ type: 'array', items: S }))).toEqual(['breaking properties.p[…]: type narrowed from any type to string']);
    // ["s", "t"] was accepted by the two-place tuple, refused by the one-place closed one.
    expect(diff(prop({ type: 'array', items: [S, S], additionalItems: false }), prop({ type: 'array', items: [S], additionalItems: false }))).toEqual([
      'breaking properties.p[1]: now accepts nothing (false)',
    ]);
    // A list of strings made a tuple of strings with strings after: no change in what is accepted.
    expect(diff(prop({ type: 'array', items: S }), prop({ type: 'array', items: [S], additionalItems: S }))).toEqual([]);
    // A tuple opened to more places: compatible.
    expect(diff(prop({ type: 'array', items: [S], additionalItems: false }), prop({ type: 'array', items: [S, S], additionalItems: false }))).toEqual([
      'compatible properties.p[1]: accepted nothing (false), now accepts values',
    ]);
  });

  it("draft-04's boolean exclusiveMinimum/Maximum are compared as the bounds they make", () => {
    expect(diff(prop({ type: 'number', minimum: 5 }), prop({ type: 'number', minimum: 5, exclusiveMinimum: true }))).toEqual(['compatible properties.p: minimum 5 removed', 'breaking properties.p: exclusive minimum 5 added']);
    expect(diff(prop({ type: 'number', maximum: 5, exclusiveMaximum: true }), prop({ type: 'number', exclusiveMaximum: 5 }))).toEqual([]);
    expect(diff(prop({ type: 'number', maximum: 5, exclusiveMaximum: true }), prop({ type: 'number', maximum: 5, exclusiveMaximum: false }))).toEqual(['breaking properties.p: maximum 5 added', 'compatible properties.p: exclusive maximum 5 removed']);
  });
});
