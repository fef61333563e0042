import { describe, expect, it } from 'vitest';
import type { TrackingPlan } from '../../../shared/tracking-plan.ts';
import { compilePlan } from '../../../electron/core/plans/compile-plan.ts';
import { PlanError } from '../../../electron/core/plans/plan-error.ts';

const orderCompleted = {
  type: 'object',
  required: ['price'],
  properties: { price: { type: 'number' }, sku: { type: 'string' } },
};
const shop: TrackingPlan = {
  events: { 'Order Completed': orderCompleted, 'Product Viewed': { type: 'object' } },
  identify: { type: 'object', required: ['email'] },
  group: { type: 'object', required: ['plan'] },
  page: { type: 'object', required: ['url'] },
  screen: { type: 'object', required: ['name'] },
  context: { type: 'object', properties: { app: { type: 'object', required: ['version'] } } },
};

function problemsOf(plan: unknown): string[] {
  try {
    compilePlan('Broken', plan as TrackingPlan);
  } catch (error) {
    expect(error).toBeInstanceOf(PlanError);
    return (error as PlanError).problems;
  }
  throw new Error('the plan compiled');
}

const brief = (list: { type: string; path: string }[]) => list.map((v) => `${v.type} ${v.path}`);

describe('what each message type is checked against', () => {
  const plan = compilePlan('Shop', shop);

  it('checks a planned track event’s properties, a missing properties object as {}', () => {
    expect(plan.check({ type: 'track', event: 'Order Completed', properties: { price: 9.5 } }, 'flag')).toEqual([]);
    expect(brief(plan.check({ type: 'track', event: 'Order Completed' }, 'flag'))).toEqual(['Required-Missing /properties/price']);
  });

  it('checks identify and group traits, page and screen properties', () => {
    expect(brief(plan.check({ type: 'identify', traits: {} }, 'flag'))).toEqual(['Required-Missing /traits/email']);
    expect(brief(plan.check({ type: 'group' }, 'flag'))).toEqual(['Required-Missing /traits/plan']);
    expect(brief(plan.check({ type: 'page', properties: {}, traits: { url: 'x' } }, 'flag'))).toEqual(['Required-Missing /properties/url']);
    expect(brief(plan.check({ type: 'screen', properties: { name: 'Home' } }, 'flag'))).toEqual([]);
  });

  it('checks every type’s context, alias only that', () => {
    const badContext = { app: {} };
    expect(brief(plan.check({ type: 'alias', context: badContext }, 'flag'))).toEqual(['Required-Missing /context/app/version']);
    expect(plan.check({ type: 'alias' }, 'flag')).toEqual([]);
    expect(brief(plan.check({ type: 'track', event: 'Product Viewed', context: badContext }, 'flag'))).toEqual(['Required-Missing /context/app/version']);
    expect(brief(plan.check({ type: 'identify', traits: { email: 'a@b.c' }, context: badContext }, 'flag'))).toEqual(['Required-Missing /context/app/version']);
  });

  it('refuses every message of an event whose schema is false', () => {
    const forbidden = compilePlan('P', { events: { Legacy: false } });
    expect(forbidden.check({ type: 'track', event: 'Legacy' }, 'flag')).toEqual([
      { type: 'Unknown-Violation', path: '/properties', message: 'the plan "P" does not allow "Legacy" (its schema is false)', plan: 'P' },
    ]);
  });

  it('does not check a type whose schema the plan lacks', () => {
    const eventsOnly = compilePlan('Events', { events: { A: { type: 'object', required: ['x'] } } });
    expect(eventsOnly.check({ type: 'identify', traits: 'not even an object' }, 'flag')).toEqual([]);
    expect(eventsOnly.check({ type: 'page', context: 5 }, 'flag')).toEqual([]);
  });

  it('names the plan in every violation', () => {
    const list = plan.check({ type: 'track', event: 'Order Completed', properties: { price: 'x' }, context: { app: {} } }, 'flag');
    expect(list).toHaveLength(2);
    for (const v of list) expect(v.plan).toBe('Shop');
  });

  it('says whether it plans an event', () => {
    expect(plan.plans('Order Completed')).toBe(true);
    expect(plan.plans('order completed')).toBe(false);
    expect(plan.plans('toString')).toBe(false);
  });
});

describe('unplanned events', () => {
  const plan = compilePlan('Shop', shop);

  it('flags one with a close planned name, suggesting it', () => {
    expect(plan.check({ type: 'track', event: 'Order Complete', properties: {} }, 'flag')).toEqual([
      { type: 'Unplanned-Event', path: '/event', message: '"Order Complete" is not in the plan "Shop"; did you mean "Order Completed"?', plan: 'Shop' },
    ]);
    expect(plan.check({ type: 'track', event: 'order_completed' }, 'block')[0]!.message).toBe('"order_completed" is not in the plan "Shop"; did you mean "Order Completed"?');
  });

  it('suggests a name that differs only in case and separators, however many', () => {
    const named = compilePlan('P', { events: { 'Product List Filtered By User': {}, 'Product Listed': {} } });
    expect(named.check({ type: 'track', event: 'product_list_filtered_by_user' }, 'flag')[0]!.message).toBe(
      '"product_list_filtered_by_user" is not in the plan "P"; did you mean "Product List Filtered By User"?',
    );
  });

  it('flags one with no close name plainly, and still checks its context', () => {
    expect(brief(plan.check({ type: 'track', event: 'Signed Up', context: { app: {} } }, 'block'))).toEqual(['Unplanned-Event /event', 'Required-Missing /context/app/version']);
    expect(plan.check({ type: 'track', event: 'Signed Up' }, 'flag')[0]!.message).toBe('"Signed Up" is not in the plan "Shop"');
  });

  it('lets one through without violations when unplanned events are allowed', () => {
    expect(plan.check({ type: 'track', event: 'Signed Up', properties: { anything: 1 } }, 'allow')).toEqual([]);
  });
});

describe('tolerance of vendor keywords and drafts', () => {
  const segmentStyle = {
    $schema: 'http://json-schema.org/draft-04/schema#',
    id: 'https://segment.com/schemas/order-completed',
    labels: { team: 'checkout', priority: 'high' },
    description: 'A customer paid',
    $comment: 'exported from Protocols',
    type: 'object',
    required: ['id', 'total'],
    properties: {
      id: { id: 'order-id', description: 'Order id', type: 'string', examples: ['o_1'] },
      total: { type: 'number', minimum: 0, exclusiveMinimum: true },
      placed_at: { type: 'string', format: 'date-time' },
      store: { type: 'string', format: 'store-code' },
    },
  };

  it('compiles a Segment-style draft-04 schema and checks with its meaning', () => {
    const plan = compilePlan('Segment', { events: { 'Order Completed': segmentStyle } });
    const check = (properties: object) => brief(plan.check({ type: 'track', event: 'Order Completed', properties }, 'flag'));
    expect(check({ id: 'o_1', total: 5, placed_at: '2024-05-01T12:00:00Z', store: 'anything' })).toEqual([]);
    // A property named "id" is a field, not draft-04's id keyword: it stays required and typed.
    expect(check({ total: 5 })).toEqual(['Required-Missing /properties/id']);
    expect(check({ id: 7, total: 5 })).toEqual(['Datatype-Mismatch /properties/id']);
    // draft-04's boolean exclusiveMinimum is kept as meant: above 0, not at least 0.
    expect(check({ id: 'o', total: 0 })).toEqual(['Unknown-Violation /properties/total']);
    expect(check({ id: 'o', total: 5, placed_at: 'May 1st' })).toEqual(['Unknown-Violation /properties/placed_at']);
  });

  it.each(['https://json-schema.org/draft/2019-09/schema', 'https://json-schema.org/draft/2020-12/schema', 'http://json-schema.org/draft-07/schema#'])('compiles a schema naming %s', ($schema) => {
    const plan = compilePlan('P', { events: { E: { $schema, type: 'object', $defs: { n: { type: 'number' } }, properties: { n: { $ref: '#/$defs/n' } } } } });
    expect(brief(plan.check({ type: 'track', event: 'E', properties: { n: 'x' } }, 'flag'))).toEqual(['Datatype-Mismatch /properties/n']);
  });

  it('ignores OpenAPI’s nullable where ajv would refuse it, and honours it beside a type', () => {
    const plan = compilePlan('P', { events: { E: { properties: { a: { nullable: true }, b: { type: 'string', nullable: true } } } } });
    expect(plan.check({ type: 'track', event: 'E', properties: { a: 1, b: null } }, 'flag')).toEqual([]);
    expect(brief(plan.check({ type: 'track', event: 'E', properties: { b: 1 } }, 'flag'))).toEqual(['Datatype-Mismatch /properties/b']);
  });

  it('does not change the caller’s plan', () => {
    const plan = { events: { 'Order Completed': segmentStyle }, context: { $schema: 'http://json-schema.org/draft-04/schema#', id: 'ctx' } };
    const before = structuredClone(plan);
    compilePlan('Segment', plan);
    expect(plan).toEqual(before);
  });

  it('compiles events copied from one template (the same $id)', () => {
    const template = { $id: 'https://example.com/event', type: 'object', required: ['a'] };
    const plan = compilePlan('P', { events: { A: { ...template }, B: { ...template } } });
    expect(brief(plan.check({ type: 'track', event: 'B' }, 'flag'))).toEqual(['Required-Missing /properties/a']);
  });
});

describe('plans that cannot be used', () => {
  it('lists every schema that does not compile, each with its place and reason', () => {
    const problems = problemsOf({
      events: {
        'Order Completed': { properties: { price: { type: 'numbr' } } },
        Signup: { properties: { 'first name': { required: 'yes' } } },
      },
      identify: { properties: { email: { type: 'string', pattern: '([a-z' } } },
      group: { $ref: '#/definitions/missing' },
    });
    expect(problems).toEqual([
      'events["Order Completed"].properties.price.type: must be one of "array", "boolean", "integer", "null", "number", "object", "string" or an array; got "numbr"',
      'events["Signup"].properties["first name"].required: must be an array; got "yes"',
      'identify.properties.email.pattern: "([a-z" is not a valid regular expression (JavaScript, Unicode mode): Unterminated character class',
      'group.$ref: "#/definitions/missing" cannot be resolved; only references within the same schema (such as "#/definitions/price") are followed',
    ]);
  });

  it('names a bad patternProperties key and a schema in a list by index', () => {
    expect(problemsOf({ events: { E: { anyOf: [{ type: 'string' }, { patternProperties: { '(': {} } }] } } })).toEqual([
      'events["E"].anyOf[1].patternProperties: "(" is not a valid regular expression (JavaScript, Unicode mode): Unterminated group',
    ]);
  });

  it('refuses a schema nested deeper than 64 levels, and takes one of 64', () => {
    const nest = (levels: number): Record<string, unknown> => (levels === 0 ? { type: 'string' } : { type: 'object', properties: { a: nest(levels - 1) } });
    expect(() => compilePlan('P', { events: { E: nest(64) } })).not.toThrow();
    const problems = problemsOf({ events: { E: nest(65) } });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^events\["E"\]\.properties\.a\.properties\.a.*: nested deeper than 64 levels; flatten the schema$/);
  });

  it('refuses a value in a schema nested deeper than 64 levels, naming where', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(problemsOf({ events: { E: { properties: { v: { enum: [deep] } } } } })).toEqual(['events["E"].properties.v.enum: nested deeper than 64 levels; flatten the schema']);
  });

  it('refuses a plan too deep to serialize without crashing', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(problemsOf({ events: { E: { enum: [deep] } } })).toEqual(['the plan is not JSON, or is nested deeper than 64 levels']);
  });

  it('refuses a plan over 5 MB of JSON', () => {
    const events = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`E${i}`, { description: 'd'.repeat(100_000) }]));
    expect(problemsOf({ events })).toEqual(['the plan is 5.7 MB of JSON; at most 5 MB is accepted']);
  });
});

describe('the cap on violations', () => {
  it('lists 20 violations and one more saying how many were left out', () => {
    const fields = Array.from({ length: 25 }, (_, i) => `f${i}`);
    const plan = compilePlan('P', { events: { E: { type: 'object', required: fields } }, context: { type: 'object', required: ['app'] } });
    const list = plan.check({ type: 'track', event: 'E' }, 'flag');
    expect(list).toHaveLength(21);
    expect(list[19]!.path).toBe('/properties/f19');
    expect(list[20]).toEqual({ type: 'Unknown-Violation', path: '', message: 'and 6 more violations of the plan "P" (only the first 20 are listed)', plan: 'P' });
  });
});
