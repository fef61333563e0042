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

describe('violations of alternatives behind a $ref, and of contains', () => {
  // ajv reports errors from inside a $ref with the target's schemaPath, and each item's miss of `contains`:
  // both were told as violations of their own ("must be null" for a nullable $ref; "tags[0] must be "x"").
  const plan = compilePlan('P', {
    events: {
      E: {
        type: 'object',
        definitions: { price: { type: 'number' } },
        properties: { price: { anyOf: [{ $ref: '#/definitions/price' }, { type: 'null' }] }, tags: { type: 'array', contains: { const: 'x' } } },
      },
    },
  });

  it('gives a nullable $ref one violation, saying both alternatives', () => {
    expect(plan.check({ type: 'track', event: 'E', properties: { price: '12' } }, 'flag')).toEqual([
      { type: 'Datatype-Mismatch', path: '/properties/price', message: 'properties.price must be a number or null; got the string "12"', plan: 'P' },
    ]);
    expect(plan.check({ type: 'track', event: 'E', properties: { price: null } }, 'flag')).toEqual([]);
  });

  it('gives a missing contains item one violation, however many items there are', () => {
    const tags = Array.from({ length: 25 }, (_, i) => `t${i}`);
    expect(plan.check({ type: 'track', event: 'E', properties: { tags } }, 'flag')).toEqual([
      { type: 'Unknown-Violation', path: '/properties/tags', message: expect.stringMatching(/^properties\.tags must contain an item the plan allows; got \["t0",/), plan: 'P' },
    ]);
    expect(plan.check({ type: 'track', event: 'E', properties: { tags: [...tags, 'x'] } }, 'flag')).toEqual([]);
  });
});

describe('patterns that could stall the relay (ReDoS)', () => {
  const withPattern = (pattern: string) => ({ events: { E: { properties: { v: { type: 'string', pattern } } } } });
  const refusal = (pattern: string) => {
    const problems = problemsOf(withPattern(pattern));
    expect(problems).toHaveLength(1);
    return problems[0]!;
  };

  it('refuses a repetition inside a repeated group, naming the place and how to rewrite it', () => {
    expect(refusal('^(a+)+$')).toBe(
      'events["E"].properties.v.pattern: "^(a+)+$" nests a repetition inside a repeated group ("(a+)+"), which can take exponential time on some values; rewrite it, e.g. "^a+$"',
    );
    expect(refusal('^([a-z]*)+$')).toMatch(/rewrite it, e\.g\. "\^\[a-z\]\*\$"$/);
    expect(refusal('^(?:\\d?)*$')).toMatch(/rewrite it, e\.g\. "\^\\\\d\*\$"$/);
    // Where no one-element rewrite exists, the sentence says how to make the group safe.
    expect(refusal('^(\\w+\\s?)*$')).toBe(
      'events["E"].properties.v.pattern: "^(\\\\w+\\\\s?)*$" nests a repetition inside a repeated group ("(\\\\w+\\\\s?)*"), which can take exponential time on some values; ' +
        'rewrite it without the inner repetition, or so that the group starts or ends with a character nothing else in it matches (as "-" does in "^[a-z]+(-[a-z]+)*$")',
    );
  });

  it.each([
    ['a repetition in one alternative', '^(a|b+)*$', '(a|b+)*'],
    ['two repetitions side by side', '(x+x+)+y', '(x+x+)+'],
    ['a repetition in a nested group', '^((ab)*c?)+$', '((ab)*c?)+'],
    ['a bounded outer repetition', '^(?:a+){2,5}$', '(?:a+){2,5}'],
    ['a lazy one', '^(a+?)+?$', '(a+?)+?'],
    ['a named group', '^(?<word>[a-z]+ ?)+$', '(?<word>[a-z]+ ?)+'],
    ['one inside a lookahead', '^(?=(a+)+b)', '(a+)+'],
    ['a delimiter the repeated part also matches', '^[a-z]+(-[a-z-]+)*$', '(-[a-z-]+)*'],
    ['a delimiter that is itself optional', '^(-?[a-z]+)*$', '(-?[a-z]+)*'],
    ['a delimiter in an alternation', '^(-a+|-b+)*$', '(-a+|-b+)*'],
    ['a delimiter a class in the group matches', '^(x[^y]+)*$', '(x[^y]+)*'],
    ['an escaped parenthesis before the group', '^\\((a+)+\\)$', '(a+)+'],
  ])('refuses %s: %s', (_, pattern, group) => {
    expect(refusal(pattern)).toContain(`nests a repetition inside a repeated group (${JSON.stringify(group)})`);
  });

  it('refuses backreferences, numbered and named', () => {
    expect(refusal('^(a+)\\1$')).toBe(
      'events["E"].properties.v.pattern: "^(a+)\\\\1$" uses a backreference ("\\\\1"), which can take exponential time on some values; Sluice does not run patterns with backreferences: rewrite it without one',
    );
    expect(refusal('^(?<q>["\'])[a-z]*\\k<q>$')).toContain('uses a backreference ("\\\\k<q>")');
  });

  it('refuses a patternProperties key the same way, naming the patternProperties', () => {
    expect(problemsOf({ identify: { patternProperties: { '^([a-z_]+)+$': { type: 'string' } } } })).toEqual([
      'identify.patternProperties: "^([a-z_]+)+$" nests a repetition inside a repeated group ("([a-z_]+)+"), which can take exponential time on some values; rewrite it, e.g. "^[a-z_]+$"',
    ]);
  });

  it('lists every unsafe pattern of a plan with the other problems', () => {
    const problems = problemsOf({
      events: { A: withPattern('^(a+)+$').events.E, B: { properties: { n: { type: 'nmber' } } } },
      context: { properties: { ip: { type: 'string', pattern: '(\\d)\\1' } } },
    });
    expect(problems.map((p) => p.split(':')[0])).toEqual(['events["A"].properties.v.pattern', 'events["B"].properties.n.type', 'context.properties.ip.pattern']);
  });

  it.each([
    '^sku_[0-9]+$',
    // A group whose repetitions each start (or end) with a character nothing else in the group matches:
    // that character marks where each repetition begins, so a value splits between them one way only.
    '^[a-z]+(-[a-z]+)*$',
    '^([a-z0-9]+\\.)+[a-z]{2,}$',
    '^\\d+(\\.\\d+)*$',
    '^(?:,\\s*\\w+)*$',
    '^((a+)b)*$',
    '^(\\u{1F600}a+)*$',
    // Repeated groups with nothing variable inside.
    '^(\\d{3}-){2}\\d{4}$',
    '^(ab|cd)+$',
    '^\\d+(\\.\\d+)?$',
    // What looks like a group but is not: a class, escapes.
    '^[(+]+$',
    '^a[)+]*b+$',
    '^(a[)+]*)+$',
    '^\\(a+\\)+$',
    '^[\\]\\(]+(x)+$',
    // Common shapes from vendors' plans.
    '(bot|crawl|spider)',
    '^/',
    '^\\d+\\.\\d+\\.\\d+',
    '^cart_[A-Za-z0-9]+$',
    '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
    '^\\p{Lu}\\p{Ll}+( \\p{Lu}\\p{Ll}+)*$',
  ])('accepts %s', (pattern) => {
    expect(() => compilePlan('P', withPattern(pattern))).not.toThrow();
  });

  it('checks with an accepted delimited pattern as written', () => {
    const plan = compilePlan('P', withPattern('^[a-z]+(-[a-z]+)*$'));
    const check = (v: string) => plan.check({ type: 'track', event: 'E', properties: { v } }, 'flag');
    expect(check('order-completed-v')).toEqual([]);
    expect(check('order')).toEqual([]);
    expect(check('order--completed')).toEqual([
      { type: 'Unknown-Violation', path: '/properties/v', message: 'properties.v must match ^[a-z]+(-[a-z]+)*$; got "order--completed"', plan: 'P' },
    ]);
  });

  it('does not match a pattern against a string longer than 8,192 characters: that value is a violation saying so', () => {
    const plan = compilePlan('P', withPattern('^a+$'));
    const check = (v: string) => plan.check({ type: 'track', event: 'E', properties: { v } }, 'flag');
    expect(check('a'.repeat(8192))).toEqual([]);
    expect(check('a'.repeat(8193))).toEqual([
      { type: 'Unknown-Violation', path: '/properties/v', message: 'properties.v is longer than 8,192 characters; Sluice does not match patterns against it', plan: 'P' },
    ]);
    // A long value with no pattern to match is checked as any other.
    const unpatterned = compilePlan('P', { events: { E: { properties: { v: { type: 'string', maxLength: 100_000 } } } } });
    expect(unpatterned.check({ type: 'track', event: 'E', properties: { v: 'b'.repeat(50_000) } }, 'flag')).toEqual([]);
  });

  it('keeps each pattern its own when a schema has several (ajv shares compiled patterns by their text)', () => {
    const plan = compilePlan('P', {
      events: { E: { properties: { a: { type: 'string', pattern: '^a+$' }, b: { type: 'string', pattern: '^b+$' } }, patternProperties: { '^n_': { type: 'number' } } } },
    });
    expect(plan.check({ type: 'track', event: 'E', properties: { a: 'aa', b: 'bb', n_1: 1, other: 'x' } }, 'flag')).toEqual([]);
    expect(brief(plan.check({ type: 'track', event: 'E', properties: { a: 'bb', b: 'aa', n_1: 'one' } }, 'flag'))).toEqual([
      'Unknown-Violation /properties/a',
      'Unknown-Violation /properties/b',
      'Datatype-Mismatch /properties/n_1',
    ]);
  });
});
