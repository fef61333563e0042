// sluice mcp's answers: compact JSON bounded in size, a relay's refusal as a tool error, and a stored
// message's violations explained with the plan's rule and the fix.
import { describe, expect, it } from 'vitest';
import { explainViolations } from '../../electron/mcp/explain.ts';
import { RelayError } from '../../electron/mcp/relay-api.ts';
import { answerPage, boundedJson, failure, MAX_RESULT_CHARS } from '../../electron/mcp/tool-result.ts';
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

describe('a page of a list (search_messages, list_deliveries)', () => {
  /** A relay's list: `read(limit)` answers the first `limit` (default 100) and `next`, the last one's id; the reads asked. */
  function relay(sizes: (i: number, read: number) => number, stored = 100) {
    const asked: (number | undefined)[] = [];
    const read = async (limit: number | undefined) => {
      asked.push(limit);
      const messages = Array.from({ length: Math.min(limit ?? 100, stored) }, (_, i) => ({ messageId: `m-${i}`, properties: { n: Array.from({ length: sizes(i, asked.length) }, (_, j) => j) } }));
      return { messages, next: messages.at(-1)?.messageId ?? null };
    };
    return { read, asked };
  }
  const shown = async (read: (limit: number | undefined) => Promise<Record<string, unknown>>) => {
    const answer = await answerPage(read);
    const text = (answer.content[0] as { text: string }).text;
    expect(text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
    return JSON.parse(text) as { messages: { messageId: string }[]; next: string | null; truncated?: string };
  };

  it('too long: asked again with as many as fit, so that next goes on after the last one shown', async () => {
    const { read, asked } = relay(() => 400); // ~1,900 characters each, numbers: no string to cut
    const page = await shown(read);
    expect(asked[0]).toBeUndefined();
    expect(asked).toHaveLength(2);
    expect(page.messages).toHaveLength(asked[1]!);
    expect(page.next).toBe(page.messages.at(-1)!.messageId);
    expect(page.truncated).toBe(`only ${asked[1]} messages fit in this page ("next" goes on after them)`);
  });

  it('a page that grew between the reads is asked again with fewer, until it fits', async () => {
    // The second read's messages are larger than the first's (newer, larger ones came in).
    const { read, asked } = relay((_, reads) => (reads === 1 ? 400 : 900));
    const page = await shown(read);
    expect(asked.length).toBeGreaterThanOrEqual(3);
    expect(asked[2]!).toBeLessThan(asked[1]!);
    expect(page.messages).toHaveLength(asked.at(-1)!);
    expect(page.next).toBe(page.messages.at(-1)!.messageId);
  });

  it('one message too large alone: next goes past it (read it with get_message), never null', async () => {
    const { read, asked } = relay((i) => (i === 0 ? 20_000 : 10));
    const page = await shown(read);
    expect(asked).toEqual([undefined, 1]);
    expect(page.messages).toEqual([]);
    expect(page.next).toBe('m-0');
    expect(page.truncated).toContain('only 1 messages fit in this page');
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
