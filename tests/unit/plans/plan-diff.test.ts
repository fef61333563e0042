// diffPlans' classification of what the CLI test does not reach: const, alternatives, boolean
// schemas, recursive references, keywords it cannot judge, words that are not changes.
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../../../shared/tracking-plan.ts';
import { compilePlan } from '../../../electron/core/plans/compile-plan.ts';
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

  describe('keywords beside a $ref (ajv 8 applies them with the target: both must hold)', () => {
    const withDefs = (price: object, definitions: object = { price: { type: 'number' } }) => ({ type: 'object', definitions, properties: { price } });
    const ref = { $ref: '#/definitions/price' };

    it('a bound, an enum, a pattern or a required beside a $ref is a change, as the relay checks it', () => {
      expect(diff(withDefs(ref), withDefs({ ...ref, maximum: 100 }))).toEqual(['breaking properties.price: maximum 100 added']);
      const relay = compilePlan('P', { events: { E: withDefs({ ...ref, maximum: 100 }) } });
      expect(relay.check({ type: 'track', event: 'E', properties: { price: 500 } }, 'flag').map((v) => v.message)).toEqual(['properties.price must be at most 100; got 500']);
      expect(diff(withDefs(ref), withDefs({ ...ref, enum: [1, 2] }))).toEqual(['breaking properties.price: now limited to 1, 2']);
      const code = { code: { type: 'string' } };
      expect(diff(withDefs(ref, { price: { type: 'string' } }), withDefs({ ...ref, pattern: '^[0-9]+$' }, { price: { type: 'string' } }))).toEqual(['breaking properties.price: pattern "^[0-9]+$" added']);
      const item = { type: 'object', properties: code };
      expect(diff(withDefs(ref, { price: item }), withDefs({ ...ref, required: ['code'] }, { price: item }))).toEqual(['breaking properties.price.code: property made required']);
      // Taken away again: compatible; the same on both sides: no change.
      expect(diff(withDefs({ ...ref, maximum: 100 }), withDefs(ref))).toEqual(['compatible properties.price: maximum 100 removed']);
      expect(diff(withDefs({ ...ref, maximum: 100 }), withDefs({ ...ref, maximum: 100 }))).toEqual([]);
    });

    it('merges with the target: the tighter bound, the common types, the sibling\'s words', () => {
      const capped = { price: { type: ['number', 'null'], maximum: 1000, description: 'the total' } };
      expect(diff(withDefs(ref, capped), withDefs({ ...ref, maximum: 100 }, capped))).toEqual(['breaking properties.price: maximum tightened from 1000 to 100']);
      expect(diff(withDefs(ref, capped), withDefs({ ...ref, maximum: 5000 }, capped))).toEqual([]);
      expect(diff(withDefs(ref, capped), withDefs({ ...ref, type: 'number' }, capped))).toEqual(['breaking properties.price: type narrowed from null or number to number']);
      expect(diff(withDefs(ref, capped), withDefs({ ...ref, description: 'the total paid' }, capped))).toEqual(['compatible properties.price: description changed']);
    });

    it('what one schema cannot say stays beside the target as an allOf: two patterns, additionalProperties beside properties', () => {
      const code = { price: { type: 'string', pattern: '^[0-9]+$' } };
      expect(diff(withDefs(ref, code), withDefs({ ...ref, pattern: '^1' }, code))).toEqual(['breaking properties.price: allOf: 1 schema added or changed (each must hold)']);
      // Beside the target's properties, `additionalProperties: false` refuses them all (it sees no properties of its own).
      const item = { price: { type: 'object', properties: { sku: { type: 'string' } } } };
      expect(diff(withDefs(ref, item), withDefs({ ...ref, additionalProperties: false }, item))).toEqual(['breaking properties.price: allOf: 1 schema added or changed (each must hold)']);
      // A closed target whose named property is narrowed beside it: one schema says it.
      const closed = { price: { type: 'object', properties: { sku: { type: 'string' } }, additionalProperties: false } };
      expect(diff(withDefs(ref, closed), withDefs({ ...ref, properties: { sku: { maxLength: 8 } } }, closed))).toEqual(['breaking properties.price.sku: maxLength 8 added']);
    });

    it('follows a $ref to a $ref, and keeps comparing a root $ref beside its definitions', () => {
      const chain = (type: string) => withDefs({ $ref: '#/definitions/amount' }, { amount: { $ref: '#/definitions/number' }, number: { type } });
      expect(diff(chain('number'), chain('integer'))).toEqual(['breaking properties.price: type narrowed from number to integer']);
      const rooted = (type: string) => ({ $ref: '#/definitions/order', definitions: { order: { type: 'object', properties: { price: { type } } } } });
      expect(diff(rooted('number'), rooted('string'))).toEqual(['breaking properties.price: type changed from number to string']);
    });
  });
});
