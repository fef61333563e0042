// sluice/testing's start and close (issue 15: "starting one per test file is cheap"; issue 26: "per-test
// relays are cheap", startSluice() + close() p95 ≤ 50 ms): startSluice() and close() from the built
// package (dist/testing.js, what `npm i -D sluice` installs), warm (again and again in one process, as a
// test's beforeEach/afterEach would: a few hundred rounds) and cold (a new process that imports it and
// starts once, as a test runner's worker per file does), against a floor measured round by round in the
// same run: what any relay like it must do — a temporary folder, a SQLite file in WAL mode, two HTTP
// servers listening on 127.0.0.1:0, then both closed and the folder removed. Also a relay that takes one
// message before it closes (a test's usual relay: its writer thread loads, nothing cancels it) against the
// floor storing one POST; and the load average at the start and the end.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DatabaseSync } from 'node:sqlite';

const root = path.resolve(import.meta.dirname, '../..');
const ROUNDS = Number(process.env.BENCH_TESTING_ROUNDS ?? 300);
const COLD_ROUNDS = Number(process.env.BENCH_TESTING_COLD ?? 5);
/** Rounds of a relay that takes one message before it closes (its writer thread must load: nothing cancels it). */
const MESSAGE_ROUNDS = Number(process.env.BENCH_TESTING_MESSAGE_ROUNDS ?? 50);

const round1 = (n: number) => Math.round(n * 10) / 10;
function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => round1(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: round1(sorted.at(-1)!) };
}

async function floor(): Promise<{ start: number; close: number }> {
  const t0 = performance.now();
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-floor-'));
  const db = new DatabaseSync(path.join(dir, 'x.db'));
  db.exec('PRAGMA journal_mode=WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const servers = [http.createServer(), http.createServer()];
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  const t1 = performance.now();
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { start: performance.now() - t0 - (performance.now() - t1), close: performance.now() - t1 };
}

/** The floor with one message: its server stores a POST's body (an insert) and answers 200; started, posted to once, closed. */
async function floorWithMessage(): Promise<number> {
  const t0 = performance.now();
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-floor-'));
  const db = new DatabaseSync(path.join(dir, 'x.db'));
  db.exec('PRAGMA journal_mode=WAL; CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      insert.run(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    });
  });
  const servers = [server, http.createServer()];
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  const { port } = server.address() as { port: number };
  await post(`http://127.0.0.1:${port}/v1/track`, 'x');
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => (s.close(() => resolve()), s.closeIdleConnections()))));
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return performance.now() - t0;
}

/** One track POST, answered 200 (Sluice answers once the message is stored). */
async function post(url: string, writeKey: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`, 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify({ userId: 'u', event: 'First', messageId: 'first' }),
  });
  await res.text();
  if (res.status !== 200) throw new Error(`POST ${url} answered ${res.status}`);
}

export async function runTestingBench() {
  const loadAverage = { atStart: os.loadavg().map(round1) };
  const entry = path.join(root, 'dist/testing.js');
  if (!fs.existsSync(entry)) throw new Error('dist/testing.js is missing: run `npm run build` first');
  const { startSluice } = (await import(pathToFileURL(entry).href)) as typeof import('../../electron/testing/index.ts');
  // Warm-up of both (JIT, the OS's file cache).
  for (let i = 0; i < 3; i++) {
    await (await startSluice()).close();
    await floor();
  }
  const starts: number[] = [];
  const closes: number[] = [];
  const both: number[] = [];
  const floorStarts: number[] = [];
  const floorCloses: number[] = [];
  const floorBoth: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const sluice = await startSluice();
    const t1 = performance.now();
    await sluice.close();
    const t2 = performance.now();
    starts.push(t1 - t0);
    closes.push(t2 - t1);
    both.push(t2 - t0);
    const f = await floor();
    floorStarts.push(f.start);
    floorCloses.push(f.close);
    floorBoth.push(f.start + f.close);
  }
  // A relay per test that takes a message: start, one POST /v1/track answered (stored), close.
  const withMessage: number[] = [];
  const floorWithMessages: number[] = [];
  for (let i = 0; i < MESSAGE_ROUNDS; i++) {
    const t0 = performance.now();
    const sluice = await startSluice();
    await post(`${sluice.ingestUrl}/v1/track`, sluice.writeKey);
    await sluice.close();
    withMessage.push(performance.now() - t0);
    floorWithMessages.push(await floorWithMessage());
  }
  // Cold: a new process per start, timed from the process's own start (Node's boot included).
  const script = `const { startSluice } = await import('sluice/testing');
const sluice = await startSluice();
const ready = performance.now();
await sluice.close();
console.log(JSON.stringify({ ready, close: performance.now() - ready }));`;
  const cold: number[] = [];
  const coldClose: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < COLD_ROUNDS; i++) {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    const { ready, close } = JSON.parse(run.stdout) as { ready: number; close: number };
    cold.push(ready);
    coldClose.push(close);
    const empty = spawnSync(process.execPath, ['--input-type=module', '-e', 'console.log(performance.now())'], { encoding: 'utf8' });
    bare.push(Number(empty.stdout));
  }
  const figures = {
    rounds: ROUNDS,
    warmStartMs: summary(starts),
    warmCloseMs: summary(closes),
    /** startSluice() then close() at once (issue 26's target: p95 ≤ 50 ms). */
    warmStartCloseMs: summary(both),
    floorStartMs: summary(floorStarts),
    floorCloseMs: summary(floorCloses),
    floorStartCloseMs: summary(floorBoth),
    warmStartOverFloor: round1(summary(starts).p50 / summary(floorStarts).p50),
    /** startSluice() + close() over the floor's start + close, at p50 and at p95. */
    startCloseOverFloor: { p50: round1(summary(both).p50 / summary(floorBoth).p50), p95: round1(summary(both).p95 / summary(floorBoth).p95) },
    messageRounds: MESSAGE_ROUNDS,
    /** startSluice(), one POST /v1/track answered (the writer thread loaded, the message stored), close(). */
    startMessageCloseMs: summary(withMessage),
    floorStartMessageCloseMs: summary(floorWithMessages),
    startMessageCloseOverFloor: { p50: round1(summary(withMessage).p50 / summary(floorWithMessages).p50), p95: round1(summary(withMessage).p95 / summary(floorWithMessages).p95) },
    coldRounds: COLD_ROUNDS,
    coldReadyMs: summary(cold),
    /** That process's close(), right after its start (its writer thread still loading). */
    coldCloseMs: summary(coldClose),
    bareNodeMs: summary(bare),
    /** The machine's load average (1, 5, 15 min) at the start and the end: figures of a busy machine are read as ratios. */
    loadAverage: { ...loadAverage, atEnd: os.loadavg().map(round1) },
  };
  const sc = figures.warmStartCloseMs;
  const fl = figures.floorStartCloseMs;
  console.log(
    `testing: startSluice() + close() p50 ${sc.p50} / p95 ${sc.p95} / p99 ${sc.p99} ms over ${ROUNDS} rounds; ` +
      `floor p50 ${fl.p50} / p95 ${fl.p95} / p99 ${fl.p99} ms → ${figures.startCloseOverFloor.p50}× (p95 ${figures.startCloseOverFloor.p95}×); ` +
      `startSluice() warm p50 ${figures.warmStartMs.p50} ms (p95 ${figures.warmStartMs.p95}), close p50 ${figures.warmCloseMs.p50} ms; ` +
      `floor (folder + SQLite WAL + two servers) p50 ${figures.floorStartMs.p50} ms → ${figures.warmStartOverFloor}×; ` +
      `with one message stored before the close p50 ${figures.startMessageCloseMs.p50} / p95 ${figures.startMessageCloseMs.p95} ms, floor ${figures.floorStartMessageCloseMs.p50} / ${figures.floorStartMessageCloseMs.p95} ms; ` +
      `cold (new process → ready) p50 ${figures.coldReadyMs.p50} ms, a bare node p50 ${figures.bareNodeMs.p50} ms; load average ${figures.loadAverage.atStart.join(' ')} → ${figures.loadAverage.atEnd.join(' ')}`,
  );
  return figures;
}
