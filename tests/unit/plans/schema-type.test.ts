// JSON Schema → TypeScript type text (sluice plan codegen): the keywords a plan holds, each as the
// type that accepts what the schema accepts. The integration test compiles such types with tsc.
import { describe, expect, it } from 'vitest';
import { eventNames } from '../../../electron/core/plans/codegen/function-names.ts';
import { literal, propsRequired, schemaType } from '../../../electron/core/plans/codegen/schema-type.ts';

const type = (schema: unknown) => schemaType(schema, 'events["E"]').text;

describe('schemaType', () => {
  it('types the simple types, type lists, nullable, integer and formats', () => {
    expect(type({ type: 'string', format: 'date-time' })).toBe('string');
    expect(type({ type: 'integer' })).toBe('number');
    expect(type({ type: ['number', 'integer'] })).toBe('number');
    expect(type({ type: ['string', 'null'] })).toBe('string | null');
    expect(type({ type: 'string', nullable: true })).toBe('string | null');
    expect(type(true)).toBe('unknown');
    expect(type({ description: 'anything' })).toBe('unknown');
    expect(type(false)).toBe('never');
  });

  it('types enum and const as literals, quoting what needs it', () => {
    expect(type({ enum: ['EUR', "it's", 3, null, true] })).toBe("'EUR' | 'it\\'s' | 3 | null | true");
    expect(type({ const: 'express' })).toBe("'express'");
    expect(type({ enum: [] })).toBe('never');
    expect(literal({ a: [1, 'x'] })).toBe("{ a: readonly [1, 'x'] }");
  });

  it('types arrays, tuples and anyOf / oneOf / allOf', () => {
    expect(type({ type: 'array', items: { type: ['string', 'number'] } })).toBe('(string | number)[]');
    expect(type({ type: 'array' })).toBe('unknown[]');
    expect(type({ type: 'array', items: [{ type: 'string' }, { type: 'number' }], minItems: 1, additionalItems: false })).toBe('[string, number?]');
    expect(type({ type: 'array', items: [{ type: 'string' }] })).toBe('[string?, ...unknown[]]');
    expect(type({ anyOf: [{ type: 'string' }, { type: 'number' }] })).toBe('(string | number)');
    expect(type({ oneOf: [{ const: 'a' }, { const: 'b' }] })).toBe("('a' | 'b')");
    expect(type({ type: 'object', additionalProperties: false, allOf: [{ required: ['id'] }] })).toBe('Record<string, never> & {\n  id: unknown;\n  [property: string]: unknown;\n}');
  });

  it('types objects: required and optional, odd keys quoted, closed or with an index signature that fits the named properties', () => {
    expect(type({ type: 'object', properties: { 'first name': { type: 'string' }, id: { type: 'number' } }, required: ['id'], additionalProperties: false })).toBe(
      "{\n  'first name'?: string;\n  id: number;\n}",
    );
    expect(type({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'number' } })).toBe('{\n  a?: string;\n  [property: string]: number | string | undefined;\n}');
    expect(type({ properties: { a: { type: 'string' } }, patternProperties: { '^x': { type: 'number' } }, additionalProperties: false })).toBe('{\n  a?: string;\n  [property: string]: unknown;\n}');
    expect(type({ type: 'object', additionalProperties: false })).toBe('Record<string, never>');
  });

  it('follows $refs within the schema and stops, with a note, at one that refers back into itself or outside', () => {
    const tree = { type: 'object', properties: { node: { $ref: '#/definitions/node' } }, definitions: { node: { type: 'object', properties: { child: { $ref: '#/definitions/node' } }, additionalProperties: false } } };
    const out = schemaType(tree, 'events["Tree"]');
    expect(out.text).toBe('{\n  node?: {\n    child?: unknown;\n  };\n  [property: string]: unknown;\n}');
    expect(out.notes).toEqual(['events["Tree"]: "#/definitions/node" refers back into itself; it is typed unknown there']);
    const outside = schemaType({ $ref: 'https://example.com/s.json' }, 'events["X"]');
    expect(outside).toEqual({ text: 'unknown', notes: ['events["X"]: "https://example.com/s.json" cannot be followed (only references within the same schema are); it is typed unknown'] });
  });

  it('writes descriptions and what TypeScript cannot check as JSDoc, a */ inside broken', () => {
    expect(type({ type: 'object', properties: { n: { type: 'integer', description: 'How many */', minimum: 1, maximum: 9 } }, additionalProperties: false })).toBe(
      '{\n  /**\n   * How many *\\/\n   * The plan also checks: a whole number; at least 1; at most 9.\n   */\n  n?: number;\n}',
    );
  });
});

describe('schemaType: parentheses and index signatures', () => {
  it('parenthesises a union inside an array whatever its JSDoc holds (an apostrophe, an unbalanced parenthesis)', () => {
    for (const description of ["the user's name", 'counted (from 1', 'a } and a ]']) {
      const text = type({ type: 'array', items: { type: ['object', 'null'], properties: { name: { type: 'string', description } }, additionalProperties: false } });
      expect(text).toBe(`({\n  /** ${description} */\n  name?: string;\n} | null)[]`);
    }
    // An enum with a string holding a quote, in a tuple's optional place.
    expect(type({ type: 'array', items: [{ enum: ["it's", 'b'] }] })).toBe("[('it\\'s' | 'b')?, ...unknown[]]");
    expect(type({ type: 'array', items: { enum: [[1], [2]] } })).toBe('(readonly [1] | readonly [2])[]');
    expect(type({ type: 'array', items: { const: [1] } })).toBe('(readonly [1])[]');
  });

  it('types a required key without a schema of its own as additionalProperties does, so that it fits the index signature', () => {
    expect(type({ type: 'object', required: ['id'], additionalProperties: { type: 'string' } })).toBe('{\n  id: string;\n  [property: string]: string;\n}');
    expect(type({ type: 'object', properties: { n: { type: 'number' } }, required: ['id'], additionalProperties: { type: 'string' } })).toBe(
      '{\n  n?: number;\n  id: string;\n  [property: string]: string | number | undefined;\n}',
    );
    // Closed, or patternProperties beside: any value.
    expect(type({ type: 'object', required: ['id'], additionalProperties: false })).toBe('{\n  id: unknown;\n}');
    expect(type({ type: 'object', required: ['id'], patternProperties: { '^i': { type: 'number' } }, additionalProperties: { type: 'string' } })).toBe('{\n  id: unknown;\n  [property: string]: unknown;\n}');
  });
});

describe('propsRequired', () => {
  it('follows a root $ref, allOf, and anyOf/oneOf alternatives that all require a property', () => {
    expect(propsRequired({ type: 'object', properties: { id: { type: 'string' } } })).toBe(false);
    expect(propsRequired({ type: 'object', required: ['id'] })).toBe(true);
    expect(propsRequired({ $ref: '#/definitions/p', definitions: { p: { type: 'object', required: ['id'] } } })).toBe(true);
    expect(propsRequired({ $ref: '#/definitions/p', definitions: { p: { type: 'object' } } })).toBe(false);
    expect(propsRequired({ type: 'object', allOf: [{ properties: { a: {} } }, { required: ['id'] }] })).toBe(true);
    expect(propsRequired({ type: 'object', minProperties: 1 })).toBe(true);
    expect(propsRequired({ anyOf: [{ required: ['a'] }, { required: ['b'] }] })).toBe(true);
    expect(propsRequired({ oneOf: [{ required: ['a'] }, { properties: { b: {} } }] })).toBe(false);
    // A reference into itself stops.
    expect(propsRequired({ $ref: '#' })).toBe(false);
  });
});

describe('eventNames', () => {
  it('makes function and type names from any event name, numbering collisions in order', () => {
    const { names, notes } = eventNames(['Order Completed', 'order_completed', '2fa enabled', 'Café Visité', '???', 'Event']);
    expect(names.map((n) => [n.fn, n.type])).toEqual([
      ['trackOrderCompleted', 'OrderCompletedProperties'],
      ['trackOrderCompleted2', 'OrderCompleted2Properties'],
      ['track2faEnabled', 'Event2faEnabledProperties'],
      ['trackCaféVisité', 'CaféVisitéProperties'],
      ['trackEvent', 'EventProperties'],
      ['trackEvent2', 'Event2Properties'],
    ]);
    expect(notes).toEqual([
      '"order_completed" is named trackOrderCompleted2: trackOrderCompleted is taken by "Order Completed"',
      '"???" has no letter or digit to name it by: it is named trackEvent',
      '"Event" is named trackEvent2: trackEvent is taken by "???"',
    ]);
  });

  it('keeps out what no name may hold (², ½, ①) and starts a type name with Event where its first character cannot start one', () => {
    const { names } = eventNames(['Level²', 'Half ½ done', '①st place', 'Naïve café', '\u0301y']);
    expect(names.map((n) => [n.fn, n.type])).toEqual([
      ['trackLevel', 'LevelProperties'],
      ['trackHalfDone', 'HalfDoneProperties'],
      ['trackStPlace', 'StPlaceProperties'],
      ['trackNaïveCafé', 'NaïveCaféProperties'],
      // A combining mark continues a name but cannot start one.
      ['track\u0301y', 'Event\u0301yProperties'],
    ]);
    for (const { fn, type } of names) {
      expect(fn).toMatch(/^\p{ID_Start}\p{ID_Continue}*$/u);
      expect(type).toMatch(/^\p{ID_Start}\p{ID_Continue}*$/u);
    }
  });
});
