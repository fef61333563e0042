// sluice/matchers (issue 27, "Measure"): an event sent — POST /v1/track over HTTP, answered — until
// `toHaveReceived` on it resolves, at idle, p50/p95/p99 (target p95 ≤ 25 ms), for the Sluice of
// startSluice() in this process and for the same relay by its HTTP API ({ apiUrl, token }: the wait
// held open by POST /api/v1/messages/wait); against a floor measured round by round in the same run:
// one HTTP round trip to the relay (the same POST /v1/track, answered, nothing awaited after it). And
// the per-test overhead of `sluice.reset()` (what a test fixture does before each test) after a test
// that stored a few messages, p50/p95. From the built package (dist/), as a user's test runs it; each
// matcher called as a runner calls it (`this` with isNot).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

const root = path.resolve(import.meta.dirname, '../..');
const ROUNDS = Number(process.env.BENCH_MATCHERS_ROUNDS ?? 300);
/** Idle between rounds: nothing else in flight when an event is sent. */
const PAUSE_MS = 5;
/** Messages a test stores before the reset that follows it. */
const PER_TEST = 5;
/** The absence window measured, and how many times. */
const WINDOW_MS = 500;
const WINDOW_ROUNDS = 20;

const round2 = (n: number) => Math.round(n * 100) / 100;
function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => round2(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!);
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: round2(sorted.at(-1)!) };
}

export async function runMatchersBench() {
  for (const file of ['dist/testing.js', 'dist/matchers.js']) if (!fs.existsSync(path.join(root, file))) throw new Error(`${file} is missing: run \`npm run build\` first`);
  const { startSluice } = (await import(pathToFileURL(path.join(root, 'dist/testing.js')).href)) as typeof import('../../electron/testing/index.ts');
  const { sluiceMatchers } = (await import(pathToFileURL(path.join(root, 'dist/matchers.js')).href)) as typeof import('../../electron/testing/matchers/index.ts');
  const sluice = await startSluice();
  const remote = { apiUrl: sluice.apiUrl, token: sluice.token };
  const ingest = new Pool(sluice.ingestUrl, { connections: 4 });
  const auth = `Basic ${Buffer.from(`${sluice.writeKey}:`).toString('base64')}`;
  let n = 0;
  const send = async (messageId: string) => {
    const res = await ingest.request({ path: '/v1/track', method: 'POST', headers: { 'content-type': 'application/json', authorization: auth }, body: JSON.stringify({ userId: 'u_bench', event: 'Order Completed', messageId, properties: { total: 42 } }) });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`POST /v1/track answered ${res.statusCode}`);
  };
  const received = async (target: unknown, messageId: string) => {
    const result = await sluiceMatchers.toHaveReceived.call({ isNot: false }, target, { messageId, event: 'Order Completed' }, { timeoutMs: 10_000 });
    if (!result.pass) throw new Error(result.message());
  };
  /** Sent → matcher resolved, and the floor: the same request's round trip alone. */
  const round = async (target: unknown) => {
    const t0 = performance.now();
    const id = `m-${n++}`;
    await send(id);
    await received(target, id);
    const matched = performance.now() - t0;
    await sleep(PAUSE_MS);
    const t1 = performance.now();
    await send(`f-${n++}`);
    const floor = performance.now() - t1;
    await sleep(PAUSE_MS);
    return { matched, floor };
  };
  // Warm-up (JIT, connections), then forget it.
  for (let i = 0; i < 30; i++) (await round(sluice), await round(remote));
  await sluice.reset();

  const local: number[] = [];
  const remoteMs: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const a = await round(sluice);
    const b = await round(remote);
    local.push(a.matched);
    remoteMs.push(b.matched);
    floor.push(a.floor, b.floor);
  }

  // reset() after a test that stored PER_TEST messages (and awaited them, as a test does).
  const resets: number[] = [];
  const emptyResets: number[] = [];
  await sluice.reset();
  for (let i = 0; i < ROUNDS; i++) {
    for (let k = 0; k < PER_TEST; k++) await send(`r-${n++}`);
    await sluiceMatchers.toHaveReceived.call({ isNot: false }, sluice, { userId: 'u_bench' }, { count: PER_TEST });
    const t0 = performance.now();
    await sluice.reset();
    resets.push(performance.now() - t0);
    const t1 = performance.now();
    await sluice.reset();
    emptyResets.push(performance.now() - t1);
    await sleep(PAUSE_MS);
  }
  // `.not.toHaveReceived(filter, { within: 500 })` with nothing arriving: how long the window takes (the
  // Playwright fixture's example (c) asks 500 ± 100 ms).
  const windows: number[] = [];
  for (let i = 0; i < WINDOW_ROUNDS; i++) {
    const t0 = performance.now();
    const result = await sluiceMatchers.toHaveReceived.call({ isNot: true }, sluice, { event: 'Never Sent' }, { within: WINDOW_MS });
    windows.push(performance.now() - t0);
    if (result.pass) throw new Error('a window with nothing arriving found a match');
  }
  await ingest.close();
  await sluice.close();

  const figures = {
    rounds: ROUNDS,
    /** POST /v1/track sent → toHaveReceived resolved, the Sluice of startSluice() (target p95 ≤ 25 ms). */
    sentToMatchedMs: summary(local),
    /** The same, the relay given by its HTTP API ({ apiUrl, token }). */
    sentToMatchedHttpMs: summary(remoteMs),
    /** The floor: one POST /v1/track round trip to the relay, answered. */
    roundTripFloorMs: summary(floor),
    overFloor: {
      p50: round2(summary(local).p50 / summary(floor).p50),
      p95: round2(summary(local).p95 / summary(floor).p95),
      httpP50: round2(summary(remoteMs).p50 / summary(floor).p50),
      httpP95: round2(summary(remoteMs).p95 / summary(floor).p95),
    },
    /** sluice.reset() after a test that stored PER_TEST messages. */
    resetAfterTestMs: summary(resets),
    /** sluice.reset() with nothing stored. */
    resetEmptyMs: summary(emptyResets),
    messagesPerTest: PER_TEST,
    /** `.not.toHaveReceived(…, { within: 500 })` with nothing arriving, start to answer. */
    absenceWindowMs: { within: WINDOW_MS, ...summary(windows) },
  };
  const s = figures.sentToMatchedMs;
  const h = figures.sentToMatchedHttpMs;
  const f = figures.roundTripFloorMs;
  console.log(
    `matchers: sent → toHaveReceived p50 ${s.p50} / p95 ${s.p95} / p99 ${s.p99} ms (over HTTP p50 ${h.p50} / p95 ${h.p95} / p99 ${h.p99}); ` +
      `floor (one POST /v1/track round trip) p50 ${f.p50} / p95 ${f.p95} / p99 ${f.p99} ms → ${figures.overFloor.p50}× (p95 ${figures.overFloor.p95}×); ` +
      `reset() after a test of ${PER_TEST} messages p50 ${figures.resetAfterTestMs.p50} / p95 ${figures.resetAfterTestMs.p95} ms, empty p50 ${figures.resetEmptyMs.p50} / p95 ${figures.resetEmptyMs.p95} ms; ` +
      `a ${WINDOW_MS} ms absence window took p50 ${figures.absenceWindowMs.p50} / p95 ${figures.absenceWindowMs.p95} / max ${figures.absenceWindowMs.max} ms`,
  );
  return figures;
}
