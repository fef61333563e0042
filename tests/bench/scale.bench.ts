// Scale benchmark (`npm run bench -- scale`): a store of 10 million messages (BENCH_SCALE_MESSAGES)
// over 1 million users (BENCH_SCALE_USERS), filled through ingestion as a client would fill it.
// - ingest rate (the ingestion benchmark's load) on an empty store and on the full one, interleaved;
// - bytes on disk per message, and where they are (SQLite's dbstat, per table and index);
// - the inspector (built renderer, headless host, Chromium): first render, and searches;
// - an audience over the million users: the first evaluation (folds every message), its initial sync,
//   a sync with nothing changed;
// - `sluice serve` (the checkout's CLI) started on the full folder and on an empty one: time to its
//   ready line, and resident memory 3 s later.
// Retention is off for this store (its defaults would prune it to 1,000,000 messages).
// Bounded: the fill stops at the target; every step has a timeout; the folder is removed at the end
// unless it is BENCH_SCALE_DIR's (kept and reused: the next run only tops it up). Figures of other
// sizes than the defaults go to bench-results/scale-<messages>.json, not scale.json (results-name.ts).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { createCore } from '../../electron/core/index.ts';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { UiServer } from '../../electron/host/ui-server.ts';
import { browserUnavailableReason, launchBrowser } from '../helpers/browser.ts';
import { CLI, startServing } from '../helpers/cli.ts';
import { indexCaughtUp } from '../helpers/search-index.ts';
import { LOAD, load, type LoadResult } from './ingest.bench.ts';
import { median } from './median.ts';
import { rssOf } from './startup.bench.ts';
import { ensureRenderer } from '../helpers/inspector-page.ts';
import { rendererDir } from './ui.bench.ts';
import { scaleSizes } from './results-name.ts';

const execFileAsync = promisify(execFile);
const { messages: TARGET, users: USERS } = scaleSizes();
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const source = { name: 'bench', writeKey: 'wk_bench', kind: 'server' as const };
const retention = { maxAgeDays: null, maxMessages: null, maxBytes: null };
const MB = 2 ** 20;

const timed = async <T,>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const started = performance.now();
  const value = await fn();
  return { ms: Math.round(performance.now() - started), value };
};

async function rounds(url: string): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i++) results.push(await load(url, source.writeKey));
  return results;
}

/** Bytes per table and index (dbstat), largest first; null when this SQLite lacks dbstat. */
function whereTheBytesAre(file: string): { name: string; MB: number }[] | null {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as { name: string; bytes: number }[];
    return rows.slice(0, 12).map((r) => ({ name: r.name, MB: Math.round((Number(r.bytes) / MB) * 10) / 10 }));
  } catch {
    return null;
  } finally {
    db.close();
  }
}

/** `sluice serve` on `dataDir`: ms to its ready line, and its RSS 3 s later. */
async function serveOnce(dataDir: string, configFile: string): Promise<{ readyMs: number; rssMB: number }> {
  const started = performance.now();
  const relay = await startServing(process.execPath, [CLI, 'serve', '--json', '--data-dir', dataDir, '--config', configFile, '--ingest-port', '0', '--receiver-port', '0', '--ui-port', '0']);
  const readyMs = Math.round(performance.now() - started);
  await new Promise((r) => setTimeout(r, 3000));
  const rssMB = Math.round(rssOf(relay.child.pid!));
  await relay.stop();
  return { readyMs, rssMB };
}

async function inspector(core: Awaited<ReturnType<typeof createCore>>) {
  const skip = browserUnavailableReason();
  if (skip) return { skipped: skip };
  ensureRenderer(rendererDir);
  const ui = new UiServer({ core, host: '127.0.0.1', port: 0, rendererDir });
  await ui.listen();
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    const first = await timed(async () => {
      await page.goto(ui.url);
      await page.waitForSelector('[role="listbox"] [role="option"]', { timeout: 120_000 });
    });
    const search = async (term: string) =>
      timed(async () => {
        await page.getByLabel('Search messages').fill(term);
        // Done when the list shows the first page of matches (every row listed matches: the list kept
        // until the new one arrives does not), or has searched every page and found none.
        await page.waitForFunction(
          (t) => {
            const list = (window as any).__sluice?.store.getState().list;
            if (!list?.loaded) return false;
            if (list.order.length === 0) return list.next === null;
            const rows = list.order.slice(0, 20).map((id: number) => list.byId.get(id)).filter(Boolean);
            const matches = (m: any) => [m.userId, m.anonymousId, m.event, m.messageId].some((f) => typeof f === 'string' && f.includes(t));
            return rows.length > 0 && rows.every(matches) && document.querySelector('[role="listbox"] [role="option"]') !== null;
          },
          term,
          { timeout: 300_000, polling: 20 },
        );
      });
    const rareUser = `user_${Math.floor(USERS * 0.777)}`; // one user: ~10 of the 10 million
    const core_ = await timed(async () => core.operations['messages.list']({ search: rareUser, limit: 100 }));
    const rare = await search(rareUser);
    await page.getByLabel('Search messages').fill('');
    await page.waitForSelector('[role="listbox"] [role="option"]');
    const common = await search('Signed In'); // one event in five
    return { firstRenderMs: first.ms, searchOneUserMs: rare.ms, searchOneUserInCoreMs: core_.ms, found: core_.value.messages.length, searchCommonEventMs: common.ms };
  } finally {
    await browser.close();
    await ui.close();
  }
}

/** Messages in the store (the highest id: nothing is pruned here). */
function stored(dataDir: string): number {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    return Number((db.prepare('SELECT max(id) AS n FROM messages').get() as { n: number | null }).n ?? 0);
  } finally {
    db.close();
  }
}

export async function runScaleBench() {
  // BENCH_SCALE_DIR: a folder kept between runs (filled once, topped up to the target); else a temporary one.
  const kept = process.env.BENCH_SCALE_DIR;
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = kept ? path.resolve(kept) : fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-scale-'));
  const dataDir = path.join(dir, 'data');
  const emptyDir = path.join(dir, `empty-${Date.now().toString(36)}`);
  const configFile = path.join(dir, 'sluice.json');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(configFile, JSON.stringify({ sources: [source], destinations: [], retention }));
  const say = (line: string) => console.log(line);
  const make = (folder: string) => createCore({ dataDir: folder, ingestPort: 0, receiverPort: 0, config: { sources: [source], destinations: [], retention } });
  say(`scale: ${TARGET.toLocaleString('en-US')} messages over ${USERS.toLocaleString('en-US')} users; then ${ROUNDS} interleaved rounds of ${LOAD.durationMs / 1000} s of load on an empty store and on the full one`);
  let core = await make(dataDir);
  let empty: Awaited<ReturnType<typeof createCore>> | null = null;
  try {
    const toFill = Math.max(0, TARGET - stored(dataDir));
    const fillStarted = performance.now();
    if (toFill > 0) {
      const filler = path.join(import.meta.dirname, 'scale-fill.ts');
      await execFileAsync(process.execPath, [filler, core.ingestUrl, source.writeKey, String(toFill), String(USERS)], { maxBuffer: 1 << 20, timeout: 3_600_000 }).catch((error) => {
        throw new Error(`the fill failed: ${error.stderr || error.message}`);
      });
    }
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    say(`  filled ${toFill.toLocaleString('en-US')} in ${fillSeconds.toFixed(0)} s (${Math.round(toFill / Math.max(fillSeconds, 0.001)).toLocaleString('en-US')} messages/s)`);
    // The search index follows ingestion a tenth of the writer's time under load, then catches up.
    const indexStarted = performance.now();
    await indexCaughtUp(dataDir, 1_800_000);
    const indexSeconds = (performance.now() - indexStarted) / 1000;
    say(`  search index caught up ${indexSeconds.toFixed(0)} s after the fill`);
    await new Promise((r) => setTimeout(r, 5000)); // the checkpointer's idle TRUNCATE

    // Interleaved, because this machine drifts by tens of percent within a minute: empty, full, empty, …
    empty = await make(emptyDir);
    const onEmpty: LoadResult[] = [];
    const onFull: LoadResult[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Each store's search index catches up after its load before the other is loaded, so that
      // neither load shares the CPU with the other store's indexing (ingest bench (c) measures it).
      onEmpty.push(await load(empty.ingestUrl, source.writeKey));
      await indexCaughtUp(emptyDir);
      const before = stored(dataDir);
      onFull.push(await load(core.ingestUrl, source.writeKey));
      await indexCaughtUp(dataDir);
      say(`  round ${round}: empty store ${Math.round(onEmpty.at(-1)!.eventsPerSecond).toLocaleString('en-US')} events/s, full store (${before.toLocaleString('en-US')}) ${Math.round(onFull.at(-1)!.eventsPerSecond).toLocaleString('en-US')} events/s`);
    }
    await empty.close();
    empty = null;
    const ratios = onFull.map((r, i) => r.eventsPerSecond / onEmpty[i]!.eventsPerSecond);
    const ratio = median(ratios);
    say(`  full ÷ empty = ${ratio.toFixed(2)}× (rounds ${ratios.map((r) => r.toFixed(2)).join(', ')})`);

    const ui = await inspector(core);
    say(`  inspector: ${JSON.stringify(ui)}`);

    const sourceId = core.sources.list()[0]!.id;
    const rule = {
      match: 'all' as const,
      conditions: [
        { kind: 'trait' as const, trait: 'plan', operator: 'equals' as const, value: 'pro' },
        { kind: 'event' as const, event: 'Order Completed', operator: 'at_least' as const, count: 1, within: { amount: 90, unit: 'days' as const } },
      ],
    };
    const fold = await timed(() => core.audiences.preview({ sourceId, rule }));
    const audience = await core.audiences.save({ sourceId, name: `Pro buyers ${Date.now().toString(36)}`, rule, mode: 'realistic' });
    const initial = await timed(() => core.audiences.syncNow(audience.id));
    const unchanged = await timed(() => core.audiences.syncNow(audience.id));
    const audiences = { users: USERS, firstEvaluationMs: fold.ms, members: fold.value.members, initialSyncMs: initial.ms, joined: initial.value.joined, unchangedSyncMs: unchanged.ms };
    say(`  audience: ${JSON.stringify(audiences)}`);

    const messages = stored(dataDir);
    await core.close();
    core = null as never;
    const file = path.join(dataDir, DATABASE_FILE);
    const bytes = fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
    const disk = { messages, fileMB: Math.round(bytes / MB), bytesPerMessage: Math.round(bytes / messages), tables: whereTheBytesAre(file) };
    say(`  on disk: ${JSON.stringify(disk)}`);

    fs.rmSync(emptyDir, { recursive: true, force: true }); // serve's empty folder starts from nothing
    const serve = { full: [] as { readyMs: number; rssMB: number }[], empty: [] as { readyMs: number; rssMB: number }[] };
    for (let i = 0; i < 3; i++) {
      serve.full.push(await serveOnce(dataDir, configFile));
      serve.empty.push(await serveOnce(emptyDir, configFile));
    }
    const serveFigures = {
      full: { readyMs: median(serve.full.map((s) => s.readyMs)), rssMB: median(serve.full.map((s) => s.rssMB)) },
      empty: { readyMs: median(serve.empty.map((s) => s.readyMs)), rssMB: median(serve.empty.map((s) => s.rssMB)) },
    };
    say(`  sluice serve: ${JSON.stringify(serveFigures)}`);

    return {
      target: TARGET,
      users: USERS,
      ingest: {
        empty: { eventsPerSecond: median(onEmpty.map((r) => r.eventsPerSecond)), p99Ms: median(onEmpty.map((r) => r.p99Ms)), rounds: onEmpty.map((r) => Math.round(r.eventsPerSecond)) },
        full: { eventsPerSecond: median(onFull.map((r) => r.eventsPerSecond)), p99Ms: median(onFull.map((r) => r.p99Ms)), rounds: onFull.map((r) => Math.round(r.eventsPerSecond)) },
        ratio: Number(ratio.toFixed(3)),
        ratios: ratios.map((r) => Number(r.toFixed(3))),
      },
      fill: { messages: toFill, seconds: Math.round(fillSeconds), messagesPerSecond: Math.round(toFill / fillSeconds), indexCaughtUpSeconds: Math.round(indexSeconds) },
      disk,
      inspector: ui,
      audiences,
      serve: serveFigures,
    };
  } finally {
    await empty?.close();
    await core?.close();
    fs.rmSync(kept ? emptyDir : dir, { recursive: true, force: true });
  }
}
