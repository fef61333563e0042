import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import type { Violation } from '../../../shared/tracking-plan.ts';
import { appendViolations, MAX_VIOLATIONS, moreViolations, preview, typedValue } from '../../../electron/core/plans/violation-text.ts';

// As compile-plan.ts makes it (verbose: errors name their schema object, see error-groups.ts).
const ajv = new AjvModule.default({ allErrors: true, verbose: true, strict: false, logger: false });
addFormatsModule.default(ajv);
const subject = { plan: 'Shop', section: 'properties', target: '"Order Completed"' };

/** The violations of `data` against `schema`, as check() would list them. */
function violations(schema: object, data: unknown, room = MAX_VIOLATIONS): Violation[] {
  const validate = ajv.compile(schema);
  expect(validate(data)).toBe(false);
  const out: Violation[] = [];
  appendViolations(out, validate, data, subject, room);
  return out;
}

function only(schema: object, data: unknown): Pick<Violation, 'type' | 'path' | 'message'> {
  const list = violations(schema, data);
  expect(list).toHaveLength(1);
  const { type, path, message } = list[0]!;
  return { type, path, message };
}

const object = (properties: object, extra: object = {}) => ({ type: 'object', properties, ...extra });

describe('the taxonomy', () => {
  it('tells a missing field as Required-Missing at its own path, naming plan and event', () => {
    expect(only(object({}, { required: ['price'] }), {})).toEqual({
      type: 'Required-Missing',
      path: '/properties/price',
      message: 'properties.price is required by the plan "Shop" for "Order Completed"',
    });
  });

  it('tells a missing field inside an array item with its index', () => {
    const schema = object({ items: { type: 'array', items: { type: 'object', required: ['sku'] } } });
    expect(only(schema, { items: [{ sku: 'a' }, {}] })).toMatchObject({ path: '/properties/items/1/sku', message: 'properties.items[1].sku is required by the plan "Shop" for "Order Completed"' });
  });

  it('tells a wrong type as Datatype-Mismatch with the value and its JSON type', () => {
    expect(only(object({ price: { type: 'number' } }), { price: '12' })).toEqual({ type: 'Datatype-Mismatch', path: '/properties/price', message: 'properties.price must be a number; got the string "12"' });
  });

  it.each([
    [{ type: 'integer' }, 2.5, 'properties.v must be an integer; got the number 2.5'],
    [{ type: 'string' }, 3, 'properties.v must be a string; got the integer 3'],
    [{ type: 'string' }, null, 'properties.v must be a string; got null'],
    [{ type: 'number' }, false, 'properties.v must be a number; got the boolean false'],
    [{ type: 'string' }, [1, 'a'], 'properties.v must be a string; got an array [1,"a"]'],
    [{ type: 'string' }, { a: 1 }, 'properties.v must be a string; got an object {"a":1}'],
    [{ type: ['string', 'null'] }, 1, 'properties.v must be a string or null; got the integer 1'],
    [{ type: ['string', 'number', 'null'] }, true, 'properties.v must be a string, a number or null; got the boolean true'],
  ])('type %j given %j', (schema, value, message) => {
    expect(only(object({ v: schema }), { v: value }).message).toBe(message);
  });

  it('tells a field the plan does not list as Additional-Properties at that field', () => {
    expect(only(object({ price: {} }, { additionalProperties: false }), { price: 1, colour: 'red' })).toEqual({
      type: 'Additional-Properties',
      path: '/properties/colour',
      message: 'properties.colour is not in the plan "Shop" for "Order Completed"',
    });
  });

  it.each([
    [{ enum: ['paid', 'refunded'] }, 'pending', 'properties.v must be one of "paid", "refunded"; got "pending"'],
    [{ const: 'EUR' }, 'USD', 'properties.v must be "EUR"; got "USD"'],
    [{ type: 'string', pattern: '^sku_[0-9]+$' }, 'SKU-1', 'properties.v must match ^sku_[0-9]+$; got "SKU-1"'],
    [{ type: 'string', format: 'email' }, 'bob', 'properties.v must be an email address; got "bob"'],
    [{ type: 'string', format: 'date-time' }, 'yesterday', 'properties.v must be a date-time (ISO 8601, e.g. 2024-05-01T12:00:00Z); got "yesterday"'],
    [{ minimum: 1 }, 0, 'properties.v must be at least 1; got 0'],
    [{ maximum: 10 }, 11, 'properties.v must be at most 10; got 11'],
    [{ exclusiveMinimum: 0 }, 0, 'properties.v must be greater than 0; got 0'],
    [{ exclusiveMaximum: 5 }, 5, 'properties.v must be less than 5; got 5'],
    [{ minLength: 3 }, 'ab', 'properties.v must be at least 3 characters long; got "ab" (2 characters)'],
    [{ maxLength: 1 }, 'ab', 'properties.v must be at most 1 character long; got "ab" (2 characters)'],
    [{ minItems: 1 }, [], 'properties.v must have at least 1 item; got 0 items'],
    [{ maxItems: 2 }, [1, 2, 3], 'properties.v must have at most 2 items; got 3 items'],
    [{ maxProperties: 1 }, { a: 1, b: 2 }, 'properties.v must have at most 1 field; got 2 fields'],
    [{ uniqueItems: true }, [1, 2, 1], 'properties.v must not repeat items; items [0] and [2] are the same'],
    [{ multipleOf: 5 }, 12, 'properties.v must be a multiple of 5; got 12'],
    [{ not: { type: 'string' } }, 'x', 'properties.v must not match the schema under "not" in the plan; got "x"'],
    [false, 1, 'properties.v must not be present: the plan "Shop" does not allow it for "Order Completed"'],
  ])('%j given %j is an Unknown-Violation with a specific sentence', (schema, value, message) => {
    expect(only(object({ v: schema }), { v: value })).toEqual({ type: 'Unknown-Violation', path: '/properties/v', message });
  });

  it('tells a dependency by the field that is missing and the one that asks for it', () => {
    expect(only(object({}, { dependencies: { coupon: ['discount'] } }), { coupon: 'X' })).toEqual({
      type: 'Unknown-Violation',
      path: '/properties/discount',
      message: 'properties.discount is required by the plan "Shop" when properties.coupon is present',
    });
  });

  it('tells a bad field name once, not with its name schema errors too', () => {
    expect(only(object({}, { propertyNames: { pattern: '^[a-z_]+$' } }), { Bad: 1 })).toEqual({
      type: 'Unknown-Violation',
      path: '/properties',
      message: 'properties has a field named "Bad" that the plan "Shop" does not allow for "Order Completed"',
    });
  });

  it('tells a failed if/then by the then-error alone', () => {
    const schema = object({}, { if: { required: ['coupon'] }, then: { required: ['discount'] } });
    expect(only(schema, { coupon: 'X' })).toMatchObject({ type: 'Required-Missing', path: '/properties/discount' });
  });
});

describe('alternatives', () => {
  it('gives one violation for an anyOf, saying every alternative', () => {
    const schema = object({ email: { anyOf: [{ type: 'string', format: 'email' }, { type: 'null' }] } });
    expect(only(schema, { email: 'bob' })).toEqual({ type: 'Unknown-Violation', path: '/properties/email', message: 'properties.email must be an email address or null; got "bob"' });
  });

  it('counts an anyOf of plain types as a Datatype-Mismatch', () => {
    expect(only(object({ v: { anyOf: [{ type: 'string' }, { type: 'number' }] } }), { v: true })).toEqual({
      type: 'Datatype-Mismatch',
      path: '/properties/v',
      message: 'properties.v must be a string or a number; got the boolean true',
    });
  });

  it('falls back to a general sentence when an alternative fails in several ways', () => {
    const schema = object({ v: { oneOf: [{ type: 'object', required: ['a', 'b'] }, { type: 'string' }] } });
    expect(only(schema, { v: {} }).message).toBe("properties.v must match one of the plan's alternatives (oneOf); got {}");
  });

  it('says which alternatives a oneOf matched more than one of', () => {
    expect(only(object({ v: { oneOf: [{ type: 'number' }, { type: 'integer' }] } }), { v: 3 }).message).toBe("properties.v must match exactly one of the plan's alternatives; it matches #1 and #2");
  });

  it('keeps errors around an anyOf apart from it', () => {
    const schema = object({ a: { type: 'string' }, b: { anyOf: [{ type: 'string' }, { type: 'null' }] }, c: { type: 'string' } });
    expect(violations(schema, { a: 1, b: 2, c: 3 }).map((v) => v.path)).toEqual(['/properties/a', '/properties/b', '/properties/c']);
  });
});

describe('alternatives written as $ref, and contains', () => {
  // ajv reports an error from inside a $ref with the target's schemaPath: these were told as violations of their own.
  const price = { definitions: { price: { type: 'number' } }, ...object({ price: { anyOf: [{ $ref: '#/definitions/price' }, { type: 'null' }] } }) };

  it('tells a nullable $ref as one violation, as the same alternatives written inline', () => {
    const expected = { type: 'Datatype-Mismatch', path: '/properties/price', message: 'properties.price must be a number or null; got the string "12"' };
    expect(only(price, { price: '12' })).toEqual(expected);
    expect(only(object({ price: { anyOf: [{ type: 'number' }, { type: 'null' }] } }), { price: '12' })).toEqual(expected);
  });

  it('follows a $ref to a $ref (which ajv compiles as a function of its own), an anchor and a percent-encoded pointer', () => {
    const chained = { definitions: { price: { $ref: '#/definitions/amount' }, amount: { type: 'number', minimum: 0 } }, ...object({ price: { oneOf: [{ $ref: '#/definitions/price' }, { type: 'null' }] } }) };
    expect(only(chained, { price: '12' }).message).toBe('properties.price must be a number or null; got the string "12"');
    const anchored = { definitions: { price: { $id: '#price', type: 'number' } }, ...object({ price: { anyOf: [{ $ref: '#price' }, { type: 'null' }] } }) };
    expect(only(anchored, { price: '12' }).message).toBe('properties.price must be a number or null; got the string "12"');
    const encoded = { definitions: { 'unit price': { type: 'number' } }, ...object({ price: { anyOf: [{ $ref: '#/definitions/unit%20price' }, { type: 'null' }] } }) };
    expect(only(encoded, { price: '12' }).message).toBe('properties.price must be a number or null; got the string "12"');
  });

  it('tells a $ref alternative that fails in several ways by the general sentence, and keeps errors around it apart', () => {
    const schema = { definitions: { money: { type: 'object', required: ['amount'], properties: { currency: { type: 'string' } } }, n: { type: 'number' } }, ...object({ a: { $ref: '#/definitions/n' }, v: { anyOf: [{ $ref: '#/definitions/money' }, { type: 'null' }] }, c: { $ref: '#/definitions/n' } }) };
    const list = violations(schema, { a: 'x', v: { currency: 1 }, c: 'y' });
    expect(list.map((v) => [v.path, v.message])).toEqual([
      ['/properties/a', 'properties.a must be a number; got the string "x"'],
      ['/properties/v', 'properties.v must match one of the plan\'s alternatives (anyOf); got {"currency":1}'],
      ['/properties/c', 'properties.c must be a number; got the string "y"'],
    ]);
  });

  it('groups the alternatives of a recursive schema, each item once', () => {
    const schema = { definitions: { node: { type: 'object', required: ['id'], properties: { kids: { type: 'array', items: { anyOf: [{ $ref: '#/definitions/node' }, { type: 'string' }] } } } } }, $ref: '#/definitions/node' };
    expect(violations(schema, { id: 1, kids: [{ kids: [] }, 3] }).map((v) => [v.path, v.message])).toEqual([
      ['/properties/kids/0', 'properties.kids[0] must match one of the plan\'s alternatives (anyOf); got {"kids":[]}'],
      ['/properties/kids/1', 'properties.kids[1] must be an object or a string; got the integer 3'],
    ]);
  });

  it('tells a missing `contains` item once, not as a violation of each item', () => {
    const schema = object({ tags: { type: 'array', contains: { const: 'x' } } });
    expect(only(schema, { tags: ['a', 'b'] })).toEqual({ type: 'Unknown-Violation', path: '/properties/tags', message: 'properties.tags must contain an item the plan allows; got ["a","b"]' });
    const many = Array.from({ length: 25 }, (_, i) => `t${i}`);
    expect(violations(object({ tags: { contains: { $ref: '#/definitions/x' } } }, { definitions: { x: { const: 'x' } } }), { tags: many }).map((v) => v.path)).toEqual(['/properties/tags']);
  });

  it('groups inline alternatives by schemaPath when ajv is not verbose', () => {
    const plain = new AjvModule.default({ allErrors: true, strict: false, logger: false });
    const validate = plain.compile(object({ v: { anyOf: [{ type: 'string' }, { type: 'null' }] }, tags: { contains: { const: 'x' } } }));
    const data = { v: 1, tags: ['a'] };
    validate(data);
    const out: Violation[] = [];
    appendViolations(out, validate, data, subject, MAX_VIOLATIONS);
    expect(out.map((v) => v.message)).toEqual(['properties.v must be a string or null; got the integer 1', 'properties.tags must contain an item the plan allows; got ["a"]']);
  });

  it('keeps what the items themselves must be next to `contains`', () => {
    const schema = object({ tags: { type: 'array', items: { type: 'string' }, contains: { const: 'x' } } });
    expect(violations(schema, { tags: [1, 'a'] }).map((v) => v.message)).toEqual(['properties.tags[0] must be a string; got the integer 1', 'properties.tags must contain an item the plan allows; got [1,"a"]']);
  });
});

describe('field names and values', () => {
  it('quotes keys that are not identifiers and tells array indices from keys like "0"', () => {
    const schema = object({ 'first name': { type: 'string' }, list: { items: { type: 'string' } }, map: { properties: { 0: { type: 'string' } } } });
    expect(violations(schema, { 'first name': 1, list: [1], map: { 0: 1 } }).map((v) => v.message.split(' must')[0])).toEqual(['properties["first name"]', 'properties.list[0]', 'properties.map["0"]']);
  });

  it('escapes JSON Pointer characters in paths', () => {
    expect(only(object({}, { required: ['a/b~c'] }), {}).path).toBe('/properties/a~1b~0c');
  });

  it('quotes at most ~200 characters of the message, however long its values and keys', () => {
    const long = 'x'.repeat(10_000);
    const byValue = only(object({ v: { type: 'number' } }), { v: long }).message;
    const byKey = only(object({}, { additionalProperties: false }), { [long]: 1 }).message;
    const byArray = only(object({ v: { type: 'string' } }), { v: Array.from({ length: 10_000 }, () => long) }).message;
    for (const message of [byValue, byKey, byArray]) {
      expect(message.length).toBeLessThan(260);
      expect((message.match(/x/g) ?? []).length).toBeLessThanOrEqual(200);
    }
    expect(byValue).toMatch(/got the string "x+…$/);
  });

  it('shortens a long path in the middle, keeping the section and the field', () => {
    const keys = Array.from({ length: 10 }, (_, i) => `level${i}_${'k'.repeat(30)}`);
    const schema = keys.reduceRight<object>((inner, key) => object({ [key]: inner }), { type: 'number' });
    const data = keys.reduceRight<unknown>((inner, key) => ({ [key]: inner }), 'x');
    const message = only(schema, data).message;
    expect(message).toMatch(/^properties\.level0_k+….*\.level9_k+ must be a number; got the string "x"$/);
    expect(message.length).toBeLessThan(200);
  });

  it('previews values as JSON cut at 40 characters', () => {
    expect(preview('ok')).toBe('"ok"');
    expect(preview({ a: [1, null] })).toBe('{"a":[1,null]}');
    expect(preview('y'.repeat(100))).toHaveLength(40);
    expect(typedValue(undefined)).toBe('nothing');
  });
});

describe('the cap', () => {
  it('lists up to the room given and counts the rest', () => {
    const schema = object({}, { required: Array.from({ length: 30 }, (_, i) => `f${i}`) });
    const validate = ajv.compile(schema);
    validate({});
    const out: Violation[] = [];
    expect(appendViolations(out, validate, {}, subject, 20)).toBe(10);
    expect(out).toHaveLength(20);
    expect(out[19]!.path).toBe('/properties/f19');
  });

  it('counts an anyOf with its alternatives as one', () => {
    const schema = object({ v: { anyOf: [{ type: 'string' }, { type: 'null' }, { type: 'boolean' }] }, w: { type: 'string' } });
    const validate = ajv.compile(schema);
    validate({ v: 1, w: 1 });
    const out: Violation[] = [];
    expect(appendViolations(out, validate, { v: 1, w: 1 }, subject, 1)).toBe(1);
  });

  it('says how many more in one violation', () => {
    expect(moreViolations(10, 'Shop')).toEqual({ type: 'Unknown-Violation', path: '', message: 'and 10 more violations of the plan "Shop" (only the first 20 are listed)', plan: 'Shop' });
  });
});
