import { describe, expect, it } from 'vitest';
import { propertyName } from '../../shared/audience-property.ts';
import { audienceConfigSchema, audienceInputSchema } from '../../shared/audiences.ts';
import { describeIssues } from '../../shared/settings.ts';

describe('audience property name (snake_case of the name)', () => {
  it.each([
    // the seed's example and plain words
    ['High Value Users', 'high_value_users'],
    ['churned', 'churned'],
    ['snake_case_already', 'snake_case_already'],
    // punctuation: any run becomes one underscore, none at the ends
    ['High-Value Users!', 'high_value_users'],
    ['  --Users (EU)!! ', 'users_eu'],
    ['a.b-c/d', 'a_b_c_d'],
    ['__private__', 'private'],
    ['Don’t churn', 'dont_churn'],
    ["Don't churn", 'dont_churn'],
    ['Cart: abandoned 🛒 (7d)', 'cart_abandoned_7d'],
    // digits stay where they are, attached to their letters
    ['Top 10 Users', 'top_10_users'],
    ['ios14 users', 'ios14_users'],
    ['3D Printers', '3d_printers'],
    ['2024', '2024'],
    // camelCase and PascalCase, acronyms
    ['highValueUsers', 'high_value_users'],
    ['HighValueUsers', 'high_value_users'],
    ['HTTPRequests', 'http_requests'],
    ['userID', 'user_id'],
    ['lifetimeValueUSD', 'lifetime_value_usd'],
    // Unicode: Latin accents dropped, other scripts kept whole, compatibility forms folded
    ['Café Lovers', 'cafe_lovers'],
    ['Ünïcödé Straße', 'unicode_straße'],
    ['İstanbul fans', 'istanbul_fans'],
    ['Йога Club', 'йога_club'],
    ['Пользователи VIP', 'пользователи_vip'],
    ['日本のユーザー', '日本のユーザー'],
    ['ＦＵＬＬ width', 'full_width'],
    ['ﬁnance', 'finance'],
    // nothing usable
    ['🎉🎉', ''],
    ['!!!', ''],
  ])('%j → %j', (name, expected) => {
    expect(propertyName(name)).toBe(expected);
  });

  it('is idempotent: a property name is its own property name', () => {
    for (const name of ['High Value Users', 'HTTPRequests', 'Café Lovers', 'Top 10 Users', 'Йога Club']) {
      const once = propertyName(name);
      expect(propertyName(once)).toBe(once);
    }
  });

  it('refuses a name that gives no property name, saying why', () => {
    const result = audienceInputSchema.safeParse({ sourceId: 1, name: '🎉', rule: { conditions: [{ kind: 'trait', trait: 'plan', operator: 'exists' }] } });
    expect(result.success).toBe(false);
    expect(describeIssues(result.error!)).toEqual(['name: needs at least one letter or digit: the trait it sends is named after it (snake_case)']);
  });
});

describe('audience definition schema', () => {
  const problems = (input: unknown) => {
    const result = audienceInputSchema.safeParse(input);
    return result.success ? [] : describeIssues(result.error);
  };
  const trait = (operator: string, value?: unknown) => ({ kind: 'trait', trait: 'plan', operator, ...(value === undefined ? {} : { value }) });
  const withConditions = (...conditions: unknown[]) => ({ sourceId: 1, name: 'A', rule: { conditions } });

  it("fills in the defaults: an audience, all conditions, demo mode every 30 s, the source's destinations", () => {
    const parsed = audienceInputSchema.parse(withConditions(trait('equals', 'pro')));
    expect(parsed).toEqual({
      sourceId: 1,
      name: 'A',
      kind: 'audience',
      rule: { match: 'all', conditions: [{ kind: 'trait', trait: 'plan', operator: 'equals', value: 'pro' }] },
      mode: 'demo',
      intervalSeconds: 30,
      destinationIds: null,
    });
  });

  it.each([
    ['no condition', withConditions(), ['rule.conditions: add at least one condition']],
    ['equals without a value', withConditions(trait('equals')), ['rule.conditions[0].value: give the value to compare with']],
    ['exists with a value', withConditions(trait('exists', 'x')), ['rule.conditions[0].value: "exists" takes no value; remove it']],
    ['greater_than a string', withConditions(trait('greater_than', '5')), ['rule.conditions[0].value: "greater_than" compares numbers: give a number']],
    ['contains nothing', withConditions(trait('contains', '')), ['rule.conditions[0].value: "contains" needs the text to look for']],
    ['an unknown kind', withConditions({ kind: 'page' }), ['rule.conditions[0].kind: kind must be "trait" or "event"']],
    [
      'at least 0 times',
      withConditions({ kind: 'event', event: 'Order Completed', operator: 'at_least', count: 0 }),
      ['rule.conditions[0].count: "at least 0 times" matches every user; use at least 1'],
    ],
    [
      'a window of 0 hours',
      withConditions({ kind: 'event', event: 'E', operator: 'at_most', count: 1, within: { amount: 0, unit: 'hours' } }),
      ['rule.conditions[0].within.amount: must be at least 1'],
    ],
    ['an event without a name', withConditions({ kind: 'event', event: ' ', operator: 'at_least', count: 1 }), ['rule.conditions[0].event: name the event, e.g. Order Completed']],
    ['a computed trait without a computation', { sourceId: 1, name: 'C', kind: 'computed_trait' }, ['computation: a computed trait needs a computation']],
    [
      'an audience with a computation',
      { sourceId: 1, name: 'C', rule: { conditions: [trait('exists')] }, computation: { kind: 'event_count', event: 'E' } },
      ['computation: only a computed trait has a computation'],
    ],
    ['a demo interval under 5 s', { ...withConditions(trait('exists')), intervalSeconds: 1 }, ['intervalSeconds: must be at least 5 seconds']],
    ['an unknown field', { ...withConditions(trait('exists')), colour: 'red' }, ['(root): Unrecognized key: "colour"']],
  ])('refuses %s, naming the field', (_, input, expected) => {
    expect(problems(input)).toEqual(expected);
  });

  it('accepts every operator with the value it needs', () => {
    const conditions = [
      trait('equals', 'pro'),
      trait('equals', 3),
      trait('equals', true),
      trait('not_equals', 'free'),
      trait('exists'),
      trait('not_exists'),
      trait('contains', 'gmail'),
      trait('greater_than', 100),
      trait('less_than', 1.5),
      { kind: 'event', event: 'Order Completed', operator: 'at_least', count: 3, within: { amount: 7, unit: 'days' } },
      { kind: 'event', event: 'Signed In', operator: 'at_most', count: 0 },
    ];
    expect(problems({ ...withConditions(...conditions), rule: { match: 'any', conditions } })).toEqual([]);
  });

  it('takes audiences from the config file by source name', () => {
    const parsed = audienceConfigSchema.parse({
      name: 'Order count',
      source: 'web',
      kind: 'computed_trait',
      computation: { kind: 'event_count', event: 'Order Completed' },
      mode: 'realistic',
    });
    expect(parsed).toMatchObject({ source: 'web', kind: 'computed_trait', mode: 'realistic', intervalSeconds: 30 });
  });
});
