// Plan coverage benchmark (`npm run bench -- coverage`, issue 30: coverage "at 1 M stored messages must not
// read every message"). A copy of a large store (BENCH_LATENCY_DIR, the latency benchmark's: ~2.2 M
// messages; copied to a temporary folder and migrated there, removed after — the original is never
// opened) and a plan of its five most sent track events, two it never saw and identify. Timed RUNS times
// each, after a warm-up: the coverage as the relay and `sluice plan coverage --data-dir` read it (the kept
// counts: PlanStatsRepo.stats, then planCoverage) on a read-only connection, against the baseline of the
// same run, `messages.list`'s first page (200 rows); then the command end to end (`sluice plan coverage
// --json`, a child process) against `sluice summary --json` (another reader of kept counts, same run).
// Once, for contrast: what counting by reading every message would take (GROUP BY over the messages).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { planCoverage } from '../../shared/plan-coverage.ts';
import { openReadOnly } from '../../electron/core/store/connection.ts';
import { databaseFile, openDatabase } from '../../electron/core/store/database.ts';
import { MessagesRepo } from '../../electron/core/store/messages-repo.ts';
import { PlanStatsRepo } from '../../electron/core/store/plan-stats.ts';

const SOURCE = process.env.BENCH_LATENCY_DIR ?? '/tmp/latency-1m';
const RUNS = Number(process.env.BENCH_COVERAGE_RUNS ?? 7);
const CLI_RUNS = Number(process.env.BENCH_COVERAGE_CLI_RUNS ?? 5);
const CLI = path.resolve(import.meta.dirname, '../../electron/cli.ts');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function timed(runs: number, run: () => unknown): { p50: number; p95: number; max: number } {
  run(); // warm the cache once
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    run();
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { p50: round(percentile(ms, 50)), p95: round(percentile(ms, 95)), max: round(ms.at(-1)!) };
}

function cli(args: string[], expected: number): () => void {
  return () => {
    const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    if (run.status !== expected) throw new Error(`sluice ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  };
}

export async function runCoverageBench() {
  const from = path.join(SOURCE, 'data');
  if (!fs.existsSync(databaseFile(from))) throw new Error(`no store at ${from}: run the latency benchmark first, or set BENCH_LATENCY_DIR to a folder holding data/sluice.db`);
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-coverage-'));
  try {
    console.log(`coverage: copying the store of ${from}…`);
    fs.cpSync(from, dir, { recursive: true });
    openDatabase(dir).close(); // brought to this version's schema (the copy only)
    const db = openReadOnly(databaseFile(dir));
    const messages = (db.prepare('SELECT count(*) AS n FROM messages').get() as { n: number }).n;
    const top = db.prepare("SELECT event FROM event_counts WHERE type = 'track' AND plan = '' GROUP BY event ORDER BY sum(n) DESC LIMIT 5").all() as { event: string }[];
    const events = Object.fromEntries([...top.map((t) => t.event), 'Never Sent A', 'Never Sent B'].map((e) => [e, { type: 'object' }]));
    const plan = { events, identify: { type: 'object' } };
    const planFile = path.join(dir, 'plan.json');
    fs.writeFileSync(planFile, JSON.stringify(plan));

    const repo = new MessagesRepo(db);
    const stats = new PlanStatsRepo(db);
    const baseline = timed(RUNS, () => repo.list({ limit: 200 }));
    let report = planCoverage('bench', stats.stats('bench', plan, null));
    const coverage = timed(RUNS, () => (report = planCoverage('bench', stats.stats('bench', plan, null))));
    console.log(`coverage: the kept counts p50 ${coverage.p50} ms; now the commands…`);

    const summaryCli = timed(CLI_RUNS, cli(['summary', '--data-dir', dir, '--json'], 0));
    const coverageCli = timed(CLI_RUNS, cli(['plan', 'coverage', '--data-dir', dir, '--plan', planFile, '--json', '--fail-on-missing'], 2));

    console.log('coverage: counting by reading every message, once, for contrast…');
    const started = performance.now();
    db.prepare("SELECT type, event, count(*) FROM messages WHERE status = 'accepted' AND origin = 'ingest' GROUP BY type, event").all();
    const everyMessageMs = round(performance.now() - started);
    db.close();

    const figures = {
      messages,
      runs: RUNS,
      cliRuns: CLI_RUNS,
      plan: { events: Object.keys(events).length, identify: true },
      report: report.totals,
      baselineFirstPage: baseline,
      coverageKeptCounts: { ...coverage, vsBaseline: round(coverage.p50 / baseline.p50) },
      cli: { summary: summaryCli, planCoverage: { ...coverageCli, vsSummary: round(coverageCli.p50 / summaryCli.p50) } },
      countingEveryMessageOnceMs: everyMessageMs,
    };
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const round = (n: number) => Math.round(n * 10) / 10;
