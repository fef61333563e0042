// sluice mcp's answers: compact JSON bounded in size, a relay's refusal as a tool error, and a stored
// message's violations explained with the plan's rule and the fix.
import { describe, expect, it } from 'vitest';
import { explainViolations } from '../../electron/mcp/explain.ts';
import { RelayError } from '../../electron/mcp/relay-api.ts';
import { boundedJson, failure, MAX_RESULT_CHARS } from '../../electron/mcp/tool-result.ts';
import type { TrackingPlanView } from '../../shared/tracking-plan.ts';

describe('a tool\'s answer', () => {
  it('is the compact JSON as it is when it fits', () => {
    const value = { messages: [{ messageId: 'a', properties: { n: 1 } }], next: null };
    expect(boundedJson(value)).toBe(JSON.stringify(value));
  });

  it('cuts long strings first, saying so and how to see the whole', () => {
    const big = 'x'.repeat(200_000);
    const text = boundedJson({ messages: [{ messageId: 'a', properties: { blob: big } }] });
    expect(text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    const parsed = JSON.parse(text);
    expect(parsed.messages[0].messageId).toBe('a');
    expect(parsed.messages[0].properties.blob).toMatch(/^x{4000}…\[196000 more characters\]$/);
    expect(parsed.truncated).toContain('cut to 4000 characters');
  });

  it('then shortens the longest list, saying how many are shown', () => {
    const messages = Array.from({ length: 2000 }, (_, i) => ({ messageId: `m-${i}`, properties: { text: 'y'.repeat(100) } }));
    const text = boundedJson({ messages, next: 'cursor' });
    expect(text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    const parsed = JSON.parse(text);
    expect(parsed.next).toBe('cursor');
    expect(parsed.messages[0].messageId).toBe('m-0');
    expect(parsed.truncated).toMatch(new RegExp(`^only the first ${parsed.messages.length} of 2000 messages are shown`));
  });

  it('is a tool error with the relay\'s sentence, and what it added', () => {
    const error = failure(new RelayError('timeout', 'waited 50 ms for 1 accepted message', { matched: [] }));
    expect(error).toEqual({ isError: true, content: [{ type: 'text', text: 'waited 50 ms for 1 accepted message\n{"matched":[]}' }] });
  });
});

describe('explain_violation\'s words', () => {
  const plans = [{ name: 'shop', file: '/plans/shop.json', plan: { events: { Order: { type: 'object', properties: { price: { type: 'number' }, items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' } } } } }, required: ['price'], additionalProperties: false } } } }] as unknown as TrackingPlanView[];
  const message = { type: 'track', event: 'Order' };

  it('gives each violation the plan\'s rule at its place and a fix naming the plan file', () => {
    const explained = explainViolations(message, [
      { type: 'Required-Missing', path: '/properties/price', message: 'properties.price is required', plan: 'shop' },
      { type: 'Datatype-Mismatch', path: '/properties/items/0/sku', message: 'must be a string', plan: 'shop' },
      { type: 'Additional-Properties', path: '/properties/coupon', message: 'not in the plan', plan: 'shop' },
    ], plans);
    expect(explained[0]).toMatchObject({ rule: { required: ['price'], 'properties.price': { type: 'number' } }, planFile: '/plans/shop.json' });
    expect(explained[0]!.fix).toBe('send properties.price with this call, or, if it is optional, take "price" out of "required" in /plans/shop.json');
    expect(explained[1]).toMatchObject({ rule: { type: 'string' } });
    expect(explained[1]!.fix).toContain('send properties.items[0].sku as the rule\'s "type"');
    expect(explained[2]).toMatchObject({ rule: { properties: ['price', 'items'], additionalProperties: false } });
    expect(explained[2]!.fix).toContain('leave properties.coupon out of this call, or add "coupon" to "properties"');
  });

  it('lists the planned events for an unplanned one, and says when the plan is gone', () => {
    const [unplanned] = explainViolations({ type: 'track', event: 'Ordr' }, [{ type: 'Unplanned-Event', path: '/event', message: '"Ordr" is not in the plan', plan: 'shop' }], plans);
    expect(unplanned).toMatchObject({ rule: { plannedEvents: ['Order'] } });
    const [gone] = explainViolations(message, [{ type: 'Datatype-Mismatch', path: '/properties/price', message: 'm', plan: 'old' }], plans);
    expect(gone).toMatchObject({ rule: null, planFile: null });
    expect(gone!.fix).toContain('the plan "old" (no longer in use)');
  });
});
