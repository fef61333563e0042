// UI benchmark (issue 5): the built inspector in Chromium, served by the headless host, over a core
// holding 100,000 messages while a live stream of 5,000 messages/s runs for 30 s (BENCH_UI_SECONDS
// shortens it). Measures time to first render, the longest main-thread task while scrolling, how far
// the UI lags behind the core, and the renderer's JS heap at start and end.
// The load comes from child processes (ui-load.ts); the page records its own numbers (init script).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CDPSession } from '@playwright/test';
import { UiServer } from '../../electron/host/ui-server.ts';
import { browserUnavailableReason, launchBrowser } from '../helpers/browser.ts';
import { startCore } from '../helpers/core.ts';
import { ensureRenderer } from '../helpers/inspector-page.ts';

const execFileAsync = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../..');
/** BENCH_UI_RENDERER: another build to serve (e.g. an unminified one, for readable profiles). */
export const rendererDir = process.env.BENCH_UI_RENDERER ?? path.join(repoRoot, 'out/renderer');
/**
 * BENCH_UI_TRACE=<file>: records a Chromium trace (<file>) and a V8 CPU profile (<file>.cpuprofile)
 * of the scroll, for tests/bench/ui-trace-summary.ts. Diagnostic: the tracing itself costs time.
 */
const TRACE = process.env.BENCH_UI_TRACE;
const loader = path.join(import.meta.dirname, 'ui-load.ts');

const STORED = Number(process.env.BENCH_UI_STORED ?? 100_000);
const RATE = 5000;
const SECONDS = Number(process.env.BENCH_UI_SECONDS ?? 30);
/** The stream runs this long before the page is opened, so the first render happens under load. */
const OPEN_AFTER_MS = 1000;


interface LoadResult {
  posted: number;
  failed: number;
  elapsedMs: number;
  behindMs: number;
}

async function load(url: string, writeKey: string, ...args: string[]): Promise<LoadResult> {
  const { stdout } = await execFileAsync(process.execPath, [loader, url, writeKey, ...args], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as LoadResult;
}

/** Runs in the page before its own scripts: long tasks, frame gaps, first row, and lag samples. */
function pageProbe(): void {
  const b: any = ((window as any).__bench = {
    longtasks: [] as [number, number][], // [startTime, duration] (performance.now() clock)
    gaps: [] as [number, number][], // rAF gaps > 50 ms: [time, gap]
    firstRowAt: null as number | null, // performance.now() when a row was first in the DOM
    storeLag: [] as [number, number][], // [performance.now(), Date.now() - receivedAt] for every 10th new id
    rowLag: [] as [number, number][], // same, for the newest row in the DOM when it changes
  });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) b.longtasks.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
  let last = 0;
  let maxStore = -1;
  let maxRow = -1;
  const frame = (t: number) => {
    if (last && t - last > 50) b.gaps.push([t, t - last]);
    last = t;
    const options = document.querySelectorAll('[role="listbox"] [role="option"]');
    if (options.length && b.firstRowAt === null) b.firstRowAt = performance.now();
    const state = (window as any).__sluice?.store.getState();
    if (state && state.list.order.length) {
      const { order, byId } = state.list;
      const now = Date.now();
      if (maxStore < 0) maxStore = order[0];
      else {
        for (let i = 0; i < order.length && order[i] > maxStore; i++) {
          if (order[i] % 10 === 0) b.storeLag.push([t, now - byId.get(order[i]).receivedAt]);
        }
        maxStore = Math.max(maxStore, order[0]);
      }
      let top = -1;
      for (const o of options) top = Math.max(top, Number(o.getAttribute('data-id')));
      if (top > 0) {
        if (maxRow < 0) maxRow = top;
        else if (top > maxRow) {
          const m = byId.get(top);
          if (m) b.rowLag.push([t, now - m.receivedAt]);
          maxRow = top;
        }
      }
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

async function heap(cdp: CDPSession, gc: boolean): Promise<{ usedMB: number; totalMB: number; domNodes: number }> {
  if (gc) await cdp.send('HeapProfiler.collectGarbage');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const get = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0;
  const mb = (v: number) => Math.round((v / 2 ** 20) * 10) / 10;
  return { usedMB: mb(get('JSHeapUsedSize')), totalMB: mb(get('JSHeapTotalSize')), domNodes: get('Nodes') };
}

const pct = (values: number[], p: number) => {
  if (!values.length) return null;
  const sorted = [...values].sort((x, y) => x - y);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);
};
/** Least-squares slope of y over t, per minute (t in seconds). */
function slopePerMinute(points: { t: number; y: number }[]): number | null {
  if (points.length < 2) return null;
  const mt = points.reduce((s, p) => s + p.t, 0) / points.length;
  const my = points.reduce((s, p) => s + p.y, 0) / points.length;
  const den = points.reduce((s, p) => s + (p.t - mt) ** 2, 0);
  return den === 0 ? null : Math.round((points.reduce((s, p) => s + (p.t - mt) * (p.y - my), 0) / den) * 60 * 10) / 10;
}

/**
 * The heap's floor over time: the lowest sample in each 5 s window of at least 3 samples (the samples
 * are taken without a GC, so they saw-tooth with garbage; the floors follow what stays alive).
 */
function floors(samples: { t: number; usedMB: number }[]): { t: number; usedMB: number }[] {
  const windows = new Map<number, { t: number; usedMB: number }[]>();
  for (const s of samples) windows.set(Math.floor(s.t / 5), [...(windows.get(Math.floor(s.t / 5)) ?? []), s]);
  return [...windows.values()].filter((w) => w.length >= 3).map((w) => w.reduce((low, s) => (s.usedMB < low.usedMB ? s : low)));
}

const lagFigures = (samples: [number, number][]) => {
  const v = samples.map((s) => s[1]);
  return { samples: v.length, p50Ms: pct(v, 50), p95Ms: pct(v, 95), p99Ms: pct(v, 99), maxMs: v.length ? Math.round(Math.max(...v)) : null };
};

export async function runUiBench() {
  const skip = browserUnavailableReason();
  if (skip) throw new Error(`the UI benchmark needs Chromium: ${skip}`);
  ensureRenderer(rendererDir);
  const core = await startCore();
  const ui = new UiServer({ core, host: '127.0.0.1', port: 0, rendererDir });
  await ui.listen();
  const browser = await launchBrowser();
  try {
    console.log(`ui: ${STORED.toLocaleString('en-US')} stored, then ${RATE.toLocaleString('en-US')} messages/s for ${SECONDS} s, page opened ${OPEN_AFTER_MS} ms into the stream`);
    const pre = await load(core.ingestUrl, core.writeKey, 'prestore', String(STORED));
    console.log(`  pre-stored ${pre.posted.toLocaleString('en-US')} in ${(pre.elapsedMs / 1000).toFixed(1)} s (${pre.failed} failed requests)`);

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addInitScript(pageProbe);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');

    const streamStart = Date.now();
    const stream = load(core.ingestUrl, core.writeKey, 'stream', String(RATE), String(SECONDS));
    await new Promise((r) => setTimeout(r, OPEN_AFTER_MS));
    await page.goto(ui.url);
    await page.waitForSelector('[role="listbox"] [role="option"]', { timeout: 30_000 });
    const firstRowMs = await page.evaluate(() => (window as any).__bench.firstRowAt as number);
    const nav = await page.evaluate(() => {
      const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      return n ? { domContentLoadedMs: n.domContentLoadedEventEnd, loadMs: n.loadEventEnd } : null;
    });
    await page.waitForTimeout(500);
    const heapStart = await heap(cdp, true);
    const heapSamples: { t: number; usedMB: number }[] = [];
    const sampler = setInterval(() => {
      heap(cdp, false).then((h) => heapSamples.push({ t: Math.round((Date.now() - streamStart) / 1000), usedMB: h.usedMB }), () => {});
    }, 1000);

    // Scroll down through the list while the stream runs, one step per frame, then back to the top.
    const scrollSeconds = Math.min(5, Math.max(2, SECONDS * 0.3));
    const remaining = SECONDS * 1000 - (Date.now() - streamStart);
    await page.waitForTimeout(Math.max(0, Math.min(2000, remaining - scrollSeconds * 1000 - 1000)));
    if (TRACE) {
      await browser.startTracing(page, {
        path: TRACE,
        categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'disabled-by-default-v8.gc', 'blink.user_timing', 'toplevel'],
      });
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
      await cdp.send('Profiler.start');
    }
    const scroll = await page.evaluate(async (ms: number) => {
      const list = document.querySelector('[role="listbox"]') as HTMLElement;
      const start = performance.now();
      let frames = 0;
      await new Promise<void>((resolve) => {
        const step = () => {
          list.scrollTop += 240;
          frames++;
          if (performance.now() - start < ms) requestAnimationFrame(step);
          else resolve();
        };
        requestAnimationFrame(step);
      });
      const end = performance.now();
      return { start, end, frames, scrolledPx: list.scrollTop };
    }, scrollSeconds * 1000);
    if (TRACE) {
      const { profile } = await cdp.send('Profiler.stop');
      fs.writeFileSync(`${TRACE}.cpuprofile`, JSON.stringify(profile));
      await browser.stopTracing();
    }
    await page.evaluate(() => ((document.querySelector('[role="listbox"]') as HTMLElement).scrollTop = 0));
    const follow = page.getByRole('button', { name: 'Follow tail' });
    if ((await follow.count()) && (await follow.getAttribute('aria-pressed')) === 'false') await follow.click();

    const streamed = await stream;
    const streamEnd = Date.now();
    // The UI catching up: the core's newest message in the page's store.
    const newest = core.messages.list({ limit: 1 })[0]!.id;
    let caughtUpMs: number | null = null;
    while (Date.now() - streamEnd < 15_000) {
      const top = await page.evaluate(() => ((window as any).__sluice.store.getState().list.order[0] ?? 0) as number);
      if (top >= newest) {
        caughtUpMs = Date.now() - streamEnd;
        break;
      }
      await page.waitForTimeout(20);
    }
    clearInterval(sampler);
    await page.waitForTimeout(500);
    const heapEnd = await heap(cdp, true);
    const b = await page.evaluate(() => (window as any).__bench);
    const rowsInStore = await page.evaluate(() => (window as any).__sluice.store.getState().list.order.length as number);
    const rowsLoaded = await page.evaluate(() => (window as any).__sluice.store.getState().list.byId.size as number);

    const inScroll = ([t]: [number, number]) => t >= scroll.start && t <= scroll.end + 100;
    const scrollTasks = (b.longtasks as [number, number][]).filter(([s, d]) => s + d >= scroll.start && s <= scroll.end);
    const streamTasks = (b.longtasks as [number, number][]).filter(([s]) => s >= firstRowMs);
    const figures = {
      stored: STORED,
      stream: { ratePerSecond: RATE, seconds: SECONDS, posted: streamed.posted, failedRequests: streamed.failed, postingBehindMs: Math.round(streamed.behindMs), achievedPerSecond: Math.round(streamed.posted / (streamed.elapsedMs / 1000)) },
      firstRender: { firstRowMs: Math.round(firstRowMs), domContentLoadedMs: nav && Math.round(nav.domContentLoadedMs), targetMs: 1000, ok: firstRowMs < 1000 },
      scroll: {
        seconds: scrollSeconds,
        frames: scroll.frames,
        fps: Math.round(scroll.frames / ((scroll.end - scroll.start) / 1000)),
        scrolledPx: scroll.scrolledPx,
        longTasks: scrollTasks.length,
        longestTaskMs: scrollTasks.length ? Math.round(Math.max(...scrollTasks.map((t) => t[1]))) : 0,
        longestFrameGapMs: Math.round(Math.max(0, ...(b.gaps as [number, number][]).filter(inScroll).map((g) => g[1]))),
        targetMs: 50,
        ok: scrollTasks.every((t) => t[1] <= 50),
      },
      streamLongTasks: { count: streamTasks.length, longestMs: streamTasks.length ? Math.round(Math.max(...streamTasks.map((t) => t[1]))) : 0, totalMs: Math.round(streamTasks.reduce((s, t) => s + t[1], 0)) },
      lag: {
        store: lagFigures(b.storeLag),
        storeOutsideScroll: lagFigures((b.storeLag as [number, number][]).filter((s) => !inScroll(s))),
        newestRow: lagFigures(b.rowLag),
        caughtUpAfterStreamMs: caughtUpMs,
        targetMs: 1000,
        ok: (pct((b.storeLag as [number, number][]).map((s) => s[1]), 99) ?? Infinity) < 1000,
      },
      memory: {
        start: heapStart,
        end: heapEnd,
        growthMB: Math.round((heapEnd.usedMB - heapStart.usedMB) * 10) / 10,
        slopeMBPerMinute: slopePerMinute(heapSamples.map((x) => ({ t: x.t, y: x.usedMB }))),
        floorSlopeMBPerMinute: slopePerMinute(floors(heapSamples).map((x) => ({ t: x.t, y: x.usedMB }))),
        floors: floors(heapSamples),
        samples: heapSamples,
        rowsInStoreAtEnd: rowsInStore,
        rowsLoadedAtEnd: rowsLoaded,
      },
      pageErrors: errors,
    };
    const f = figures;
    console.log(`  stream: ${f.stream.posted.toLocaleString('en-US')} posted, ${f.stream.achievedPerSecond.toLocaleString('en-US')}/s, ${f.stream.failedRequests} failed`);
    console.log(`  first render: first row ${f.firstRender.firstRowMs} ms after navigation start (target < 1000)`);
    console.log(`  scroll ${f.scroll.seconds} s: ${f.scroll.fps} fps, ${f.scroll.longTasks} long tasks, longest ${f.scroll.longestTaskMs} ms, longest frame gap ${f.scroll.longestFrameGapMs} ms (target ≤ 50)`);
    console.log(`  during stream: ${f.streamLongTasks.count} long tasks, longest ${f.streamLongTasks.longestMs} ms`);
    console.log(`  lag core→store: p50 ${f.lag.store.p50Ms} ms, p95 ${f.lag.store.p95Ms} ms, p99 ${f.lag.store.p99Ms} ms, max ${f.lag.store.maxMs} ms (${f.lag.store.samples} samples); newest row in DOM p50 ${f.lag.newestRow.p50Ms} ms, max ${f.lag.newestRow.maxMs} ms; caught up ${caughtUpMs} ms after the stream`);
    console.log(`  JS heap (after GC): ${heapStart.usedMB} MB → ${heapEnd.usedMB} MB (${f.memory.growthMB >= 0 ? '+' : ''}${f.memory.growthMB} MB), ${rowsInStore.toLocaleString('en-US')} rows in the store (${rowsLoaded.toLocaleString('en-US')} loaded), DOM nodes ${heapStart.domNodes} → ${heapEnd.domNodes}`);
    console.log(`  JS heap over the run (1 s samples, no GC): slope ${f.memory.slopeMBPerMinute} MB/min; 5 s floors ${f.memory.floors.map((x) => x.usedMB).join(', ')} MB, slope ${f.memory.floorSlopeMBPerMinute} MB/min`);
    if (errors.length) console.log(`  page errors: ${errors.join('; ')}`);
    await context.close();
    return figures;
  } finally {
    await browser.close();
    await ui.close();
    await core.dispose();
  }
}
