// Forwarding benchmark: messages/s forwarded by a tracking-api destination (stored → batched POST to
// <url>/v1/batch → every delivery and attempt recorded) against a raw loop POSTing the same messages in
// the same batches with the same concurrency, in the same run, to the same sink in its own process.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import { Pool } from 'undici';
import { createCore, type Core } from '../../electron/core/index.ts';
import type { StoredMessage } from '../../electron/core/store/messages-repo.ts';
import { databaseFile } from '../../electron/core/store/database.ts';
import { RETRY_WINDOW_MS } from '../../electron/core/delivery/retry-schedule.ts';
import { startRecorder } from './recorder.ts';
import { startSink } from './delivery.bench.ts';
import { median } from './median.ts';

const execFileAsync = promisify(execFile);
const MESSAGES = Number(process.env.BENCH_FORWARDS ?? 50_000);
const BATCH = 100;
/** Batches in flight at once: the engine's 256 deliveries in flight hold two batches of 100, and start a third. */
const CONCURRENCY = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);


/** A core holding `messages` stored messages whose forwards are pending and held. */
async function heldForwarder(dir: string, url: string, messages: number): Promise<Core> {
  const core = await createCore({
    dataDir: dir,
    ingestPort: 0,
    receiverPort: 0,
    config: {
      sources: [{ name: 'bench', writeKey: 'wk_bench', kind: 'server' }],
      destinations: [
        {
          name: 'upstream',
          enabled: true,
          sources: ['bench'],
          kind: 'tracking-api',
          trackingApi: { url, writeKey: 'wk_up', batchSize: BATCH, flushMs: 0, gzip: false },
          webhooks: [],
          options: { bodyShape: 'seed', concurrency: CONCURRENCY },
        },
      ],
    },
  });
  core.delivery.setHeld(true);
  await execFileAsync(process.execPath, [path.join(import.meta.dirname, 'post-batches.ts'), core.ingestUrl, 'wk_bench', String(messages)]);
  await indexed(dir);
  return core;
}

/**
 * Until the writer has indexed every stored message for search: ingestion's own work, which it does
 * between its commits after the messages are stored. Not part of forwarding (the references' clocks
 * start on a store that does none), so the clock starts after it.
 */
async function indexed(dir: string): Promise<void> {
  const db = new DatabaseSync(databaseFile(dir), { readOnly: true });
  try {
    const read = db.prepare('SELECT (SELECT hi FROM search_index WHERE id = 1) AS hi, (SELECT max(id) FROM messages) AS top');
    for (const started = performance.now(); ; ) {
      const { hi, top } = read.get() as { hi: number; top: number };
      if (hi >= top) return;
      if (performance.now() - started > 120_000) throw new Error(`search indexing stopped at message ${hi} of ${top}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    db.close();
  }
}

/** Every stored message, oldest first (a list answers at most 10,000 a page, newest first). */
function storedMessages(core: Core): StoredMessage[] {
  const all: StoredMessage[] = [];
  for (let afterId = 0; ; ) {
    const page = core.messages.list({ afterId, limit: 10_000 });
    if (page.length === 0) return all;
    afterId = page[0]!.id;
    all.push(...page.reverse());
  }
}

/** Sluice: from the release of held forwards until the last delivery is announced (committed). */
async function sluice(url: string, messages = MESSAGES) {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-forward-'));
  let core: Core | undefined;
  try {
    core = await heldForwarder(dir, url, messages);
    // The raw loop's input, built from what Sluice stored: the same forwarded bodies, in order.
    const bodies = storedMessages(core).map((m) => {
      const { receivedAt: _r, sentAt: _s, ...forwarded } = core!.messages.get(m.id)!.message!;
      return JSON.stringify(forwarded);
    });
    let delivered = 0;
    const done = new Promise<number>((resolve) =>
      core!.bus.on('deliveries.changed', (changes) => {
        for (const change of changes) if (change.status === 'delivered') delivered++;
        if (delivered === messages) resolve(performance.now());
      }),
    );
    const releasedAt = performance.now();
    const cpu = process.cpuUsage();
    core.delivery.setHeld(false);
    const lastAt = await done;
    const { user, system } = process.cpuUsage(cpu);
    if (bodies.length !== messages) throw new Error(`read ${bodies.length} of the ${messages} stored messages`);
    const counts = core.deliveries.countByStatus();
    if (counts.delivered !== messages) throw new Error(`forwarded ${counts.delivered} of ${messages}`);
    return { bodies, perSecond: messages / ((lastAt - releasedAt) / 1000), cpuMicrosPerMessage: (user + system) / messages };
  } finally {
    await core?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The baseline: the same bodies, {"batch": [...]} of BATCH, POSTed by CONCURRENCY loops over one undici Pool. */
async function rawLoop(url: string, bodies: string[]) {
  const pool = new Pool(url, { connections: CONCURRENCY });
  const auth = `Basic ${Buffer.from('wk_up:').toString('base64')}`;
  let next = 0;
  const started = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const from = next;
        next += BATCH;
        const body = `{"batch":[${bodies.slice(from, from + BATCH).join(',')}]}`;
        const res = await pool.request({
          path: '/v1/batch',
          method: 'POST',
          headers: { 'user-agent': 'Sluice/1.0', 'content-type': 'application/json', authorization: auth },
          body,
        });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`the sink answered ${res.statusCode}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  await pool.close();
  return { perSecond: bodies.length / seconds, cpuMicrosPerMessage: (user + system) / bodies.length };
}

/**
 * The floor under any forwarder that records each message's delivery and attempt (as the issue asks:
 * "attempts recorded and shown like webhook attempts"): the raw loop, plus recording each message's
 * result as Sluice does — its delivery's new state and its share of the request's one record, Sluice's
 * own statements, committed in groups by a writer thread into a Sluice store holding the same pending
 * deliveries.
 */
async function recordedLoop(url: string, bodies: string[]) {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-forward-recorded-'));
  try {
    const core = await heldForwarder(dir, url, bodies.length);
    const ids = storedMessages(core).map((m) => core.deliveries.forMessage(m.id)[0]!.id);
    if (ids.length !== bodies.length) throw new Error(`the reference's store holds ${ids.length} messages, not ${bodies.length}`);
    await core.close();
    const recorder = startRecorder(dir);
    await recorder.ready;
    const pool = new Pool(url, { connections: CONCURRENCY });
    const headers = { 'user-agent': 'Sluice/1.0', 'content-type': 'application/json', authorization: `Basic ${Buffer.from('wk_up:').toString('base64')}` };
    let next = 0;
    const started = performance.now();
    const cpu = process.cpuUsage();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < bodies.length) {
          const from = next;
          next += BATCH;
          const slice = bodies.slice(from, from + BATCH);
          const startedAt = Date.now();
          const t = performance.now();
          const res = await pool.request({ path: '/v1/batch', method: 'POST', headers, body: `{"batch":[${slice.join(',')}]}` });
          const responseBody = await res.body.text();
          const durationMs = Math.round((performance.now() - t) * 10) / 10;
          // One record of the request, each message's attempt a reference to it (as Sluice records a forward).
          const request = { url: `${url}/v1/batch`, startedAt, durationMs, requestHeaders: JSON.stringify(headers), responseStatus: res.statusCode,
            responseHeaders: JSON.stringify(res.headers), responseBody, errorCode: null, errorMessage: null };
          slice.forEach((body, j) => {
            recorder.add({
              deliveryId: ids[from + j]!,
              status: 'delivered',
              attemptCount: 1,
              firstAttemptAt: startedAt,
              nextAttemptAt: null,
              deadlineAt: startedAt + RETRY_WINDOW_MS,
              lastError: null,
              body,
              signature: null,
              attempts: [{ ...request, outcome: 'success', retryAt: null, carriedBy: request }],
            });
          });
        }
      }),
    );
    await recorder.drain();
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpu);
    await pool.close();
    await recorder.close();
    return { perSecond: bodies.length / seconds, cpuMicrosPerMessage: (user + system) / bodies.length };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runForwardBench() {
  const sink = await startSink();
  try {
    console.log(`forward: ${MESSAGES} messages per round, batches of ${BATCH}, ${CONCURRENCY} requests in flight, sink in its own process; ${ROUNDS} rounds`);
    const warm = await sluice(sink.url, MESSAGES / 5);
    await rawLoop(sink.url, warm.bodies);
    await recordedLoop(sink.url, warm.bodies);
    const raws: Awaited<ReturnType<typeof rawLoop>>[] = [];
    const recordeds: Awaited<ReturnType<typeof recordedLoop>>[] = [];
    const ours: Awaited<ReturnType<typeof sluice>>[] = [];
    const rate = (perSecond: number) => Math.round(perSecond).toLocaleString('en-US').padStart(8);
    for (let round = 1; round <= ROUNDS; round++) {
      const run = await sluice(sink.url);
      ours.push(run);
      const raw = await rawLoop(sink.url, run.bodies);
      raws.push(raw);
      const recorded = await recordedLoop(sink.url, run.bodies);
      recordeds.push(recorded);
      console.log(`  round ${round}  raw batched POST loop              ${rate(raw.perSecond)} messages/s  ${raw.cpuMicrosPerMessage.toFixed(1)} µs CPU each`);
      console.log(`  round ${round}  raw loop + recording each message  ${rate(recorded.perSecond)} messages/s  ${recorded.cpuMicrosPerMessage.toFixed(1)} µs CPU each`);
      console.log(`  round ${round}  Sluice (stored → batch → recorded) ${rate(run.perSecond)} messages/s  ${run.cpuMicrosPerMessage.toFixed(1)} µs CPU each`);
    }
    const ratio = median(ours.map((run, i) => run.perSecond / raws[i]!.perSecond));
    const ratioToRecorded = median(ours.map((run, i) => run.perSecond / recordeds[i]!.perSecond));
    const figures = {
      messages: MESSAGES,
      batchSize: BATCH,
      concurrency: CONCURRENCY,
      rounds: ROUNDS,
      rawMessagesPerSecond: Math.round(median(raws.map((r) => r.perSecond))),
      sluiceMessagesPerSecond: Math.round(median(ours.map((r) => r.perSecond))),
      recordedMessagesPerSecond: Math.round(median(recordeds.map((r) => r.perSecond))),
      rawCpuMicrosPerMessage: Number(median(raws.map((r) => r.cpuMicrosPerMessage)).toFixed(1)),
      recordedCpuMicrosPerMessage: Number(median(recordeds.map((r) => r.cpuMicrosPerMessage)).toFixed(1)),
      sluiceCpuMicrosPerMessage: Number(median(ours.map((r) => r.cpuMicrosPerMessage)).toFixed(1)),
      ratio: Number(ratio.toFixed(2)),
      ratioPerRound: ours.map((run, i) => Number((run.perSecond / raws[i]!.perSecond).toFixed(2))),
      ratioToRecorded: Number(ratioToRecorded.toFixed(2)),
      ratioToRecordedPerRound: ours.map((run, i) => Number((run.perSecond / recordeds[i]!.perSecond).toFixed(2))),
      target: 0.8,
    };
    console.log(`  median ratio Sluice / raw loop: ${figures.ratio} (target ≥ ${figures.target}); Sluice / (raw loop + recording): ${figures.ratioToRecorded}`);
    return figures;
  } finally {
    await sink.stop();
  }
}
