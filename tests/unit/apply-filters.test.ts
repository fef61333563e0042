import { describe, expect, it } from 'vitest';
import { applyFilters, FilterError, sampleHash, type MessageFacts } from '../../electron/core/transforms/filters.ts';
import { destinationFiltersSchema, filterDecisionText, type DestinationFilter } from '../../shared/destination-filters.ts';

const facts: MessageFacts = { source: 'web', origin: 'ingest', violations: 0, plans: [] };

function track(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'track',
    event: 'Order Completed',
    messageId: 'm-1',
    userId: 'u_1',
    anonymousId: 'a_1',
    timestamp: '2026-01-01T00:00:00.000Z',
    receivedAt: '2026-01-01T00:00:01.000Z',
    sentAt: '2026-01-01T00:00:00.500Z',
    originalTimestamp: '2026-01-01T00:00:00.000Z',
    properties: { price: 12, currency: 'EUR', products: [{ sku: 'a', name: 'A', price: 1 }, { sku: 'b', name: 'B' }, 'loose'] },
    context: { ip: '10.0.0.1', library: { name: 'analytics-node', version: '1' } },
    ...extra,
  };
}

/** Filters as a destination's settings hold them (validated by the schema). */
const filters = (list: unknown[]): DestinationFilter[] => destinationFiltersSchema.parse(list);

describe('applyFilters', () => {
  it('keeps a message no filter matches, unchanged and without decisions', () => {
    const message = track();
    const outcome = applyFilters(filters([{ if: 'type:identify', drop: true }]), message, facts);
    expect(outcome).toEqual({ kind: 'kept', message, decisions: [] });
  });

  it('drops what a drop filter matches, saying which filter', () => {
    const list = filters([{ if: 'type:identify', drop: true }, { if: 'event:"Order Completed"', drop: true }]);
    const outcome = applyFilters(list, track(), facts);
    expect(outcome.kind).toBe('dropped');
    if (outcome.kind !== 'dropped') return;
    expect(outcome.decision).toEqual({ index: 1, if: 'event:"Order Completed"', effect: 'dropped', text: 'dropped by filter 2 (if: event:"Order Completed")' });
    expect(outcome.decisions).toEqual([outcome.decision]);
  });

  it('an empty if matches every message', () => {
    const outcome = applyFilters(filters([{ if: '', drop: true }]), track(), facts);
    expect(outcome.kind === 'dropped' && outcome.decision.text).toBe('dropped by filter 1 (every message)');
  });

  it('the first drop decides: later filters are not applied, earlier ones are listed', () => {
    const list = filters([{ if: '', blockFields: ['context.ip'] }, { if: 'userId:u_*', drop: true }, { if: '', allowFields: ['properties'] }]);
    const outcome = applyFilters(list, track(), facts);
    expect(outcome.kind).toBe('dropped');
    expect(outcome.decisions.map((d) => [d.index, d.effect])).toEqual([
      [0, 'fields'],
      [1, 'dropped'],
    ]);
  });

  it('uses the facts beside the message: source, origin, violations, plan', () => {
    const drop = (q: string, f: MessageFacts) => applyFilters(filters([{ if: q, drop: true }]), track(), f).kind;
    expect(drop('source:web', facts)).toBe('dropped');
    expect(drop('source:ios', facts)).toBe('kept');
    expect(drop('origin:plan', { ...facts, origin: 'plan' })).toBe('dropped');
    expect(drop('origin:plan', facts)).toBe('kept');
    expect(drop('violations:yes', { ...facts, violations: 2, plans: ['Checkout'] })).toBe('dropped');
    expect(drop('violations:yes', facts)).toBe('kept');
    expect(drop('plan:check*', { ...facts, violations: 1, plans: ['Checkout'] })).toBe('dropped');
    expect(drop('-plan:check*', { ...facts, violations: 1, plans: ['Checkout'] })).toBe('kept');
    // Not known: the clause does not hold (its negation does).
    expect(drop('origin:ingest', { source: 'web' })).toBe('kept');
    expect(drop('-origin:ingest', { source: 'web' })).toBe('dropped');
  });

  it('every if reads the message as it came, not as an earlier field filter left it', () => {
    const list = filters([{ if: '', allowFields: ['properties.price'] }, { if: 'context.ip:10.*', drop: true }]);
    expect(applyFilters(list, track(), facts).kind).toBe('dropped');
  });

  it('never changes its input, and a field filter returns a copy', () => {
    const message = track();
    const before = structuredClone(message);
    const outcome = applyFilters(filters([{ if: '', blockFields: ['properties.products.name'] }, { if: '', allowFields: ['properties'] }]), message, facts);
    expect(message).toEqual(before);
    if (outcome.kind !== 'kept') throw new Error('kept');
    (outcome.message.properties as { products: { sku: string }[] }).products[0]!.sku = 'changed';
    expect(message).toEqual(before);
    // Each kind alone: what it keeps is a copy too.
    for (const filter of [{ if: '', allowFields: ['properties.products', 'context'] }, { if: '', blockFields: ['properties.price'] }]) {
      const alone = applyFilters(filters([filter]), message, facts);
      if (alone.kind !== 'kept') throw new Error('kept');
      (alone.message.properties as { products: { sku: string }[] }).products[0]!.sku = 'changed';
      (alone.message.context as { library: { name: string } }).library.name = 'changed';
      expect(message).toEqual(before);
    }
  });

  it('a bad query is refused at validation, and at use with FilterError', () => {
    const result = destinationFiltersSchema.safeParse([{ if: 'bogus:1', drop: true }]);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/^unknown field "bogus".*\(at character 1\)$/);
    expect(() => applyFilters([{ if: 'event:"open', drop: true }], track(), facts)).toThrow(FilterError);
    expect(() => applyFilters([{ if: 'event:"open', drop: true }], track(), facts)).toThrow(/filter 1's if does not parse: a quote is not closed/);
  });
});

describe('sample', () => {
  it('is the same for the same messageId on every call and with every filters array', () => {
    const ids = Array.from({ length: 200 }, (_, i) => `msg-${i}`);
    const first = ids.map((id) => applyFilters(filters([{ if: '', sample: 0.5 }]), track({ messageId: id }), facts).kind);
    const again = ids.map((id) => applyFilters(filters([{ if: '', sample: 0.5 }]), track({ messageId: id, event: 'Other' }), facts).kind);
    expect(again).toEqual(first);
    expect(new Set(first)).toEqual(new Set(['kept', 'dropped']));
  });

  it('keeps about its rate of 10,000 ids (and a kept one says so)', () => {
    for (const rate of [0.1, 0.5, 0.9]) {
      let kept = 0;
      for (let i = 0; i < 10_000; i++) {
        const outcome = applyFilters(filters([{ if: '', sample: rate }]), track({ messageId: `4f1c-${i}-${i * 7}` }), facts);
        if (outcome.kind === 'kept') {
          kept++;
          expect(outcome.decisions[0]?.text).toBe(`kept by filter 1 (sample ${rate})`);
        } else expect(outcome.decision.text).toBe(`sampled out by filter 1 (sample ${rate})`);
      }
      // Binomial standard deviation at 10,000 is at most 50: within 4 of them.
      expect(Math.abs(kept - rate * 10_000)).toBeLessThan(200);
    }
  });

  it('spreads uuid-like ids evenly (each tenth of [0, 1) gets its share)', () => {
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) buckets[Math.floor(sampleHash(`ajs-next-${(i * 2654435761) % 1e9}-${i}`) * 10)]!++;
    for (const count of buckets) expect(Math.abs(count - 1000)).toBeLessThan(130);
  });

  it('0 drops everything, 1 keeps everything; only matching messages are sampled', () => {
    expect(applyFilters(filters([{ if: '', sample: 0 }]), track(), facts).kind).toBe('dropped');
    expect(applyFilters(filters([{ if: '', sample: 1 }]), track(), facts).kind).toBe('kept');
    expect(applyFilters(filters([{ if: 'type:identify', sample: 0 }]), track(), facts)).toMatchObject({ kind: 'kept', decisions: [] });
  });
});

describe('allowFields', () => {
  it('keeps only the named paths and the fields a message cannot lose', () => {
    const outcome = applyFilters(filters([{ if: '', allowFields: ['properties.price', 'context.library.name'] }]), track(), facts);
    if (outcome.kind !== 'kept') throw new Error('kept');
    expect(outcome.message).toEqual({
      type: 'track',
      event: 'Order Completed',
      messageId: 'm-1',
      userId: 'u_1',
      anonymousId: 'a_1',
      timestamp: '2026-01-01T00:00:00.000Z',
      receivedAt: '2026-01-01T00:00:01.000Z',
      sentAt: '2026-01-01T00:00:00.500Z',
      originalTimestamp: '2026-01-01T00:00:00.000Z',
      properties: { price: 12 },
      context: { library: { name: 'analytics-node' } },
    });
    expect(outcome.decisions[0]?.text).toBe('fields filtered by filter 1 (allowFields properties.price, context.library.name)');
  });

  it('a name on an array applies to each element; digits pick elements', () => {
    const each = applyFilters(filters([{ if: '', allowFields: ['properties.products.sku'] }]), track(), facts);
    expect(each.kind === 'kept' && each.message.properties).toEqual({ products: [{ sku: 'a' }, { sku: 'b' }] });
    const second = applyFilters(filters([{ if: '', allowFields: ['properties.products.1'] }]), track(), facts);
    expect(second.kind === 'kept' && second.message.properties).toEqual({ products: [{ sku: 'b', name: 'B' }] });
    const both = applyFilters(filters([{ if: '', allowFields: ['properties.products.0.price', 'properties.products.name'] }]), track(), facts);
    expect(both.kind === 'kept' && both.message.properties).toEqual({ products: [{ price: 1, name: 'A' }, { name: 'B' }] });
  });

  it('names nothing that is absent (no empty object made up)', () => {
    const outcome = applyFilters(filters([{ if: '', allowFields: ['traits.email', 'properties.nope'] }]), track(), facts);
    expect(outcome.kind === 'kept' && Object.keys(outcome.message)).not.toContain('traits');
    expect(outcome.kind === 'kept' && Object.keys(outcome.message)).not.toContain('properties');
  });

  it('a group keeps its groupId and an alias its previousId', () => {
    const group = { type: 'group', groupId: 'g1', userId: 'u', messageId: 'x', traits: { plan: 'pro', seats: 3 } };
    const outcome = applyFilters(filters([{ if: '', allowFields: ['traits.plan'] }]), group, facts);
    expect(outcome.kind === 'kept' && outcome.message).toEqual({ type: 'group', groupId: 'g1', userId: 'u', messageId: 'x', traits: { plan: 'pro' } });
  });
});

describe('blockFields', () => {
  it('removes the named paths, nested and in each element of an array, and keeps the rest', () => {
    const outcome = applyFilters(filters([{ if: 'type:track', blockFields: ['context.ip', 'properties.products.name', 'properties.products.2'] }]), track(), facts);
    if (outcome.kind !== 'kept') throw new Error('kept');
    const expected = track();
    delete (expected.context as Record<string, unknown>).ip;
    (expected.properties as { products: unknown[] }).products = [{ sku: 'a', price: 1 }, { sku: 'b' }];
    expect(outcome.message).toEqual(expected);
    expect(outcome.decisions[0]?.text).toBe('fields filtered by filter 1 (blockFields context.ip, properties.products.name, properties.products.2, if: type:track)');
  });

  it('field filters all apply, in order', () => {
    const outcome = applyFilters(filters([{ if: '', allowFields: ['properties'] }, { if: '', blockFields: ['properties.products'] }]), track(), facts);
    expect(outcome.kind === 'kept' && outcome.message.properties).toEqual({ price: 12, currency: 'EUR' });
    expect(outcome.decisions.map((d) => d.index)).toEqual([0, 1]);
  });

  it('keeps a key named __proto__ as a field, and removes it when named', () => {
    const message = JSON.parse('{"type":"track","event":"E","messageId":"p","userId":"u","properties":{"__proto__":{"x":1},"a":2}}') as Record<string, unknown>;
    const kept = applyFilters(filters([{ if: '', blockFields: ['properties.a'] }]), message, facts);
    expect(kept.kind === 'kept' && JSON.stringify(kept.message.properties)).toBe('{"__proto__":{"x":1}}');
    const removed = applyFilters(filters([{ if: '', blockFields: ['properties.__proto__'] }]), message, facts);
    expect(removed.kind === 'kept' && JSON.stringify(removed.message.properties)).toBe('{"a":2}');
  });

  it('may not name a field every message needs', () => {
    const result = destinationFiltersSchema.safeParse([{ if: '', blockFields: ['properties.x', 'messageId'] }]);
    expect(result.error?.issues).toMatchObject([
      { path: [0, 'blockFields', 1], message: 'messageId is always sent (a destination must get a valid message): block the fields beside it instead, e.g. properties or context.ip' },
    ]);
  });
});

describe('filters in settings', () => {
  it('refuses status: in an if, saying why', () => {
    const result = destinationFiltersSchema.safeParse([{ if: 'type:track -status:failed', drop: true }]);
    expect(result.error?.issues[0]?.message).toMatch(/^status: is the outcome of the message's deliveries, not known before this one is made, so a filter cannot test it/);
    expect(destinationFiltersSchema.safeParse([{ if: 'properties.status:failed', drop: true }]).success).toBe(true);
  });

  it('writes each decision as one sentence', () => {
    expect(filterDecisionText(1, { if: 'type:identify', drop: true }, 'dropped')).toBe('dropped by filter 2 (if: type:identify)');
    expect(filterDecisionText(0, { if: '', sample: 0.1 }, 'dropped')).toBe('sampled out by filter 1 (sample 0.1)');
    expect(filterDecisionText(0, { if: '', sample: 0.1 }, 'kept')).toBe('kept by filter 1 (sample 0.1)');
    expect(filterDecisionText(0, { if: 'type:track', sample: 0.25 }, 'dropped')).toBe('sampled out by filter 1 (sample 0.25, if: type:track)');
    expect(filterDecisionText(2, { if: '', allowFields: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }, 'fields')).toBe('fields filtered by filter 3 (allowFields a, b, c, d, e and 2 more)');
  });
});
