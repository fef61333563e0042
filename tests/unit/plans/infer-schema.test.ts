import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../../electron/core/plans/compile-plan.ts';
import { inferExamples, inferPlan, inferSchema } from '../../../electron/core/plans/infer-schema.ts';

describe('inferSchema', () => {
  it('describes each field’s type and requires the fields every example has', () => {
    expect(inferSchema([{ sku: 'a', price: 9.5, paid: true, coupon: 'X' }, { sku: 'b', price: 3, paid: false }])).toEqual({
      type: 'object',
      properties: { coupon: { type: 'string' }, paid: { type: 'boolean' }, price: { type: 'number' }, sku: { type: 'string' } },
      required: ['paid', 'price', 'sku'],
    });
  });

  it('says number for whole numbers too; integer only when asked, and only when every number is whole', () => {
    expect(inferSchema([{ n: 1 }, { n: 2 }])).toMatchObject({ properties: { n: { type: 'number' } } });
    expect(inferSchema([{ n: 1 }, { n: 2 }], { integers: true })).toMatchObject({ properties: { n: { type: 'integer' } } });
    expect(inferSchema([{ n: 1 }, { n: 2.5 }], { integers: true })).toMatchObject({ properties: { n: { type: 'number' } } });
  });

  it('writes no union: a field of several types (null is one) gets no type, is not required where it was null, and is reported with counts and an example', () => {
    const { schema, mixed } = inferExamples(
      [
        { value: { v: 'a', w: 1 }, messageId: 'm1' },
        { value: { v: null, w: 2.5 }, messageId: 'm2' },
        { value: { v: 3, w: 3 }, messageId: 'm3' },
        { value: { v: 'b', w: 4, list: [1, 'x', 2] }, messageId: 'm4' },
      ],
      {},
      { type: 'track', event: 'Order Completed', root: 'properties' },
    );
    expect(schema).toEqual({ type: 'object', properties: { list: { type: 'array', items: {} }, v: {}, w: { type: 'number' } }, required: ['w'] });
    expect(mixed).toEqual([
      { type: 'track', event: 'Order Completed', path: 'properties.list[]', types: [{ type: 'number', count: 2, example: 'm4' }, { type: 'string', count: 1, example: 'm4' }] },
      { type: 'track', event: 'Order Completed', path: 'properties.v', types: [{ type: 'string', count: 2, example: 'm1' }, { type: 'null', count: 1, example: 'm2' }, { type: 'number', count: 1, example: 'm3' }] },
    ]);
  });

  it('describes nested objects and array items from every element', () => {
    expect(inferSchema([{ order: { items: [{ sku: 'a', qty: 1 }, { sku: 'b' }] } }, { order: { items: [] } }])).toEqual({
      type: 'object',
      properties: {
        order: {
          type: 'object',
          properties: { items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'number' }, sku: { type: 'string' } }, required: ['sku'] } } },
          required: ['items'],
        },
      },
      required: ['order'],
    });
  });

  it('leaves an array with no elements seen open', () => {
    expect(inferSchema([{ tags: [] }])).toEqual({ type: 'object', properties: { tags: { type: 'array' } }, required: ['tags'] });
  });

  it('stops describing below 8 levels', () => {
    let value: object = { leaf: 1 };
    for (let i = 0; i < 12; i++) value = { a: value };
    let schema = inferSchema([value]) as Record<string, any>;
    let levels = 0;
    while (schema.properties?.a) {
      schema = schema.properties.a;
      levels++;
    }
    expect(levels).toBe(8);
    expect(schema).toEqual({ type: 'object' });
  });

  it('says date-time only when every string is an ISO 8601 date-time', () => {
    expect(inferSchema([{ at: '2024-05-01T12:00:00Z' }, { at: '2024-02-29T23:59:59.123+02:00' }])).toMatchObject({ properties: { at: { type: 'string', format: 'date-time' } } });
    for (const other of ['2024-05-01', 'May 1, 2024', '2023-02-29T12:00:00Z', '2024-05-01T24:00:00Z', '2024-05-01T12:00Z', '1714564800']) {
      expect(inferSchema([{ at: '2024-05-01T12:00:00Z' }, { at: other }]), other).toEqual({ type: 'object', properties: { at: { type: 'string' } }, required: ['at'] });
    }
  });

  it('gives the same schema whatever the order of examples and keys', () => {
    const a = inferSchema([{ b: 1, a: 'x' }, { a: null, c: [1.5] }]);
    const b = inferSchema([{ c: [1.5], a: null }, { a: 'x', b: 1 }]);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });

  it('keeps a field named __proto__ as a field', () => {
    const schema = inferSchema([JSON.parse('{"__proto__": "x"}')]) as { properties: object };
    expect(Object.keys(schema.properties)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(schema.properties)).toBe(Object.prototype);
  });
});

describe('inferred schemas through compilePlan', () => {
  const examples = [
    { id: 'o_1', total: 10, discount: 1.5, placed_at: '2024-05-01T12:00:00Z', note: null, items: [{ sku: 'a', qty: 1 }], meta: { source: 'web', tags: ['x'] } },
    { id: 'o_2', total: 12.25, placed_at: '2024-05-02T08:30:00.5+01:00', note: 'gift', items: [], meta: { source: 'app', tags: [] } },
    { id: 'o_3', total: 3, discount: 0, placed_at: '2024-05-03T00:00:00Z', items: [{ sku: 'b', qty: 2, gift: true }], meta: { source: 'web', tags: ['y', 'z'] } },
  ];
  const plan = compilePlan('Inferred', { events: { 'Order Completed': inferSchema(examples) } });
  const check = (properties: unknown) => plan.check({ type: 'track', event: 'Order Completed', properties }, 'flag');

  it('accepts every example it came from', () => {
    for (const properties of examples) expect(check(properties)).toEqual([]);
  });

  it('rejects a field of another type and a missing required field', () => {
    expect(check({ ...examples[0], total: '10' }).map((v) => `${v.type} ${v.path}`)).toEqual(['Datatype-Mismatch /properties/total']);
    expect(check({ ...examples[0], items: [{ sku: 5, qty: 1 }] }).map((v) => `${v.type} ${v.path}`)).toEqual(['Datatype-Mismatch /properties/items/0/sku']);
    const { id: _id, ...withoutId } = examples[0]!;
    expect(check(withoutId).map((v) => `${v.type} ${v.path}`)).toEqual(['Required-Missing /properties/id']);
  });

  it('accepts null where null was seen, and fields it never saw', () => {
    expect(check({ ...examples[1], note: null, extra: 1 })).toEqual([]);
    expect(check({ ...examples[1], placed_at: 'soon' }).map((v) => v.path)).toEqual(['/properties/placed_at']);
  });
});

describe('inferPlan', () => {
  const messages = [
    { type: 'track', event: 'Order Completed', properties: { total: 1 } },
    { type: 'track', event: 'Order Completed', properties: { total: 2.5 } },
    { type: 'track', event: 'Signed Up' },
    { type: 'track', event: null, properties: { x: 1 } },
    { type: 'identify', traits: { email: 'a@b.c' }, properties: { ignored: 1 } },
    { type: 'group', traits: { plan: 'pro' } },
    { type: 'page', properties: { url: 'https://x' }, traits: { ignored: 1 } },
    { type: 'screen', properties: { name: 'Home' } },
    { type: 'alias' },
  ];

  it('groups track events by name and takes traits or properties by type', () => {
    const { plan, mixed } = inferPlan(messages);
    expect(mixed).toEqual([]);
    expect(Object.keys(plan.events)).toEqual(['Order Completed', 'Signed Up']);
    expect(plan.events['Order Completed']).toEqual({ type: 'object', properties: { total: { type: 'number' } }, required: ['total'] });
    expect(plan.events['Signed Up']).toEqual({ type: 'object', properties: {} });
    expect(plan.identify).toEqual({ type: 'object', properties: { email: { type: 'string' } }, required: ['email'] });
    expect(plan.group).toMatchObject({ required: ['plan'] });
    expect(plan.page).toMatchObject({ required: ['url'] });
    expect(plan.screen).toMatchObject({ required: ['name'] });
    expect(plan.context).toBeUndefined();
  });

  it('makes a plan every message it came from conforms to', () => {
    const plan = compilePlan('Inferred', inferPlan(messages).plan);
    for (const m of messages) if (m.event !== null) expect(plan.check(m, 'flag'), JSON.stringify(m)).toEqual([]);
  });
});
