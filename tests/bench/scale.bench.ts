// Scale benchmark (`npm run bench -- scale`): a store of 10 million messages (BENCH_SCALE_MESSAGES)
// over 1 million users (BENCH_SCALE_USERS), filled through ingestion as a client would fill it.
// - ingest rate (the ingestion benchmark's load) on the empty store and on the full one, same run;
// - bytes on disk per message, and where they are (SQLite's dbstat, per table and index);
// - the inspector (built renderer, headless host, Chromium): first render, and searches;
// - an audience over the million users: the first evaluation (folds every message), its initial sync,
//   a sync with nothing changed;
// - `sluice serve` (the checkout's CLI) started on the full folder and on an empty one: time to its
//   ready line, and resident memory 3 s later.
// Retention is off for this store (its defaults would prune it to 1,000,000 messages).
// Bounded: the fill stops at the target; every step has a timeout; the folder is removed at the end
// (BENCH_SCALE_KEEP=1 keeps it).
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { createCore } from '../../electron/core/index.ts';
import { DATABASE_FILE } from '../../electron/core/store/database.ts';
import { UiServer } from '../../electron/headless/ui-server.ts';
import { browserUnavailableReason, launchBrowser } from '../helpers/browser.ts';
import { CLI, startServing } from '../helpers/cli.ts';
import { LOAD, load, median, type LoadResult } from './ingest.bench.ts';
import { rssOf } from './startup.bench.ts';

const execFileAsync = promisify(execFile);
const TARGET = Number(process.env.BENCH_SCALE_MESSAGES ?? 10_000_000);
const USERS = Number(process.env.BENCH_SCALE_USERS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const repoRoot = path.resolve(import.meta.dirname, '../..');
const rendererDir = path.join(repoRoot, 'out/renderer');
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
  if (!fs.existsSync(path.join(rendererDir, 'index.html'))) {
    execFileSync(process.execPath, [path.join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'renderer/vite.config.ts'], { cwd: repoRoot, stdio: 'inherit', timeout: 180_000 });
  }
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
    const rare = await search(`user_${Math.floor(USERS * 0.777)}`); // one user: ~10 of the 10 million
    await page.getByLabel('Search messages').fill('');
    await page.waitForSelector('[role="listbox"] [role="option"]');
    const common = await search('Signed In'); // one event in five
    return { firstRenderMs: first.ms, searchOneUserMs: rare.ms, searchCommonEventMs: common.ms };
  } finally {
    await browser.close();
    await ui.close();
  }
}

export async function runScaleBench() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-scale-'));
  const dataDir = path.join(dir, 'data');
  const configFile = path.join(dir, 'sluice.json');
  fs.writeFileSync(configFile, JSON.stringify({ sources: [source], destinations: [], retention }));
  const say = (line: string) => console.log(line);
  say(`scale: fill to ${TARGET.toLocaleString('en-US')} messages over ${USERS.toLocaleString('en-US')} users; ${ROUNDS} rounds of ${LOAD.durationMs / 1000} s of load on the empty and on the full store`);
  let core = await createCore({ dataDir, ingestPort: 0, receiverPort: 0, config: { sources: [source], destinations: [], retention } });
  try {
    const empty = await rounds(core.ingestUrl);
    say(`  empty store: ${empty.map((r) => Math.round(r.eventsPerSecond).toLocaleString('en-US')).join(', ')} events/s`);

    const stored = () => {
      const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
      try {
        return Number((db.prepare('SELECT max(id) AS n FROM messages').get() as { n: number }).n);
      } finally {
        db.close();
      }
    };
    const toFill = Math.max(0, TARGET - stored());
    const fillStarted = performance.now();
    await execFileAsync(process.execPath, [path.join(import.meta.dirname, 'scale-fill.ts'), core.ingestUrl, source.writeKey, String(toFill), String(USERS)], { maxBuffer: 1 << 20, timeout: 3_600_000 }).catch((error) => {
      throw new Error(`the fill failed: ${error.stderr || error.message}`);
    });
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    say(`  filled ${toFill.toLocaleString('en-US')} in ${fillSeconds.toFixed(0)} s (${Math.round(toFill / fillSeconds).toLocaleString('en-US')} messages/s)`);
    await new Promise((r) => setTimeout(r, 5000)); // the checkpointer's idle TRUNCATE

    const full = await rounds(core.ingestUrl);
    const ratio = median(full.map((r) => r.eventsPerSecond)) / median(empty.map((r) => r.eventsPerSecond));
    say(`  full store (${stored().toLocaleString('en-US')}): ${full.map((r) => Math.round(r.eventsPerSecond).toLocaleString('en-US')).join(', ')} events/s → ${ratio.toFixed(2)}× the empty store`);

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
    const audience = await core.audiences.save({ sourceId, name: 'Pro buyers', rule, mode: 'realistic' });
    const initial = await timed(() => core.audiences.syncNow(audience.id));
    const unchanged = await timed(() => core.audiences.syncNow(audience.id));
    const audiences = { users: USERS, firstEvaluationMs: fold.ms, members: fold.value.members, initialSyncMs: initial.ms, joined: initial.value.joined, unchangedSyncMs: unchanged.ms };
    say(`  audience: ${JSON.stringify(audiences)}`);

    const messages = stored();
    await core.close();
    core = null as never;
    const file = path.join(dataDir, DATABASE_FILE);
    const bytes = fs.statSync(file).size + (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
    const disk = { messages, fileMB: Math.round(bytes / MB), bytesPerMessage: Math.round(bytes / messages), tables: whereTheBytesAre(file) };
    say(`  on disk: ${JSON.stringify(disk)}`);

    const emptyDir = path.join(dir, 'empty');
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
        empty: { eventsPerSecond: median(empty.map((r) => r.eventsPerSecond)), p99Ms: median(empty.map((r) => r.p99Ms)), rounds: empty.map((r) => Math.round(r.eventsPerSecond)) },
        full: { eventsPerSecond: median(full.map((r) => r.eventsPerSecond)), p99Ms: median(full.map((r) => r.p99Ms)), rounds: full.map((r) => Math.round(r.eventsPerSecond)) },
        ratio: Number(ratio.toFixed(3)),
      },
      fill: { messages: toFill, seconds: Math.round(fillSeconds), messagesPerSecond: Math.round(toFill / fillSeconds) },
      disk,
      inspector: ui,
      audiences,
      serve: serveFigures,
    };
  } finally {
    await core?.close();
    if (!process.env.BENCH_SCALE_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    else console.log(`  kept ${dir}`);
  }
}
