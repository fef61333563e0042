// Tracking plan benchmark: ingestion (/v1/batch, events/s durably stored) with a 50-event plan checking
// every message, against the same relay without a plan, in the same run. The two cores are measured in
// interleaved rounds and compared round by round (this kind of machine drifts by tens of percent).
// Every event conforms (the common case); a last pair of rounds sends events that each break the plan
// twice, to show what storing violations costs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCore, type Core } from '../../electron/core/index.ts';
import type { TrackingPlan } from '../../shared/tracking-plan.ts';
import { LOAD, load, type LoadResult } from './ingest.bench.ts';
import { median } from './median.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** The load generator's event (load-generator.ts) planned exactly, and 49 more events like it. */
export function benchPlan(): TrackingPlan {
  const orderCompleted = {
    type: 'object',
    required: ['orderId', 'revenue', 'currency', 'products'],
    properties: {
      orderId: { type: 'string', pattern: '^o_[0-9]+$' },
      revenue: { type: 'number', minimum: 0 },
      currency: { enum: ['USD', 'EUR', 'GBP'] },
      coupon: { type: 'string', maxLength: 64 },
      products: { type: 'array', items: { type: 'object', required: ['sku', 'qty'], properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } } } },
    },
    additionalProperties: false,
  };
  const events: Record<string, unknown> = { 'Order Completed': orderCompleted };
  for (let i = 1; i < 50; i++) {
    events[`Event ${i}`] = { type: 'object', required: ['id'], properties: { id: { type: 'string' }, value: { type: 'number' }, label: { type: 'string' } } };
  }
  return {
    events: events as TrackingPlan['events'],
    context: { type: 'object', required: ['library'], properties: { library: { type: 'object', required: ['name', 'version'] } } },
  };
}

export async function runPlansBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-plans-'));
  const source = { name: 'bench', writeKey: 'wk_bench', kind: 'server' as const };
  const plain = await createCore({ dataDir: path.join(dir, 'plain'), ingestPort: 0, receiverPort: 0, config: { sources: [source], destinations: [] } });
  const planned = await createCore({
    dataDir: path.join(dir, 'planned'),
    ingestPort: 0,
    receiverPort: 0,
    config: { sources: [source], destinations: [], trackingPlans: [{ name: 'bench plan', plan: benchPlan(), unplanned: 'flag', violations: 'flag' }] },
  });
  const cores: [string, Core][] = [['no plan', plain], ['50-event plan', planned]];
  const rounds = new Map<string, LoadResult[]>(cores.map(([name]) => [name, []]));
  try {
    console.log(`tracking plans: /v1/batch, ${LOAD.eventsPerRequest} events/request, ${LOAD.connections} connections, ${LOAD.inFlight} in flight; ${ROUNDS} interleaved rounds of ${LOAD.durationMs / 1000} s`);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, core] of round % 2 ? cores : [...cores].reverse()) {
        const result = await load(core.ingestUrl, source.writeKey);
        rounds.get(name)!.push(result);
        console.log(`  round ${round}  ${name.padEnd(14)} ${Math.round(result.eventsPerSecond).toLocaleString('en-US').padStart(9)} events/s  p50 ${result.p50Ms.toFixed(1)} ms  p99 ${result.p99Ms.toFixed(1)} ms`);
      }
    }
    const violating = await load(planned.ingestUrl, source.writeKey, 'violating');
    const violatingBaseline = await load(plain.ingestUrl, source.writeKey, 'violating');
    console.log(`  violating events (2 violations each): plan ${Math.round(violating.eventsPerSecond).toLocaleString('en-US')} events/s, no plan ${Math.round(violatingBaseline.eventsPerSecond).toLocaleString('en-US')}`);
    const [without, withPlan] = [rounds.get('no plan')!, rounds.get('50-event plan')!];
    const ratios = withPlan.map((r, i) => r.eventsPerSecond / without[i]!.eventsPerSecond);
    const violationsStored = planned.messages.list({ violations: true, limit: 1 }).length > 0;
    const figures = {
      noPlan: { eventsPerSecond: median(without.map((r) => r.eventsPerSecond)), p50Ms: median(without.map((r) => r.p50Ms)), p99Ms: median(without.map((r) => r.p99Ms)), rounds: without.map((r) => Math.round(r.eventsPerSecond)) },
      withPlan: { eventsPerSecond: median(withPlan.map((r) => r.eventsPerSecond)), p50Ms: median(withPlan.map((r) => r.p50Ms)), p99Ms: median(withPlan.map((r) => r.p99Ms)), rounds: withPlan.map((r) => Math.round(r.eventsPerSecond)) },
      ratio: median(ratios),
      ratios: ratios.map((r) => Number(r.toFixed(3))),
      violating: { withPlan: Math.round(violating.eventsPerSecond), noPlan: Math.round(violatingBaseline.eventsPerSecond), ratio: violating.eventsPerSecond / violatingBaseline.eventsPerSecond },
      violationsStored,
      failedRequests: [...without, ...withPlan].reduce((sum, r) => sum + r.failedRequests, 0),
    };
    console.log(`with plan / without = ${figures.ratio.toFixed(2)}x (median of per-round ratios ${figures.ratios.join(', ')}); violating: ${figures.violating.ratio.toFixed(2)}x`);
    return figures;
  } finally {
    await plain.close();
    await planned.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
