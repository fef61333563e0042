// The background check of the whole store (electron/core/store-check/), on a real store over the start
// check's 32 MiB limit, filled by a real core: the start reads only its ends, so 20 pages overwritten in
// the middle while Sluice was stopped pass the start — and the background check finds them, and every
// outlet says so with the fix: stderr and a --json line of a real `sluice serve`, /api/v1/stats, the
// inspector's banner in Chromium (it stays after a reload), and the note beside the store, which makes
// the next start check all of it and refuse it. A sound store is checked to its end and nothing is
// said. A round that a stop interrupts resumes at the next start instead of starting over.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from '@playwright/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QUICK_CHECK_MAX_BYTES, fileBytes } from '../../../electron/core/store/integrity.ts';
import { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import { browserUnavailableReason, launchBrowser } from '../../helpers/browser.ts';
import { runCli, startCli, type RunningCli } from '../../helpers/cli.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { indexSettled } from '../../helpers/search-index.ts';
import { until } from '../../helpers/wait.ts';

const browserSkip = browserUnavailableReason();
if (browserSkip) console.warn(`[store-check] the inspector's part is skipped: ${browserSkip}`);

let seed: string;
let browser: Browser | undefined;
const dirs: string[] = [];
const running: RunningCli[] = [];
const cores: TestCore[] = [];

beforeAll(async () => {
  seed = tempDir('sluice-check-seed-');
  // Filled 10,000 messages at a time until the file (checkpointed at each stop) is over the limit.
  for (let start = 0; fileBytes(path.join(seed, 'sluice.db')) <= QUICK_CHECK_MAX_BYTES * 1.1; ) {
    const core = await startCore({ dataDir: seed, storeCheck: false });
    for (const end = start + 10_000; start < end; start += 500) {
      const batch = Array.from({ length: 500 }, (_, i) => ({
        type: 'track',
        event: `Event ${(start + i) % 9}`,
        userId: `user-${(start + i) % 300}`,
        messageId: `m-${start + i}`,
        properties: { n: start + i, note: 'x'.repeat(500 + ((start + i) % 400)) },
      }));
      expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
    }
    await indexSettled(seed); // indexed and merged: the tests' cores then write nothing while their checks count rows
    await core.close();
  }
  expect(fileBytes(path.join(seed, 'sluice.db'))).toBeGreaterThan(QUICK_CHECK_MAX_BYTES); // the start reads only its ends
  if (!browserSkip) browser = await launchBrowser();
}, 180_000);

afterEach(async () => {
  for (const cli of running.splice(0)) if (cli.child.exitCode === null) await cli.stop();
  for (const core of cores.splice(0)) await core.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

afterAll(async () => {
  await browser?.close();
  fs.rmSync(seed, { recursive: true, force: true });
});

function copyOfSeed(): string {
  const dir = tempDir('sluice-check-');
  dirs.push(dir);
  for (const name of fs.readdirSync(seed)) if (name.startsWith('sluice.db')) fs.copyFileSync(path.join(seed, name), path.join(dir, name));
  return dir;
}

/** Overwrites 20 leaves of the messages table from its middle (seeded): not its first or last, which the start reads. */
function damageMiddle(dir: string): number[] {
  const file = path.join(dir, 'sluice.db');
  const db = new DatabaseSync(file, { readOnly: true });
  const leaves = (db.prepare("SELECT pageno FROM dbstat WHERE name = 'messages' AND pagetype = 'leaf' ORDER BY path").all() as { pageno: number }[]).map((r) => r.pageno);
  db.close();
  let a = 17;
  const random = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const middle = leaves.slice(Math.floor(leaves.length * 0.2), Math.floor(leaves.length * 0.8));
  const pages = new Set<number>();
  while (pages.size < 20) pages.add(middle[Math.floor(random() * middle.length)]!);
  const fd = fs.openSync(file, 'r+');
  const garbage = Buffer.alloc(4096);
  for (const page of pages) {
    for (let i = 0; i < garbage.length; i++) garbage[i] = Math.floor(random() * 256);
    fs.writeSync(fd, garbage, 0, garbage.length, (page - 1) * 4096);
  }
  fs.closeSync(fd);
  return [...pages];
}

/** Rows in every table the check reads (every table with a b-tree). */
function totalRows(dir: string): number {
  const db = new DatabaseSync(path.join(dir, 'sluice.db'), { readOnly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND rootpage > 0").all() as { name: string }[];
    return tables.reduce((sum, { name }) => sum + Number((db.prepare(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n), 0);
  } finally {
    db.close();
  }
}

/** Every line `sluice serve` writes to stdout after its ready line. */
function laterLines(cli: RunningCli): string[] {
  const lines: string[] = [];
  let rest = '';
  cli.child.stdout.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop()!;
    lines.push(...parts);
  });
  return lines;
}

async function stats(cli: RunningCli, status = 200): Promise<any> {
  const res = await fetch(`${cli.ready.api}/stats`, { headers: { authorization: `Bearer ${cli.ready.token}` } });
  expect(res.status).toBe(status);
  return res.json();
}

/** /api/v1/stats once `ok` says so (polled). */
async function statsWhen(cli: RunningCli, ok: (stats: any) => boolean, what: string): Promise<any> {
  const end = Date.now() + 60_000;
  for (;;) {
    const answer = await stats(cli);
    if (ok(answer)) return answer;
    if (Date.now() > end) throw new Error(`timed out after 60 s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const SENTENCE = (dir: string) =>
  new RegExp(
    `^the store ${escape(path.join(dir, 'sluice.db'))} is damaged \\(table messages, reading (from its start|after row \\d+): database disk image is malformed\\); ` +
      `stop Sluice and run "sluice doctor --data-dir ${escape(dir)} --salvage" to copy what is readable into a new store \\(the damaged file is kept aside\\), or move the folder away to start empty$`,
  );
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the background check of the whole store', () => {
  it('finds 20 pages overwritten in the middle of a store the start check passed, and every outlet says so with the fix', async () => {
    const dir = copyOfSeed();
    damageMiddle(dir);
    const cli = await startCli(['--data-dir', dir]);
    running.push(cli);
    const lines = laterLines(cli);

    // --json: a line of its own, the ready line's `warnings`.
    const line = await until(() => lines.find((l) => l.includes('store.damaged')), 60_000, 'the store.damaged line');
    const event = JSON.parse(line) as { event: string; warnings: string[] };
    expect(Object.keys(event).sort()).toEqual(['event', 'warnings']);
    expect(event.event).toBe('store.damaged');
    expect(event.warnings).toHaveLength(1);
    const sentence = event.warnings[0]!;
    expect(sentence).toMatch(SENTENCE(dir));
    // stderr: the same sentence, once.
    expect(cli.stderr().split('\n').filter((l) => l.includes('is damaged'))).toEqual([`sluice: ${sentence}`]);
    // /api/v1/stats: a field. (Its counts read indexes, not every message: they answer unless the damage
    // is in a page they read, then 503 store_damaged — with `store` either way.)
    const res = await fetch(`${cli.ready.api}/stats`, { headers: { authorization: `Bearer ${cli.ready.token}` } });
    expect([200, 503]).toContain(res.status);
    const { error, store } = (await res.json()) as any;
    if (res.status === 503) {
      expect(error.code).toBe('store_damaged');
      expect(error.message).toContain(`stop Sluice and run "sluice doctor --data-dir ${dir} --salvage"`);
    }
    expect(store.damage).toEqual({ message: sentence, foundAt: expect.any(Number), fix: `sluice doctor --data-dir ${dir} --salvage` });
    expect(store.check).toMatchObject({ state: 'damaged', by: 'background', resumed: false });
    // The note beside the store.
    expect(fs.readFileSync(path.join(dir, 'store-damaged'), 'utf8')).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z ${escape(sentence)}\\n$`));

    if (browser) {
      const page = await browser.newPage();
      try {
        await page.goto(cli.ready.ui);
        const banner = page.getByRole('alert', { name: 'The store is damaged' });
        await banner.waitFor({ timeout: 15_000 });
        expect(await banner.innerText()).toContain(sentence);
        expect(await banner.locator('code').innerText()).toBe(`sluice doctor --data-dir ${dir} --salvage`);
        await page.reload();
        await banner.waitFor({ timeout: 15_000 }); // it stays
      } finally {
        await page.close();
      }
    }

    // The next start checks all of the store (the note) and refuses it, with the same sentence's fix.
    expect(await cli.stop()).toBe(0);
    const again = await startCli(['--data-dir', dir]).then(
      (started) => {
        running.push(started);
        return null;
      },
      (error: Error) => error.message,
    );
    expect(again).toMatch(/the store was found damaged while Sluice ran/);
    expect(again).toMatch(/sluice: the store .* is damaged \(.*\); stop Sluice and run "sluice doctor --data-dir .* --salvage"/);
  });

  it('checks a sound store to its end and says nothing', async () => {
    const dir = copyOfSeed();
    const rows = totalRows(dir);
    const cli = await startCli(['--data-dir', dir]);
    running.push(cli);
    const lines = laterLines(cli);
    const { store } = await statsWhen(cli, (s) => s.store.check.state !== 'waiting' && s.store.check.state !== 'checking', 'the check to end');
    expect(store.damage).toBeNull();
    expect(store.check).toMatchObject({ state: 'sound', by: 'background', resumed: false, tables: { checked: store.check.tables.total } });
    expect(store.check.finishedAt).toBeGreaterThanOrEqual(store.check.startedAt);
    expect(store.check.rows).toBeGreaterThanOrEqual(rows); // every row (and the few settings start-up wrote meanwhile)
    expect(store.check.rows).toBeLessThan(rows + 10);
    expect(fs.existsSync(path.join(dir, 'store-damaged'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'store-check.json'))).toBe(false); // nothing to resume

    if (browser) {
      const page = await browser.newPage();
      try {
        await page.goto(cli.ready.ui);
        await page.waitForFunction(() => (window as any).__sluice?.store.getState().connection.kind === 'open', undefined, { timeout: 15_000 });
        await page.getByRole('navigation').first().waitFor();
        expect(await page.getByRole('alert', { name: 'The store is damaged' }).count()).toBe(0);
      } finally {
        await page.close();
      }
    }
    expect(lines.filter((l) => l.trim() !== '')).toEqual([]);
    expect(cli.stderr()).not.toMatch(/damaged/);
  });

  it('a round that a stop interrupts resumes at the next start, where it was', async () => {
    const dir = copyOfSeed();
    const rows = totalRows(dir);
    const timing = { startAfterMs: 0, sliceMs: 1, saveEveryMs: 50 };
    const first = await startCore({ dataDir: dir, storeCheck: timing });
    cores.push(first);
    const midway = await until(() => {
      const { check } = first.health.view();
      return check.state === 'checking' && check.rows > 1000 ? check : undefined;
    }, 60_000, 'the check to be under way');
    await first.close();
    cores.length = 0;
    const kept = JSON.parse(fs.readFileSync(path.join(dir, 'store-check.json'), 'utf8')) as { startedAt: number; rows: number; position: { table: string } };
    expect(kept.startedAt).toBe(midway.startedAt);
    expect(kept.rows).toBeGreaterThanOrEqual(midway.rows);
    expect(kept.rows).toBeLessThan(rows);

    const second = await startCore({ dataDir: dir, storeCheck: timing });
    cores.push(second);
    expect(second.health.view().check).toMatchObject({ resumed: true, startedAt: midway.startedAt, rows: kept.rows });
    const done = await until(() => {
      const { check } = second.health.view();
      return check.state !== 'checking' && check.state !== 'waiting' ? check : undefined;
    }, 60_000, 'the check to end');
    expect(done).toMatchObject({ state: 'sound', resumed: true, startedAt: midway.startedAt });
    expect(done.tables.checked).toBe(done.tables.total);
    expect(done.rows).toBeGreaterThanOrEqual(rows); // the round read everything…
    expect(done.rows - kept.rows).toBeLessThan(rows); // …this run only what was left
    expect(done.rows).toBeLessThan(rows + 10);
    expect(fs.existsSync(path.join(dir, 'store-check.json'))).toBe(false);
  });

  it('sluice doctor, having read all of the store, ends a round under way (a salvaged store gets a new one)', async () => {
    const dir = copyOfSeed();
    const progress = path.join(dir, 'store-check.json');
    fs.writeFileSync(progress, JSON.stringify({ startedAt: 1, position: { table: 'messages', after: [5000], until: 9000 }, rows: 6000, tablesChecked: 8 }));
    expect((await runCli(['doctor', '--data-dir', dir])).code).toBe(0);
    expect(fs.existsSync(progress)).toBe(false);
  });
});
