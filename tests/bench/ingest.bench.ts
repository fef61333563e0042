// Ingestion benchmark: events/s durably stored via /v1/batch, against two baselines in the same run.
// The three servers are measured in interleaved rounds and compared round by round, because this
// kind of machine (2 shared cores) drifts by tens of percent within a minute.
import { indexCaughtUp } from '../helpers/search-index.ts';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createCore } from '../../electron/core/index.ts';
import { startBareServer, startNaiveSqliteServer, type RunningServer } from './baseline-servers.ts';
import { median } from './median.ts';

const execFileAsync = promisify(execFile);

export interface LoadResult {
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  acceptedTotal: number;
  failedRequests: number;
}

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const LOAD = {
  warmupMs: 1000,
  durationMs: Number(process.env.BENCH_DURATION_MS ?? 5000),
  connections: 8,
  inFlight: 32,
  eventsPerRequest: 100,
};

/** One round of the load generator against `url` (`variant`: load-generator.ts's). */
export async function load(url: string, writeKey: string, variant?: 'violating'): Promise<LoadResult> {
  const generator = path.join(import.meta.dirname, 'load-generator.ts');
  const { stdout } = await execFileAsync(process.execPath, [generator, JSON.stringify({ ...LOAD, url, writeKey, ...(variant ? { variant } : {}) })], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as LoadResult;
}


interface Summary {
  name: string;
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  acknowledged: number;
  stored: number;
  lost: number;
  failedRequests: number;
  rounds: number[];
}

interface Contender {
  name: string;
  server: RunningServer;
  writeKey: string;
  rounds: LoadResult[];
  /** Waits for work the load left behind (the search index catching up), so the next contender has the CPU. */
  settle?: () => Promise<void>;
}

export async function runIngestBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-ingest-'));
  // Retention off: its default limit (1,000,000 messages) would prune during the rounds, and the
  // stored count would no longer say whether anything acknowledged was lost.
  const config = {
    sources: [{ name: 'bench', writeKey: 'wk_bench', kind: 'server' as const }],
    destinations: [],
    retention: { maxAgeDays: null, maxMessages: null, maxBytes: null },
  };
  const core = await createCore({ dataDir: path.join(dir, 'sluice'), ingestPort: 0, config });
  const unindexed = await createCore({ dataDir: path.join(dir, 'sluice-unindexed'), ingestPort: 0, receiverPort: 0, searchIndex: false, config });
  const contenders: Contender[] = [
    { name: '(a) bare node:http + JSON.parse', server: await startBareServer(), writeKey: '', rounds: [] },
    {
      name: '(b) + SQLite txn/request, defaults',
      server: await startNaiveSqliteServer(path.join(dir, 'naive'), 'defaults'),
      writeKey: '',
      rounds: [],
    },
    {
      name: "(b') + SQLite txn/request, WAL",
      server: await startNaiveSqliteServer(path.join(dir, 'naive-wal'), 'wal'),
      writeKey: '',
      rounds: [],
    },
    {
      name: 'Sluice ingest (validated, durable)',
      server: { url: core.ingestUrl, storedCount: () => core.messages.countByStatus().accepted, close: () => core.close() },
      writeKey: core.sources.list()[0]!.writeKey,
      rounds: [],
      settle: () => indexCaughtUp(path.join(dir, 'sluice')),
    },
    {
      name: '(c) Sluice without its search index',
      server: { url: unindexed.ingestUrl, storedCount: () => unindexed.messages.countByStatus().accepted, close: () => unindexed.close() },
      writeKey: unindexed.sources.list()[0]!.writeKey,
      rounds: [],
    },
  ];
  try {
    console.log(
      `ingestion: /v1/batch, ${LOAD.eventsPerRequest} events/request, ${LOAD.connections} connections, ` +
        `${LOAD.inFlight} in flight; ${ROUNDS} interleaved rounds of ${LOAD.durationMs / 1000} s`,
    );
    for (let round = 1; round <= ROUNDS; round++) {
      for (const contender of contenders) {
        const result = await load(contender.server.url, contender.writeKey);
        contender.rounds.push(result);
        const settling = performance.now();
        await contender.settle?.();
        const settled = contender.settle ? `  (index caught up ${((performance.now() - settling) / 1000).toFixed(1)} s later)` : '';
        console.log(
          `  round ${round}  ${contender.name.padEnd(36)} ${Math.round(result.eventsPerSecond).toLocaleString('en-US').padStart(9)} events/s` +
            `  p50 ${result.p50Ms.toFixed(1)} ms  p99 ${result.p99Ms.toFixed(1)} ms${settled}`,
        );
      }
    }
    const summary = contenders.map((c): Summary => {
      const acknowledged = c.rounds.reduce((sum, r) => sum + r.acceptedTotal, 0);
      const stored = c.server.storedCount();
      return {
        name: c.name,
        eventsPerSecond: median(c.rounds.map((r) => r.eventsPerSecond)),
        p50Ms: median(c.rounds.map((r) => r.p50Ms)),
        p99Ms: median(c.rounds.map((r) => r.p99Ms)),
        acknowledged,
        stored,
        lost: Math.max(0, acknowledged - stored),
        failedRequests: c.rounds.reduce((sum, r) => sum + r.failedRequests, 0),
        rounds: c.rounds.map((r) => Math.round(r.eventsPerSecond)),
      };
    });
    const [bare, naive, naiveWal, sluice, unindexedSummary] = summary as [Summary, Summary, Summary, Summary, Summary];
    const perRound = (i: number) => sluice.rounds.map((v, r) => v / contenders[i]!.rounds[r]!.eventsPerSecond);
    const figures = {
      sluice,
      baselineBare: bare,
      baselineNaiveSqlite: naive,
      baselineNaiveSqliteWal: naiveWal,
      ratioVsNaiveSqlite: median(perRound(1)),
      ratioVsNaiveSqliteWal: median(perRound(2)),
      ratioVsBare: median(perRound(0)),
      /** Sluice ÷ Sluice without its search index: what indexing costs ingestion. */
      sluiceWithoutSearchIndex: unindexedSummary,
      ratioVsWithoutSearchIndex: median(perRound(4)),
      nothingLost: sluice.lost === 0,
    };
    console.log('median of rounds:');
    for (const s of summary) {
      console.log(
        `  ${s.name.padEnd(36)} ${Math.round(s.eventsPerSecond).toLocaleString('en-US').padStart(9)} events/s  p50 ${s.p50Ms.toFixed(1)} ms  p99 ${s.p99Ms.toFixed(1)} ms  acknowledged ${s.acknowledged}, stored ${s.stored}`,
      );
    }
    console.log(
      `Sluice / (b) = ${figures.ratioVsNaiveSqlite.toFixed(2)}x   Sluice / (b') = ${figures.ratioVsNaiveSqliteWal.toFixed(2)}x   ` +
        `Sluice / (a) = ${figures.ratioVsBare.toFixed(2)}x   Sluice / (c) = ${figures.ratioVsWithoutSearchIndex.toFixed(2)}x   ` +
        `(median of per-round ratios)   lost: ${sluice.lost}`,
    );
    return figures;
  } finally {
    for (const contender of contenders) await contender.server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
