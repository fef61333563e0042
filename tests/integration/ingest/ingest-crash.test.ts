// Crash durability of the real CLI: a request answered 200 means its messages are stored, even if the
// process is killed with SIGKILL right after (WAL, synchronous=NORMAL: the commit is in the WAL file
// before the answer). Messages whose requests failed may or may not be stored.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../../electron/core/index.ts';
import { startCli, type RunningCli } from '../../helpers/cli.ts';
import { basicAuth, tempDir } from '../../helpers/core.ts';

const LOOPS = 8;
const EVENTS_PER_BATCH = 50;
/** Load runs at least this long, and until at least MIN_ACKED messages were acknowledged. */
const MIN_LOAD_MS = 1_500;
const MIN_ACKED = 20 * EVENTS_PER_BATCH;
const MAX_LOAD_MS = 20_000;

const running: RunningCli[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    await cli.exited;
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(dataDir: string): Promise<RunningCli> {
  const cli = await startCli(['--data-dir', dataDir]);
  running.push(cli);
  return cli;
}

interface Load {
  /** messageIds of every request answered 200 {"success":true}. */
  acked: Set<string>;
  /** messageIds of every request sent, answered or not. */
  sent: Set<string>;
  /** Requests that got no answer (connection refused or reset) or an answer other than 200. */
  failed: number;
  /** Answers that were neither 200 {"success":true} without rejections nor a transport error. */
  unexpected: string[];
  /** Loops waiting on a request right now. */
  inFlight(): number;
  stop(): Promise<void>;
}

/** LOOPS concurrent loops, each posting batches of EVENTS_PER_BATCH events with unique messageIds. */
function startLoad(ingestUrl: string, writeKey: string): Load {
  const runId = randomUUID();
  const agent = new Agent({ connections: LOOPS, keepAliveTimeout: 10_000 });
  const acked = new Set<string>();
  const sent = new Set<string>();
  const unexpected: string[] = [];
  let failed = 0;
  let waiting = 0;
  let stopped = false;

  const loop = async (loopIndex: number) => {
    for (let seq = 0; !stopped; seq++) {
      const ids = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => `${runId}-${loopIndex}-${seq}-${i}`);
      const body = JSON.stringify({
        batch: ids.map((messageId, i) => ({
          type: 'track',
          userId: `user-${loopIndex}`,
          event: 'Load Test',
          messageId,
          properties: { seq, i },
          timestamp: new Date().toISOString(),
        })),
        sentAt: new Date().toISOString(),
      });
      for (const id of ids) sent.add(id);
      waiting++;
      try {
        const res = await request(`${ingestUrl}/v1/batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: basicAuth(writeKey) },
          body,
          dispatcher: agent,
          headersTimeout: 15_000,
          bodyTimeout: 15_000,
        });
        const text = await res.body.text();
        if (res.statusCode === 200 && text === '{"success":true}') {
          for (const id of ids) acked.add(id);
        } else {
          failed++;
          if (res.statusCode < 500) unexpected.push(`${res.statusCode} ${text.slice(0, 200)}`);
        }
      } catch {
        failed++; // killed or closing: not acknowledged
        if (!stopped) await new Promise((resolve) => setTimeout(resolve, 5));
      } finally {
        waiting--;
      }
    }
  };
  const loops = Array.from({ length: LOOPS }, (_, i) => loop(i));
  return {
    acked,
    sent,
    get failed() {
      return failed;
    },
    unexpected,
    inFlight: () => waiting,
    async stop() {
      stopped = true;
      await Promise.all(loops);
      await agent.destroy();
    },
  };
}

/** Resolves once the load ran MIN_LOAD_MS and acknowledged MIN_ACKED messages. */
async function loadFor(load: Load): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < MIN_LOAD_MS || load.acked.size < MIN_ACKED) {
    if (Date.now() - started > MAX_LOAD_MS) throw new Error(`only ${load.acked.size} messages acknowledged in ${MAX_LOAD_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Every accepted messageId in the store at `dataDir`, read with the core (no process may hold it). */
async function acceptedIds(dataDir: string): Promise<string[]> {
  const core = await createCore({ dataDir, ingestPort: 0, receiverPort: 0 });
  try {
    const ids: string[] = [];
    let beforeId: number | undefined;
    for (;;) {
      const page = core.messages.list({ status: 'accepted', limit: 10_000, ...(beforeId === undefined ? {} : { beforeId }) });
      for (const m of page) ids.push(m.messageId!);
      if (page.length < 10_000) return ids;
      beforeId = page.at(-1)!.id;
    }
  } finally {
    await core.close();
  }
}

function missing(acked: Set<string>, stored: string[]): string[] {
  const have = new Set(stored);
  return [...acked].filter((id) => !have.has(id));
}

describe('ingestion durability of the CLI', () => {
  it('keeps every acknowledged message when killed with SIGKILL under load, and restarts on the same data', async () => {
    const dataDir = tempDir('sluice-crash-');
    dirs.push(dataDir);
    const first = await serve(dataDir);
    const writeKey = first.ready.sources[0]!.writeKey;

    const load = startLoad(first.ready.ingest, writeKey);
    let inFlightAtKill = 0;
    try {
      await loadFor(load);
      inFlightAtKill = load.inFlight();
      first.child.kill('SIGKILL');
      await first.exited;
    } finally {
      await load.stop();
    }
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(inFlightAtKill, 'requests in flight when the process was killed').toBeGreaterThan(0);
    expect(load.unexpected).toEqual([]);
    console.log(`SIGKILL: ${load.acked.size} messages acknowledged, ${load.sent.size} sent, ${load.failed} requests failed`);

    // Read the store as the crash left it.
    const afterCrash = await acceptedIds(dataDir);
    expect(missing(load.acked, afterCrash).slice(0, 10), 'acknowledged but not stored').toEqual([]);
    expect(afterCrash.filter((id) => !load.sent.has(id)), 'stored but never sent').toEqual([]);
    expect(new Set(afterCrash).size).toBe(afterCrash.length);

    // The CLI starts again on the same data, with the same write key, and ingests.
    const second = await serve(dataDir);
    expect(second.ready.sources[0]!.writeKey).toBe(writeKey);
    const res = await request(`${second.ready.ingest}/v1/track`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basicAuth(writeKey) },
      body: JSON.stringify({ userId: 'after-restart', event: 'Restarted', messageId: 'after-restart' }),
    });
    expect(res.statusCode, await res.body.text()).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exited, second.stderr()).toBe(0);

    const afterRestart = await acceptedIds(dataDir);
    expect(missing(load.acked, afterRestart).slice(0, 10), 'acknowledged but lost after the restart').toEqual([]);
    expect(afterRestart).toContain('after-restart');
    expect(afterRestart.length).toBe(afterCrash.length + 1);
  });

  it('on SIGTERM under load, finishes, exits 0 and keeps every acknowledged message', async () => {
    const dataDir = tempDir('sluice-crash-');
    dirs.push(dataDir);
    const cli = await serve(dataDir);
    const load = startLoad(cli.ready.ingest, cli.ready.sources[0]!.writeKey);
    let code: number | null = -1;
    let ackedAtSignal = 0;
    let shutdownMs = 0;
    try {
      await loadFor(load);
      ackedAtSignal = load.acked.size;
      const signalled = Date.now();
      cli.child.kill('SIGTERM');
      code = await cli.exited;
      shutdownMs = Date.now() - signalled;
    } finally {
      await load.stop();
    }
    expect(code, cli.stderr()).toBe(0);
    expect(load.unexpected).toEqual([]);
    console.log(
      `SIGTERM: ${load.acked.size} messages acknowledged (${load.acked.size - ackedAtSignal} after the signal), ` +
        `${load.sent.size} sent, ${load.failed} requests failed; exited ${shutdownMs} ms after the signal`,
    );

    const stored = await acceptedIds(dataDir);
    expect(missing(load.acked, stored).slice(0, 10), 'acknowledged but not stored').toEqual([]);
    expect(stored.filter((id) => !load.sent.has(id)), 'stored but never sent').toEqual([]);
    expect(new Set(stored).size).toBe(stored.length);
  });
});
