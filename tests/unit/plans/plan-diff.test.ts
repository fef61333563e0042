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
});
