// What the delivery overview (migrations 22 and 26) and Issues (migration 24) cost the write path: the same
// ingestion and fan-out, in the same run, into a store as migrated (deliveries_funnel and deliveries_made, the
// delivery_hours triggers and Issues' triggers), one with Issues' triggers dropped after it opens (what Issues
// cost a delivery sent at the first try), and ones with the overview's triggers and indexes dropped too. Since
// migration 26 the writer counts the deliveries it makes in memory, once per group (store/delivery-hours.ts),
// in every variant, and a delivery sent at the first try has no entry in deliveries_funnel once delivered:
// "without" is no longer the schema before migration 22, only the store without the overview's indexes and
// triggers. Per round and per variant, in alternating order: N messages ingested by a client in another
// process while deliveries are held, then released to a loopback receiver. Wall time and this process's CPU
// (ingestion, the writer thread, the engine) per message.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { benchCore, deliveredCount, startSink } from './delivery.bench.ts';
import { median } from './median.ts';

const execFileAsync = promisify(execFile);
const MESSAGES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const DROP_ISSUES = 'DROP TRIGGER issue_deliveries_moved; DROP TRIGGER issue_deliveries_gone;';
const DROP_TRIGGERS = `DROP TRIGGER delivery_hours_moved; DROP TRIGGER delivery_hours_gone; ${DROP_ISSUES}`;
/**
 * with: as migrated; noIssues: Issues' triggers dropped (the writer's schema before migration 24); indexOnly:
 * every trigger dropped, deliveries_funnel kept (which of the overview's two costs what); without: all dropped.
 */
const VARIANTS = ['with', 'noIssues', 'indexOnly', 'without'] as const;
type Variant = (typeof VARIANTS)[number];

type Run = { ingestPerSecond: number; ingestCpuMicros: number; deliveredPerSecond: number; deliveryCpuMicros: number };

async function run(url: string, variant: Variant, messages = MESSAGES): Promise<Run> {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-overview-cost-'));
  let core: Awaited<ReturnType<typeof benchCore>> | undefined;
  try {
    core = await benchCore(dir, url);
    core.delivery.setHeld(true);
    if (variant !== 'with') {
      const side = new DatabaseSync(path.join(dir, 'sluice.db'));
      side.exec(variant === 'without' ? `${DROP_TRIGGERS} DROP INDEX deliveries_funnel; DROP INDEX deliveries_made;` : variant === 'noIssues' ? DROP_ISSUES : DROP_TRIGGERS);
      side.close();
    }
    let cpu = process.cpuUsage();
    let started = performance.now();
    await execFileAsync(process.execPath, [path.join(import.meta.dirname, 'post-batches.ts'), core.ingestUrl, 'wk_bench', String(messages)]);
    // Each batch is answered once its messages and deliveries are committed.
    const ingestSeconds = (performance.now() - started) / 1000;
    const ingestCpu = process.cpuUsage(cpu);
    const done = deliveredCount(core, messages);
    cpu = process.cpuUsage();
    started = performance.now();
    core.delivery.setHeld(false);
    const lastAt = await done;
    const deliveryCpu = process.cpuUsage(cpu);
    const check = new DatabaseSync(path.join(dir, 'sluice.db'), { readOnly: true });
    const hours = Number((check.prepare(`SELECT coalesce(sum(n), 0) AS n FROM delivery_hours WHERE status = 'delivered'`).get() as { n: number }).n);
    const triggers = Number((check.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'delivery_hours_%'`).get() as { n: number }).n);
    const issueTriggers = Number((check.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'issue_deliveries_%'`).get() as { n: number }).n);
    const issues = Number((check.prepare('SELECT count(*) AS n FROM issues').get() as { n: number }).n);
    const index = Number((check.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE name IN ('deliveries_funnel', 'deliveries_made')`).get() as { n: number }).n);
    check.close();
    // Each variant is what it says: the overview's triggers and indexes kept or dropped. Since migration 26 the
    // writer counts the deliveries it makes itself (store/delivery-hours.ts), in every variant: what is dropped
    // is the triggers (moves and removals) and the indexes, not that counting. Without the move trigger, the
    // deliveries are counted as made (pending), none as delivered.
    // (Every delivery is sent at the first try: no group of Issues is made in any.)
    const expected = variant === 'with' ? [messages, 2, 2, 2] : variant === 'noIssues' ? [messages, 2, 2, 0] : variant === 'indexOnly' ? [0, 0, 2, 0] : [0, 0, 0, 0];
    if (`${[hours, triggers, index, issueTriggers]}` !== `${expected}` || issues !== 0) {
      throw new Error(`variant ${variant}: ${hours} delivered counted, ${triggers} triggers, ${index} index, ${issueTriggers} Issues triggers, ${issues} groups`);
    }
    return {
      ingestPerSecond: messages / ingestSeconds,
      ingestCpuMicros: (ingestCpu.user + ingestCpu.system) / messages,
      deliveredPerSecond: messages / ((lastAt - started) / 1000),
      deliveryCpuMicros: (deliveryCpu.user + deliveryCpu.system) / messages,
    };
  } finally {
    await core?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}


export async function runOverviewCostBench() {
  const sink = await startSink();
  try {
    console.log(`overview-cost: ${MESSAGES} messages per round, one webhook, ${ROUNDS} rounds, as migrated, with Issues' triggers dropped, with every trigger dropped (index only) and with all dropped (each round starting with another)`);
    for (const variant of VARIANTS) await run(sink.url, variant, MESSAGES / 4); // warm-up of each, not measured
    const rounds: Record<Variant, Run>[] = [];
    const fmt = (r: Run) =>
      `ingest ${Math.round(r.ingestPerSecond).toLocaleString('en-US').padStart(6)} msg/s ${Math.round(r.ingestCpuMicros)} µs CPU each   ` +
      `delivery ${Math.round(r.deliveredPerSecond).toLocaleString('en-US').padStart(6)} /s ${Math.round(r.deliveryCpuMicros)} µs CPU each`;
    for (let round = 1; round <= ROUNDS; round++) {
      // Each round starts with another variant (the machine drifts within a round too).
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]!);
      const got: Partial<Record<Variant, Run>> = {};
      for (const variant of order) got[variant] = await run(sink.url, variant);
      rounds.push(got as Record<Variant, Run>);
      for (const variant of VARIANTS) console.log(`  round ${round}  ${variant.padEnd(9)}  ${fmt(got[variant]!)}`);
    }
    const keys = ['ingestPerSecond', 'ingestCpuMicros', 'deliveredPerSecond', 'deliveryCpuMicros'] as const;
    // Ratios per round (the machine drifts between rounds), then their median: with / without.
    const ratiosOf = (v: Variant) => Object.fromEntries(keys.map((k) => [k, median(rounds.map((r) => r[v][k] / r.without[k]))])) as Record<(typeof keys)[number], number>;
    const ratios = ratiosOf('with');
    const indexOnlyRatios = ratiosOf('indexOnly');
    // Issues' own cost: as migrated / without Issues' triggers (per round, then the median).
    const issuesRatios = Object.fromEntries(keys.map((k) => [k, median(rounds.map((r) => r.with[k] / r.noIssues[k]))])) as Record<(typeof keys)[number], number>;
    const medians = (v: Variant) => Object.fromEntries(keys.map((k) => [k, median(rounds.map((r) => r[v][k]))]));
    console.log(
      `with / without (medians of per-round ratios): ingestion ${ratios.ingestPerSecond.toFixed(3)}x msg/s, ${ratios.ingestCpuMicros.toFixed(3)}x CPU per message; ` +
        `delivery ${ratios.deliveredPerSecond.toFixed(3)}x deliveries/s, ${ratios.deliveryCpuMicros.toFixed(3)}x CPU per delivery`,
    );
    console.log(
      `index only / without: ingestion ${indexOnlyRatios.ingestPerSecond.toFixed(3)}x msg/s, ${indexOnlyRatios.ingestCpuMicros.toFixed(3)}x CPU per message; ` +
        `delivery ${indexOnlyRatios.deliveredPerSecond.toFixed(3)}x deliveries/s, ${indexOnlyRatios.deliveryCpuMicros.toFixed(3)}x CPU per delivery`,
    );
    console.log(
      `with / noIssues (what Issues cost a delivery sent at the first try): ingestion ${issuesRatios.ingestPerSecond.toFixed(3)}x msg/s, ${issuesRatios.ingestCpuMicros.toFixed(3)}x CPU per message; ` +
        `delivery ${issuesRatios.deliveredPerSecond.toFixed(3)}x deliveries/s, ${issuesRatios.deliveryCpuMicros.toFixed(3)}x CPU per delivery`,
    );
    return {
      messages: MESSAGES,
      rounds: ROUNDS,
      withOverview: medians('with'),
      withoutIssues: medians('noIssues'),
      issuesRatios,
      indexOnly: medians('indexOnly'),
      withoutOverview: medians('without'),
      ratios,
      indexOnlyRatios,
      perRound: rounds,
    };
  } finally {
    await sink.stop();
  }
}
