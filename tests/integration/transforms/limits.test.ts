// A transform's time and memory limits, and what a crashing or hanging call does to the calls beside it:
// real worker threads, stopped and replaced by the runtime's watchdog.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransformer, TransformRuntime } from '../../../electron/core/transforms/index.ts';
import { WorkerPool } from '../../../electron/core/transforms/worker-pool.ts';
import { tempDir } from '../../helpers/core.ts';

const SOURCE = `
async function onTrack(event) {
  switch (event.event) {
    case 'spin': while (true) {}
    case 'spin later': await null; for (;;) {}
    case 'never': return new Promise(() => {});
    case 'hog': { const kept = []; for (;;) kept.push(new Array(100000).fill(kept.length)); }
    case 'slow': await new Promise((resolve) => setTimeout(resolve, 30)); return { ...event, slow: true };
    case 'crash': throw new Error('crashed');
    case 'busy': { const until = Date.now() + 5; while (Date.now() < until) {} await null; return { ...event, busy: true }; }
    default: return { ...event, ok: true };
  }
}`;

const call = (name: string, i = 0) => ({ event: { type: 'track', event: name, messageId: `${name}-${i}` }, settings: {} });

let runtime: TransformRuntime | undefined;
afterEach(async () => {
  await runtime?.close();
  runtime = undefined;
});

describe('limits', () => {
  it('a synchronous infinite loop is stopped at its limit: that call fails `timeout`, the next calls run on a fresh worker', async () => {
    runtime = createTransformer() as TransformRuntime;
    const [outcome] = await runtime.runSource(SOURCE, [call('spin')], { timeoutMs: 200 });
    expect(outcome).toMatchObject({ kind: 'failed', code: 'timeout', message: 'the transform ran past its 200 ms limit and was stopped' });
    expect(outcome!.ms).toBeGreaterThanOrEqual(200);
    expect(await runtime.runSource(SOURCE, [call('fine')])).toMatchObject([{ kind: 'events', events: [{ ok: true }] }]);
  });

  it('a loop after an await is blamed on its own call, not on the calls waiting beside it', async () => {
    runtime = createTransformer() as TransformRuntime;
    const calls = [call('slow', 1), call('fine', 2), call('spin later', 3), call('slow', 4), call('fine', 5)];
    const outcomes = await runtime.runSource(SOURCE, calls, { timeoutMs: 300 });
    expect(outcomes.map((o) => (o.kind === 'failed' ? o.code : o.kind))).toEqual(['events', 'events', 'timeout', 'events', 'events']);
    expect(outcomes[0]).toMatchObject({ events: [{ messageId: 'slow-1', slow: true }] });
    expect(outcomes[3]).toMatchObject({ events: [{ messageId: 'slow-4', slow: true }] });
  });

  it('a batch of async calls whose synchronous parts together pass one call\'s limit: none fails for the others\' time', async () => {
    runtime = createTransformer() as TransformRuntime;
    // 64 calls of 5 ms of synchronous work each, at a 100 ms limit: the batch's synchronous parts take
    // ~320 ms. Before 2026-12-01 the first calls, settled, failed "timeout" once the batch ended.
    const calls = [...Array.from({ length: 64 }, (_, i) => call('busy', i)), call('slow', 64)];
    const outcomes = await runtime.runSource(SOURCE, calls, { timeoutMs: 100 });
    expect(outcomes.filter((o) => o.kind !== 'events').map((o) => (o.kind === 'failed' ? `${o.code}: ${o.message}` : o.kind))).toEqual([]);
    expect(outcomes.at(-1)).toMatchObject({ events: [{ messageId: 'slow-64', slow: true }] });
  });

  it('a promise that never settles fails `timeout` at its limit, its worker kept', async () => {
    runtime = createTransformer() as TransformRuntime;
    const outcomes = await runtime.runSource(SOURCE, [call('never'), call('fine')], { timeoutMs: 100 });
    expect(outcomes).toMatchObject([
      { kind: 'failed', code: 'timeout', message: 'the transform ran past its 100 ms limit (its promise had not settled); whatever it returns later is ignored' },
      { kind: 'events', events: [{ ok: true }] },
    ]);
    const [worker] = runtime.pool.workers;
    expect(worker).toBeDefined();
    await runtime.runSource(SOURCE, [call('fine')]);
    expect(runtime.pool.workers).toEqual([worker]);
  });

  it('a call past the memory limit fails `memory`; the calls beside it are answered', async () => {
    runtime = createTransformer({ memoryMb: 32 }) as TransformRuntime;
    const outcomes = await runtime.runSource(SOURCE, [call('slow', 1), call('hog'), call('fine', 2)], { timeoutMs: 20_000 });
    expect(outcomes[1]).toMatchObject({ kind: 'failed', code: 'memory', message: 'the transform ran out of its 32 MB memory limit and was stopped' });
    expect(outcomes[0]).toMatchObject({ kind: 'events', events: [{ messageId: 'slow-1', slow: true }] });
    expect(outcomes[2]).toMatchObject({ kind: 'events', events: [{ messageId: 'fine-2', ok: true }] });
  });

  it('a crash and a hang beside live traffic: every other call answered, none lost, across transforms', async () => {
    runtime = createTransformer({ workers: 2 }) as TransformRuntime;
    const other = 'function onTrack(event) { return { ...event, other: true }; }';
    const names = Array.from({ length: 200 }, (_, i) => (i === 50 ? 'spin' : i === 120 ? 'crash' : i === 150 ? 'spin later' : 'fine'));
    const [mine, theirs] = await Promise.all([
      runtime.runSource(SOURCE, names.map((name, i) => call(name, i)), { timeoutMs: 300 }),
      runtime.runSource(other, Array.from({ length: 200 }, (_, i) => call('other', i))),
    ]);
    expect(mine.map((o, i) => (o.kind === 'failed' ? `${i}:${o.code}` : o.kind)).filter((k) => k !== 'events')).toEqual(['50:timeout', '120:error', '150:timeout']);
    mine.forEach((o, i) => {
      if (o.kind === 'events') expect(o.events).toEqual([{ type: 'track', event: 'fine', messageId: `fine-${i}`, ok: true }]);
    });
    expect(theirs.map((o) => (o.kind === 'events' ? o.events[0]!.messageId : o.kind))).toEqual(Array.from({ length: 200 }, (_, i) => `other-${i}`));
  });

  it('several loops in one batch: each fails `timeout`; the calls beside them, sent again after each stop, are all answered', async () => {
    runtime = createTransformer() as TransformRuntime;
    const names = Array.from({ length: 30 }, (_, i) => (i % 5 === 2 ? 'spin' : 'fine'));
    const outcomes = await runtime.runSource(SOURCE, names.map((name, i) => call(name, i)), { timeoutMs: 50 });
    expect(outcomes.map((o) => (o.kind === 'failed' ? o.code : o.kind))).toEqual(names.map((name) => (name === 'spin' ? 'timeout' : 'events')));
  });

  it('a transform whose calls loop: another transform\'s calls go again first after each stop, not after every loop', async () => {
    runtime = createTransformer() as TransformRuntime;
    const order: string[] = [];
    // One run per looping call, as a delivery's round runs its transform (each its own script reference).
    const looping = Promise.all([1, 2, 3].map((i) => runtime!.runSource(SOURCE, [call('spin', i)], { timeoutMs: 100 }))).then((o) => (order.push('looping'), o.flat()));
    const other = runtime.runSource(`${SOURCE}\n// another transform`, [call('fine', 9)]).then((o) => (order.push('other'), o));
    const [loops, fine] = await Promise.all([looping, other]);
    expect(loops.map((o) => (o.kind === 'failed' ? o.code : o.kind))).toEqual(['timeout', 'timeout', 'timeout']);
    expect(fine).toMatchObject([{ events: [{ messageId: 'fine-9', ok: true }] }]);
    // Answered after the first stop: before 2026-12-01 the looping calls went again ahead of it, and it
    // waited for all three to be stopped.
    expect(order).toEqual(['other', 'looping']);
  });

  it("a top level that loops forever: that transform's calls fail `timeout`; another transform's calls beside them are answered", async () => {
    runtime = createTransformer() as TransformRuntime;
    const [stuck, other] = await Promise.all([
      runtime.runSource('while (true) {}\nfunction onTrack(e) { return e }', [call('a'), call('b')], { timeoutMs: 100 }),
      runtime.runSource(SOURCE, [call('fine', 1), call('fine', 2)]),
    ]);
    // A top level gets at least 1,000 ms (making its context and compiling it count), whatever the calls' limit.
    const message = "the transform's top level ran past 1,000 ms while loading and was stopped";
    expect(stuck).toMatchObject([{ kind: 'failed', code: 'timeout', message }, { kind: 'failed', code: 'timeout', message }]);
    expect(other).toMatchObject([{ events: [{ messageId: 'fine-1', ok: true }] }, { events: [{ messageId: 'fine-2', ok: true }] }]);
  });

  it('close() ends the worker threads; a runtime never called starts none', async () => {
    runtime = createTransformer({ workers: 2 }) as TransformRuntime;
    expect(runtime.pool.workers).toHaveLength(0);
    await Promise.all([runtime.runSource(SOURCE, Array.from({ length: 300 }, (_, i) => call('slow', i))), runtime.runSource(SOURCE, [call('fine')])]);
    const workers = runtime.pool.workers;
    expect(workers).toHaveLength(2);
    const exited = workers.map((w) => new Promise((resolve) => w.once('exit', resolve)));
    await runtime.close();
    await Promise.all(exited);
    expect(runtime.pool.workers).toHaveLength(0);
    expect(await runtime.runSource(SOURCE, [call('fine')])).toMatchObject([{ kind: 'failed', code: 'error', message: 'the transform runtime is closed' }]);
  });

  it('close() answers the calls still running', async () => {
    runtime = createTransformer() as TransformRuntime;
    const running = runtime.runSource(SOURCE, [call('never'), call('spin')], { timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await runtime.close();
    expect(await running).toMatchObject([
      { kind: 'failed', code: 'error', message: 'the transform runtime closed before this call was answered' },
      { kind: 'failed', code: 'error', message: 'the transform runtime closed before this call was answered' },
    ]);
  });

  it('workers that cannot start: the calls fail saying so after a few bounded tries, not waiting forever; the next calls try again', async () => {
    const dir = tempDir('sluice-transform-');
    const broken = path.join(dir, 'broken-worker.mjs');
    fs.writeFileSync(broken, "throw new Error('this worker cannot load');\n");
    const pool = new WorkerPool({ memoryMb: 64, workerUrl: pathToFileURL(broken) });
    const script = { key: 'k', filename: 'amp.js', version: 'v', source: 'function onTrack(e) { return e }' };
    const job = { event: '{"type":"track"}', settings: '{}', timeoutMs: 1000 };
    const message = 'the transform runtime could not start a worker thread (this worker cannot load); the next calls try again';
    // `runtime`: not the calls' doing — a delivery retries them (delivery/shaping.ts).
    expect(await pool.run(script, [job, job])).toEqual([
      { kind: 'failed', code: 'error', message, ms: 0, logs: [], runtime: true },
      { kind: 'failed', code: 'error', message, ms: 0, logs: [], runtime: true },
    ]);
    expect(pool.workers).toEqual([]);
    expect(await pool.run(script, [job])).toEqual([{ kind: 'failed', code: 'error', message, ms: 0, logs: [], runtime: true }]);
    await pool.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
