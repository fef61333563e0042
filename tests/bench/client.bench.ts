// Client library benchmark: events/s from track() calls to messages received, our client against
// @segment/analytics-node with the same batch size (flushAt 100), in the same run, each client in its
// own child process (client-bench-child.ts) so that its memory is its own; and peak RSS for
// 1,000,000 events sent in a tight loop.
//
// The endpoint is a bare receiver in this process (node:http, JSON.parse, counting each messageId),
// not a Sluice core: the figure is the client's. A core stores every message durably, and with the
// random UUID messageIds real clients send it ingests ~30k events/s on this 2-core machine while
// sharing the CPU with the client, so it would measure the core. The receiver still checks that
// nothing is lost: every messageId must arrive, once. A smaller round into a real core (fresh for
// each client) shows the end-to-end figures too.
//
// Environment: BENCH_CLIENT_EVENTS (memory round, default 1,000,000), BENCH_CLIENT_RATE_EVENTS
// (throughput round, default 200,000), BENCH_CLIENT_CORE_EVENTS (core round, default 100,000; 0 skips),
// BENCH_CLIENT_SKIP_SEGMENT_1M=1 skips analytics-node's 1,000,000-event round (~1 minute).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createCore } from '../../electron/core/index.ts';
import type { ChildArgs, ChildFigures } from './client-bench-child.ts';

const FLUSH_AT = 100;
const MEMORY_EVENTS = Number(process.env.BENCH_CLIENT_EVENTS ?? 1_000_000);
const RATE_EVENTS = Number(process.env.BENCH_CLIENT_RATE_EVENTS ?? 200_000);
const CORE_EVENTS = Number(process.env.BENCH_CLIENT_CORE_EVENTS ?? 100_000);
const SKIP_SEGMENT_1M = process.env.BENCH_CLIENT_SKIP_SEGMENT_1M === '1';
/** A child that takes longer than this is stopped and reported as such. */
const CHILD_TIMEOUT_MS = Number(process.env.BENCH_CLIENT_TIMEOUT_MS ?? 240_000);

type Who = ChildArgs['client'];
const NAMES: Record<Who, string> = { sluice: 'sluice-client', segment: '@segment/analytics-node 3.1' };

interface Receiver {
  url: string;
  /** Messages received (with repeats) and distinct messageIds, since the last reset. */
  counts(): { received: number; distinct: number };
  reset(): void;
  close(): Promise<void>;
}

/** The bare endpoint: reads each body, parses it, counts its messages and remembers their ids. */
async function startReceiver(): Promise<Receiver> {
  let received = 0;
  let ids = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { batch: { messageId: string }[] };
      for (const message of body.batch) ids.add(message.messageId);
      received += body.batch.length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.maxRequestsPerSocket = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ received, distinct: ids.size }),
    reset: () => {
      received = 0;
      ids = new Set();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RunFigures {
  client: string;
  endpoint: 'receiver' | 'sluice core';
  events: number;
  /** Messages that arrived, counted once per messageId. */
  delivered: number;
  lost: number;
  duplicates: number;
  /** delivered ÷ (first track() call → close resolved), or null when the client did not finish. */
  eventsPerSecond: number | null;
  elapsedMs: number | null;
  /** How long the loop of track() calls took. */
  loopMs: number | null;
  /** Peak RSS of the client's process (its own getrusage, or /proc VmHWM when it did not finish). */
  peakRssMB: number;
  /** Errors the client reported. */
  errors: number;
  /** Times our loop waited for room in the queue. */
  waits: number;
  /** Why the run did not finish, when it did not. */
  failure: string | null;
}

/** Runs one client in its own process and waits for its figures (or its death). */
function runChild(args: ChildArgs, nodeFlags: string[] = []): Promise<{ figures: ChildFigures | null; peakRssMB: number; failure: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeFlags, path.join(import.meta.dirname, 'client-bench-child.ts'), JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let hwmKiB = 0;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
    // Peak RSS as the kernel sees it, for children that die before they can report it.
    const poll = setInterval(() => {
      try {
        const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (match) hwmKiB = Math.max(hwmKiB, Number(match[1]));
      } catch {
        // gone, or not Linux
      }
    }, 100);
    const timeout = setTimeout(() => child.kill('SIGKILL'), CHILD_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timeout);
      const line = stdout.trim().split('\n').at(-1);
      if (code === 0 && line) {
        const figures = JSON.parse(line) as ChildFigures;
        resolve({ figures, peakRssMB: Math.max(figures.peakRssMB, Math.round(hwmKiB / 1024)), failure: null });
        return;
      }
      const oom = /heap out of memory/i.test(stderr);
      const failure = oom
        ? 'JavaScript heap out of memory (Node’s default heap limit)'
        : signal === 'SIGKILL'
          ? `did not finish within ${CHILD_TIMEOUT_MS / 1000} s`
          : `exited with ${signal ?? code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`;
      resolve({ figures: null, peakRssMB: Math.round(hwmKiB / 1024), failure });
    });
  });
}

async function round(who: Who, events: number, endpoint: { url: string; writeKey: string; kind: RunFigures['endpoint']; counts: () => { received: number; distinct: number } }): Promise<RunFigures> {
  const { figures, peakRssMB, failure } = await runChild({ client: who, url: endpoint.url, writeKey: endpoint.writeKey, events, flushAt: FLUSH_AT });
  const { received, distinct } = endpoint.counts();
  const run: RunFigures = {
    client: NAMES[who],
    endpoint: endpoint.kind,
    events,
    delivered: distinct,
    lost: events - distinct,
    duplicates: received - distinct,
    eventsPerSecond: figures ? Math.round((distinct / figures.elapsedMs) * 1000) : null,
    elapsedMs: figures ? Math.round(figures.elapsedMs) : null,
    loopMs: figures ? Math.round(figures.loopMs) : null,
    peakRssMB,
    errors: figures?.errors ?? 0,
    waits: figures?.waits ?? 0,
    failure,
  };
  const rate = run.eventsPerSecond === null ? run.failure : `${run.eventsPerSecond.toLocaleString('en-US')} events/s`;
  console.log(
    `  ${run.client.padEnd(28)} ${String(events).padStart(9)} events → ${run.endpoint}: ${rate}; peak RSS ${peakRssMB} MB; lost ${run.lost}, duplicates ${run.duplicates}, errors ${run.errors}`,
  );
  return run;
}

/** A fresh Sluice core for one round: its store counts what was durably accepted. */
async function coreRound(who: Who, events: number): Promise<RunFigures> {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-client-'));
  const core = await createCore({ dataDir: dir, ingestPort: 0, receiverPort: 0 });
  try {
    const writeKey = core.sources.list()[0]!.writeKey;
    return await round(who, events, {
      url: core.ingestUrl,
      writeKey,
      kind: 'sluice core',
      counts: () => {
        const c = core.messages.countByStatus();
        return { received: c.accepted + c.duplicate, distinct: c.accepted };
      },
    });
  } finally {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runClientBench() {
  // The client measured is the one users get: the build of `sluice/client` (dist/client).
  if (!fs.existsSync(path.resolve(import.meta.dirname, '../../dist/client/index.js'))) {
    throw new Error('dist/client is not built: run `npm run build` (or `npm run build:package`) first');
  }
  const receiver = await startReceiver();
  const endpoint = { url: receiver.url, writeKey: 'wk_bench', kind: 'receiver' as const, counts: receiver.counts };
  const runs: RunFigures[] = [];
  try {
    console.log(`client benchmark: flushAt ${FLUSH_AT}, tight loop of track() calls, each client in its own process`);
    console.log(`throughput round (${RATE_EVENTS.toLocaleString('en-US')} events, bare receiver):`);
    for (const who of ['sluice', 'segment'] as const) {
      receiver.reset();
      runs.push(await round(who, RATE_EVENTS, endpoint));
    }
    console.log(`memory round (${MEMORY_EVENTS.toLocaleString('en-US')} events, bare receiver):`);
    for (const who of SKIP_SEGMENT_1M ? (['sluice'] as const) : (['sluice', 'segment'] as const)) {
      receiver.reset();
      runs.push(await round(who, MEMORY_EVENTS, endpoint));
    }
    if (CORE_EVENTS > 0) {
      console.log(`end-to-end round (${CORE_EVENTS.toLocaleString('en-US')} events into a real Sluice core, fresh for each client):`);
      for (const who of ['sluice', 'segment'] as const) runs.push(await coreRound(who, CORE_EVENTS));
    }
  } finally {
    await receiver.close();
  }

  const find = (client: Who, events: number, kind: RunFigures['endpoint']) => runs.find((r) => r.client === NAMES[client] && r.events === events && r.endpoint === kind);
  const oursRate = find('sluice', RATE_EVENTS, 'receiver')!;
  const theirsRate = find('segment', RATE_EVENTS, 'receiver')!;
  const oursMemory = find('sluice', MEMORY_EVENTS, 'receiver')!;
  const ratio = oursRate.eventsPerSecond && theirsRate.eventsPerSecond ? oursRate.eventsPerSecond / theirsRate.eventsPerSecond : null;
  const figures = {
    flushAt: FLUSH_AT,
    endpoint: 'bare receiver (node:http + JSON.parse, counts distinct messageIds) in the parent process; plus a round into a real Sluice core',
    throughput: {
      events: RATE_EVENTS,
      sluice: oursRate,
      segment: theirsRate,
      ratio,
    },
    memory: {
      events: MEMORY_EVENTS,
      sluice: oursMemory,
      segment: find('segment', MEMORY_EVENTS, 'receiver') ?? null,
    },
    core: CORE_EVENTS > 0 ? { events: CORE_EVENTS, sluice: find('sluice', CORE_EVENTS, 'sluice core')!, segment: find('segment', CORE_EVENTS, 'sluice core')! } : null,
    targets: {
      ratioAtLeast2: ratio !== null && ratio >= 2,
      eventsPerSecondAtLeast50k: (oursRate.eventsPerSecond ?? 0) >= 50_000,
      peakRssUnder150MB: oursMemory.peakRssMB < 150,
      nothingLost: runs.filter((r) => r.client === NAMES.sluice).every((r) => r.lost === 0 && r.duplicates === 0),
    },
  };
  console.log(
    `sluice-client ÷ analytics-node: ${ratio === null ? 'n/a' : `${ratio.toFixed(1)}×`} (${oursRate.eventsPerSecond?.toLocaleString('en-US')} vs ${theirsRate.eventsPerSecond?.toLocaleString('en-US') ?? theirsRate.failure} events/s); ` +
      `peak RSS for ${MEMORY_EVENTS.toLocaleString('en-US')} events: ${oursMemory.peakRssMB} MB vs ${figures.memory.segment ? `${figures.memory.segment.peakRssMB} MB${figures.memory.segment.failure ? ` (${figures.memory.segment.failure})` : ''}` : 'not run'}`,
  );
  console.log(`targets: ${JSON.stringify(figures.targets)}`);
  return figures;
}
