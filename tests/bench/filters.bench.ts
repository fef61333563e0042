// A destination's filters (issue 28, "Measure": delivery with a filter ≥ 0.95× without): the cost of one
// applyFilters call on a typical track message, per kind of filter, against a baseline measured in the
// same run — JSON.stringify of the same message, the least a delivery does per message to build its
// body. `bodyRatio` is the throughput of (filters + body) over (body alone): what a delivery whose only
// work was building the body would keep; a real delivery also posts and records, so it keeps more.
import { applyFilters, type MessageFacts } from '../../electron/core/transforms/filters.ts';
import { destinationFiltersSchema, type DestinationFilter } from '../../shared/destination-filters.ts';

const CALLS = Number(process.env.BENCH_FILTERS_CALLS ?? 200_000);
const REPEATS = 5;

const message: Record<string, unknown> = {
  type: 'track',
  event: 'Order Completed',
  messageId: 'ajs-next-5f0c5d1e-2b9a-4a57-9d3e-0c7f3a1b2c4d',
  userId: 'user_4821',
  anonymousId: '0f8e2c44-7d1b-4c1e-9a7e-3b2d1c0a9f8e',
  timestamp: '2026-11-29T07:00:00.000Z',
  receivedAt: '2026-11-29T07:00:00.120Z',
  properties: { orderId: 'ord_123', total: 42.5, currency: 'EUR', products: [{ sku: 'sku_17', price: 20, quantity: 1 }, { sku: 'sku_9', price: 22.5, quantity: 1 }] },
  context: { ip: '203.0.113.7', library: { name: 'analytics.js', version: '2.1.0' }, page: { path: '/checkout', url: 'https://shop.example/checkout' }, userAgent: 'Mozilla/5.0' },
  integrations: {},
};
const facts: MessageFacts = { source: 'web', origin: 'ingest', violations: 0, plans: [] };

const CASES: Record<string, unknown[]> = {
  /** A column clause that does not match (the usual case: most messages pass). */
  dropIdentify: [{ if: 'type:identify', drop: true }],
  /** A payload path with a number. */
  dropSmallOrders: [{ if: 'properties.total:<10', drop: true }],
  /** Words anywhere (the costliest clause: the message's words are read). */
  dropWords: [{ if: '"internal test"', drop: true }],
  sample: [{ if: 'type:track', sample: 0.5 }],
  blockFields: [{ if: '', blockFields: ['context.ip', 'context.userAgent'] }],
  allowFields: [{ if: '', allowFields: ['properties.total', 'properties.products.sku'] }],
  fourFilters: [
    { if: 'type:identify', drop: true },
    { if: 'properties.total:<10', drop: true },
    { if: 'event:"Order*"', sample: 0.9 },
    { if: '', blockFields: ['context.ip'] },
  ],
};

let sink = 0;
function nsPerCall(fn: () => void): number {
  const best: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) fn();
    best.push(Number(process.hrtime.bigint() - t0) / CALLS);
  }
  return Math.round(Math.min(...best) * 10) / 10;
}

export async function runFiltersBench() {
  const baseline = () => {
    sink += JSON.stringify(message).length;
  };
  nsPerCall(baseline); // warm-up
  const cases: Record<string, { ns: number; stringifyNs: number; freshArrayNs: number; bodyRatio: number }> = {};
  for (const [name, list] of Object.entries(CASES)) {
    const filters: DestinationFilter[] = destinationFiltersSchema.parse(list);
    const call = () => {
      const outcome = applyFilters(filters, message, facts);
      sink += outcome.kind === 'kept' ? 1 : 0;
    };
    // Settings read again for each delivery: a new array every time (the query cache still holds).
    const fresh = () => {
      const outcome = applyFilters([...filters], message, facts);
      sink += outcome.kind === 'kept' ? 1 : 0;
    };
    nsPerCall(call);
    // The baseline right beside each case (the machine's load changes over a run): the best of each.
    const stringifyNs = Math.min(nsPerCall(baseline), nsPerCall(baseline));
    const ns = nsPerCall(call);
    const freshArrayNs = nsPerCall(fresh);
    const ratio = Math.round((stringifyNs / (stringifyNs + ns)) * 1000) / 1000;
    cases[name] = { ns, stringifyNs, freshArrayNs, bodyRatio: ratio };
    console.log(`${name.padEnd(16)} ${ns} ns/call (fresh array ${freshArrayNs} ns), body ${stringifyNs} ns → ${ratio}×`);
  }
  const noFiltersNs = nsPerCall(() => void (sink += applyFilters([], message, facts).kind.length));
  if (sink === 0) console.log('');
  return { calls: CALLS, repeats: REPEATS, noFiltersNs, cases };
}
