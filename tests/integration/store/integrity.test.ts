// A damaged store: a real store filled by a real core (messages, deliveries, attempts), closed, then
// 20 of its pages overwritten with garbage (seeded, never page 1 nor sqlite_schema's pages). The
// start refuses it with a sentence; damage the start check does not reach answers 503 store_damaged
// (ingestion, the HTTP API), store_damaged (the inspector's calls), or the sentence (sluice export),
// and is noted beside the store for the next start to check all of it;
// `sluice doctor` lists the findings, salvages what is readable into a new store that serves, and
// keeps the damaged file aside.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { createCore } from '../../../electron/core/index.ts';
import { IngestError, ingestErrorOf } from '../../../electron/core/ingest/ingest-error.ts';
import { storeFailure } from '../../../electron/core/store/store-failure.ts';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { deliveryHours } from '../../../electron/core/store/delivery-hours.ts';
import { StoreDamagedError, startCheckLimits } from '../../../electron/core/store/integrity.ts';
import { salvage } from '../../../electron/core/store/salvage.ts';
import { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { runCli } from '../../helpers/cli.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const MESSAGES = 2000;
const PORTS = ['--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'];

let seed: string; // the sound store every test copies
let original: Map<number, string>; // message id → raw, as stored
let receiver: Receiver;
const dirs: string[] = [];
const cores: TestCore[] = [];

beforeAll(async () => {
  receiver = await startReceiver();
  seed = tempDir('sluice-integrity-seed-');
  const core = await startCore({
    dataDir: seed,
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: `${receiver.url}/hook`, headers: {} }], options: { bodyShape: 'seed', concurrency: 8 } }],
    },
  });
  for (let start = 0; start < MESSAGES; start += 100) {
    const batch = Array.from({ length: 100 }, (_, i) => ({
      type: 'track',
      event: `Event ${(start + i) % 7}`,
      userId: `user-${(start + i) % 50}`,
      messageId: `m-${String(start + i).padStart(5, '0')}`,
      properties: { n: start + i, note: 'x'.repeat(200 + ((start + i) % 150)) },
    }));
    expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch })).status).toBe(200);
  }
  await until(() => core.deliveries.countByStatus().delivered === MESSAGES, 30_000, 'every delivery delivered');
  await core.close();
  original = rawById(path.join(seed, 'sluice.db'));
  expect(original.size).toBe(MESSAGES);
});

afterAll(async () => {
  await receiver.close();
  fs.rmSync(seed, { recursive: true, force: true });
});

afterEach(async () => {
  startCheckLimits.quickCheckMaxBytes = QUICK_CHECK_DEFAULT;
  for (const core of cores.splice(0)) await core.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const QUICK_CHECK_DEFAULT = startCheckLimits.quickCheckMaxBytes;

/** A copy of the sound store in a new folder. */
function copyOfSeed(): string {
  const dir = tempDir('sluice-integrity-');
  dirs.push(dir);
  for (const name of fs.readdirSync(seed)) if (name.startsWith('sluice.db')) fs.copyFileSync(path.join(seed, name), path.join(dir, name));
  return dir;
}

function rawById(file: string): Map<number, string> {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return new Map((db.prepare('SELECT id, raw FROM messages ORDER BY id').all() as { id: number; raw: string }[]).map((m) => [m.id, m.raw]));
  } finally {
    db.close();
  }
}

/** Pages of `file`'s b-trees, by dbstat (`where` filters its rows), in b-tree order. */
function pagesOf(file: string, where: string): number[] {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    return (db.prepare(`SELECT pageno FROM dbstat WHERE ${where} ORDER BY name, path`).all() as { pageno: number }[]).map((row) => row.pageno);
  } finally {
    db.close();
  }
}

/** mulberry32: the same garbage and the same pages at every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Overwrites `pages` (numbered from 1) with random bytes. */
function overwrite(file: string, pages: number[], random: () => number): void {
  const fd = fs.openSync(file, 'r+');
  try {
    const header = Buffer.alloc(100);
    fs.readSync(fd, header, 0, 100, 0);
    const pageSize = header.readUInt16BE(16) === 1 ? 65536 : header.readUInt16BE(16);
    const garbage = Buffer.alloc(pageSize);
    for (const page of pages) {
      for (let i = 0; i < pageSize; i++) garbage[i] = Math.floor(random() * 256);
      fs.writeSync(fd, garbage, 0, pageSize, (page - 1) * pageSize);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** Overwrites 20 random pages of the store in `dir`: not page 1, nor sqlite_schema's (which would leave nothing to salvage). */
function damage(dir: string, seedValue = 17): number[] {
  const file = path.join(dir, 'sluice.db');
  const kept = new Set([1, ...pagesOf(file, "name = 'sqlite_schema'")]);
  const random = seeded(seedValue);
  const count = fs.statSync(file).size / 4096;
  const pages = new Set<number>();
  while (pages.size < 20) {
    const page = 1 + Math.floor(random() * count);
    if (!kept.has(page)) pages.add(page);
  }
  overwrite(file, [...pages], random);
  return [...pages];
}

const sentence = (dir: string, finding: string) =>
  `the store ${path.join(dir, 'sluice.db')} is damaged (${finding}); stop Sluice and run "sluice doctor --data-dir ${dir} --salvage" ` +
  'to copy what is readable into a new store (the damaged file is kept aside), or move the folder away to start empty';
const SENTENCE = (dir: string) => new RegExp(`^${escape(sentence(dir, '\u0000')).replace('\u0000', '(.+)')}$`);
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('a damaged store', () => {
  it('is refused at start with a sentence naming the file, what is wrong and the fix; sluice serve prints it as one line and exits 2', async () => {
    const dir = copyOfSeed();
    damage(dir);
    let refusal: unknown;
    await createCore({ dataDir: dir, ingestPort: 0, receiverPort: 0 }).then((core) => cores.push(core as TestCore), (error: unknown) => (refusal = error));
    expect(refusal).toBeInstanceOf(StoreDamagedError);
    const message = (refusal as Error).message;
    expect(message).toMatch(SENTENCE(dir));
    expect((refusal as StoreDamagedError).finding).toMatch(/^Tree \d+ \((table|index) \w+\) page \d+: /); // SQLite's first finding, its b-tree named

    // The folder's lock was let go: the command line is refused the same way, on one line, no stack.
    const serve = await runCli(['serve', '--data-dir', dir, ...PORTS]);
    expect(serve).toEqual({ code: 2, stdout: '', stderr: `sluice: ${message}\n` });
  });

  it('damage the start check does not reach: ingestion answers 503 store_damaged (not 500), and the next start refuses', async () => {
    const dir = copyOfSeed();
    const file = path.join(dir, 'sluice.db');
    // Every leaf of the dedupe index but its first and last: the bounded check reads tables' ends, and
    // each new message's dedupe entry lands in between.
    const leaves = pagesOf(file, "name = 'messages_dedupe' AND pagetype = 'leaf'");
    expect(leaves.length).toBeGreaterThan(4);
    overwrite(file, leaves.slice(1, -1), seeded(3));
    startCheckLimits.quickCheckMaxBytes = 0; // as if the store were big: the bounded check only
    const core = await startCore({ dataDir: dir });
    cores.push(core);
    for (let i = 0; i < 2; i++) {
      const track = { type: 'track', event: 'After damage', userId: 'u', messageId: `m-01000-new-${i}` };
      const res = await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', track);
      expect(res.status).toBe(503);
      expect(res.json).toEqual({ success: false, error: { code: 'store_damaged', message: sentence(dir, 'database disk image is malformed') } });
    }
    await core.close();
    cores.length = 0;
    startCheckLimits.quickCheckMaxBytes = QUICK_CHECK_DEFAULT; // a small store: quick_check at start
    await expect(createCore({ dataDir: dir, ingestPort: 0, receiverPort: 0 })).rejects.toThrow(SENTENCE(dir));
  });

  it('damage found by a read: the HTTP API answers 503 store_damaged, the inspector\'s call store_damaged, sluice export exits 2 — each with the sentence', async () => {
    const dir = copyOfSeed();
    const file = path.join(dir, 'sluice.db');
    // The messages table's leaves but its first and last: the start check passes, a page of the stream does not.
    overwrite(file, pagesOf(file, "name = 'messages' AND pagetype = 'leaf'").slice(1, -1), seeded(5));
    startCheckLimits.quickCheckMaxBytes = 0;
    const core = await startCore({ dataDir: dir });
    cores.push(core);
    const ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
    await ui.listen();
    try {
      const res = await fetch(`${ui.apiUrl}/messages?limit=1000`, { headers: { authorization: `Bearer ${ui.token}` } });
      expect([res.status, await res.json()]).toEqual([503, { error: { code: 'store_damaged', message: sentence(dir, 'database disk image is malformed') } }]);
      const listed = await invoke(createHandlers(core), 'messages.list', { limit: 1000 });
      expect(listed).toEqual({ ok: false, error: { code: 'store_damaged', message: sentence(dir, 'database disk image is malformed') } });
    } finally {
      await ui.close();
    }
    await core.close();
    cores.length = 0;
    const exported = await runCli(['export', '--data-dir', dir, '--out', path.join(dir, 'out.ndjson')]);
    expect([exported.code, exported.stderr]).toEqual([2, `sluice: ${sentence(dir, 'database disk image is malformed')}\n`]);
    expect(fs.existsSync(path.join(dir, 'out.ndjson'))).toBe(false); // no half file left
  });

  it('damage found while running is noted beside the store: the next start checks all of a big store and refuses it; --salvage removes the note', async () => {
    const dir = copyOfSeed();
    const marker = path.join(dir, 'store-damaged');
    overwrite(path.join(dir, 'sluice.db'), pagesOf(path.join(dir, 'sluice.db'), "name = 'messages_dedupe' AND pagetype = 'leaf'").slice(1, -1), seeded(3));
    startCheckLimits.quickCheckMaxBytes = 0; // as if the store were big (over 32 MiB): its ends only, at every start below
    const core = await startCore({ dataDir: dir });
    cores.push(core);
    expect(fs.existsSync(marker)).toBe(false);
    const res = await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { type: 'track', event: 'After damage', userId: 'u', messageId: 'm-01000-new' });
    expect(res.status).toBe(503);
    const noted = fs.readFileSync(marker, 'utf8');
    expect(noted).toBe(`${noted.slice(0, 24)} ${sentence(dir, 'database disk image is malformed')}\n`);
    expect(Date.parse(noted.slice(0, 24))).toBeGreaterThan(Date.now() - 60_000); // when: an ISO time
    await core.close();
    cores.length = 0;

    // Without the note this start passed (the ends are sound) and answered 503s again.
    let refusal: unknown;
    await createCore({ dataDir: dir, ingestPort: 0, receiverPort: 0 }).then((again) => cores.push(again as TestCore), (error: unknown) => (refusal = error));
    expect(refusal).toBeInstanceOf(StoreDamagedError);
    expect((refusal as Error).message).toMatch(SENTENCE(dir));
    expect((refusal as StoreDamagedError).finding).toMatch(/\(index messages_dedupe\)/);
    expect(fs.existsSync(marker)).toBe(true); // still damaged: refused again at the next start

    expect((await runCli(['doctor', '--data-dir', dir, '--salvage'])).code).toBe(0);
    expect(fs.existsSync(marker)).toBe(false);
    const salvaged = await startCore({ dataDir: dir });
    cores.push(salvaged);
    expect(salvaged.messages.list({ limit: 10_000 }).length).toBeGreaterThan(0);
  });

  it('a note of damage on a sound store: the start checks all of it, starts, and removes the note', async () => {
    const dir = copyOfSeed();
    const marker = path.join(dir, 'store-damaged');
    fs.writeFileSync(marker, `2026-01-01T00:00:00.000Z ${sentence(dir, 'database disk image is malformed')}\n`);
    startCheckLimits.quickCheckMaxBytes = 0;
    const lines: string[] = [];
    const logged = vi.spyOn(console, 'error').mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      const core = await startCore({ dataDir: dir });
      cores.push(core);
      expect(core.messages.list({ limit: 10_000 }).length).toBe(MESSAGES);
    } finally {
      logged.mockRestore();
    }
    expect(lines).toContain(
      `sluice: the store was found damaged while Sluice ran (2026-01-01T00:00:00.000Z); checking all of ${path.join(dir, 'sluice.db')} before starting (a store of a few GB takes minutes)…`,
    );
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('sluice doctor lists the findings and exits 1; --salvage keeps every readable message, the new store serves, the damaged file is kept aside', async () => {
    const dir = copyOfSeed();
    const file = path.join(dir, 'sluice.db');
    damage(dir);
    const damagedHash = sha(file);

    const found = await runCli(['doctor', '--data-dir', dir]);
    expect(found.code).toBe(1);
    const lines = found.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^the store ${escape(file)} is damaged: (\\d+) findings?`));
    const listed = lines.filter((line) => line.startsWith('  Tree '));
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.length).toBeLessThanOrEqual(20);
    expect(lines.at(-1)).toBe(`run "sluice doctor --data-dir ${dir} --salvage" to copy what is readable into a new store (the damaged file is kept aside), or move the folder away to start empty`);
    expect(sha(file)).toBe(damagedHash); // checking changes nothing

    const salvaged = await runCli(['doctor', '--data-dir', dir, '--salvage']);
    expect(salvaged.stderr).not.toMatch(/sluice:/);
    expect(salvaged.code).toBe(0);
    const report = salvaged.stdout;
    expect(report).toContain(`salvaged ${file} into a new store, now in its place:`);
    const aside = fs.readdirSync(dir).filter((name) => /^sluice\.db\.damaged-\d{8}-\d{6}$/.test(name));
    expect(aside).toHaveLength(1);
    expect(sha(path.join(dir, aside[0]!))).toBe(damagedHash); // kept as it was
    expect(report).toContain(`The damaged file is kept as ${path.join(dir, aside[0]!)}`);

    // Every message read back is one of the originals, unchanged; the report's counts are the store's.
    const kept = rawById(file);
    for (const [id, raw] of kept) expect(raw).toBe(original.get(id));
    const row = /^ {2}messages +([\d,]+) +(.*)$/m.exec(report)!;
    expect(Number(row[1]!.replaceAll(',', ''))).toBe(kept.size);
    const unreadable = /([\d,]+) unreadable ids?/.exec(row[2]!);
    const lost = MESSAGES - kept.size;
    if (lost > 0) expect(Number(unreadable![1]!.replaceAll(',', ''))).toBeGreaterThanOrEqual(lost); // at most that many rows
    expect(kept.size).toBeGreaterThan(MESSAGES / 2);

    const sound = await runCli(['doctor', '--data-dir', dir]);
    expect(sound).toMatchObject({ code: 0, stdout: `the store ${file} is sound\n` });

    // The new store starts and serves: the messages kept, and a new one.
    const core = await startCore({ dataDir: dir });
    cores.push(core);
    expect(core.messages.list({ limit: 10_000 }).length).toBe(kept.size);
    const res = await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { type: 'track', event: 'After salvage', userId: 'u' });
    expect(res.status).toBe(200);
    expect(core.messages.list({ limit: 1 })[0]).toMatchObject({ event: 'After salvage' });
    // Nothing left pointing at a lost row: attempts of lost deliveries went with them.
    const db = new DatabaseSync(file, { readOnly: true });
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
    db.close();
  });

  it('sluice doctor refuses while a Sluice runs on the folder, and lets go of it when done; --vacuum compacts a sound store', async () => {
    const dir = copyOfSeed();
    const core = await startCore({ dataDir: dir });
    cores.push(core);
    const refused = await runCli(['doctor', '--data-dir', dir]);
    expect(refused).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: another Sluice (process ${process.pid}) is using the data folder ${dir}; stop it first: sluice doctor needs the store to itself\n`,
    });
    await core.close();
    cores.length = 0;

    const vacuumed = await runCli(['doctor', '--data-dir', dir, '--vacuum']);
    expect(vacuumed.code).toBe(0);
    expect(vacuumed.stdout).toMatch(/^the store .* is sound\nvacuumed: [\d.]+ [KMG]B before, [\d.]+ [KMG]B after \(database and WAL\)\n$/);
    const db = new DatabaseSync(path.join(dir, 'sluice.db'), { readOnly: true });
    expect(db.prepare('PRAGMA auto_vacuum').get()).toEqual({ auto_vacuum: 2 }); // incremental
    db.close();
    const again = await startCore({ dataDir: dir }); // the lock was let go
    cores.push(again);
    expect(again.messages.list({ limit: 10_000 }).length).toBe(MESSAGES);
  });

  it('sluice doctor on a folder without a store says so and exits 2', async () => {
    const dir = tempDir();
    dirs.push(dir);
    expect(await runCli(['doctor', '--data-dir', dir])).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: there is no store in ${dir} (no sluice.db); name the folder Sluice stores in with --data-dir\n`,
    });
    expect(fs.readdirSync(dir)).toEqual([]); // no lock file left behind, no store created
  });
});

describe('salvage', () => {
  it('reads past damaged pages: a WITHOUT ROWID table from both ends, a rowid table whose last page is damaged up to that page', () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = openDatabase(dir);
    const count = db.prepare(`INSERT INTO event_counts (source_id, type, event, plan, n, last_at) VALUES (1, 'track', ?, '', 1, 0)`);
    const message = db.prepare(`INSERT INTO messages (source_id, message_id, type, status, received_at, raw) VALUES (1, ?, 'track', 'accepted', ?, ?)`);
    db.exec('BEGIN');
    for (let i = 1; i <= 3000; i++) {
      count.run(`event-${String(i).padStart(5, '0')}`);
      message.run(`m-${i}`, i, JSON.stringify({ type: 'track', event: 'E', messageId: `m-${i}` }));
    }
    db.exec('COMMIT');
    // The audiences' profiles were folded through the last message.
    db.exec("INSERT INTO settings (key, value) VALUES ('profiles.folded_through', '3000')");
    db.close();
    const file = path.join(dir, 'sluice.db');
    const leaves = (name: string) => {
      const stat = new DatabaseSync(file, { readOnly: true });
      const rows = stat.prepare("SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY path").all(name) as { pageno: number; ncell: number }[];
      stat.close();
      return rows;
    };
    const counts = leaves('event_counts');
    const middle = counts[Math.floor(counts.length / 2)]!;
    const last = leaves('messages').at(-1)!;
    expect(counts.length).toBeGreaterThan(3);
    overwrite(file, [middle.pageno, last.pageno], seeded(5));

    const report = salvage(file, new Date(2025, 0, 2, 3, 4, 5));
    expect(report.aside).toBe(`${file}.damaged-20250102-030405`);
    expect(fs.existsSync(report.aside)).toBe(true);
    const messages = report.tables.find((t) => t.table === 'messages')!;
    expect(messages.copied).toBe(3000 - last.ncell);
    expect(messages.unreadable).toBeGreaterThanOrEqual(last.ncell);
    expect(messages.endUnreadableAfter).toBeGreaterThanOrEqual(3000 - last.ncell);
    expect(report.tables.find((t) => t.table === 'event_counts')).toMatchObject({ copied: 3000 - middle.ncell, unreadable: null });
    expect(report.recounted).toBe(true); // messages were lost: the plan view's counts are the kept messages'
    const kept = rawById(file);
    expect([...kept.keys()]).toEqual(Array.from({ length: 3000 - last.ncell }, (_, i) => i + 1));
    // The newest messages lost, their ids are given again: the fold's cursor is back at the last one kept.
    const after = new DatabaseSync(file, { readOnly: true });
    expect(after.prepare("SELECT value FROM settings WHERE key = 'profiles.folded_through'").get()).toEqual({ value: String(3000 - last.ncell) });
    after.close();
  });
});

describe('salvage of the delivery overview', () => {
  it('counts its hours again from the deliveries kept, not as the damaged store had them', () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = openDatabase(dir);
    db.exec(`INSERT INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (1, 'hooks', 1, '{}', 0, 0)`);
    // Counted as the writer counts them (migration 26): delivery_hours agrees with the deliveries before the damage.
    const hours = deliveryHours(db);
    const insert = db.prepare(`INSERT INTO deliveries (destination_id, trigger, status, created_at, updated_at, body) VALUES (1, 'automatic', ?, ?, ?, ?)`);
    db.exec('BEGIN');
    for (let i = 1; i <= 3000; i++) {
      const status = i % 10 === 0 ? 'failed' : 'delivered';
      insert.run(status, i * 60_000, i * 60_000, 'x'.repeat(200));
      hours.made(1, i * 60_000, status, null);
    }
    hours.write();
    db.exec('COMMIT');
    db.close();
    const file = path.join(dir, 'sluice.db');
    const leaves = pagesOf(file, "name = 'deliveries' AND pagetype = 'leaf'");
    overwrite(file, [leaves[Math.floor(leaves.length / 2)]!], seeded(7));

    const report = salvage(file, new Date(2025, 0, 2, 3, 4, 5));
    const kept = report.tables.find((t) => t.table === 'deliveries')!.copied;
    expect(kept).toBeLessThan(3000);
    const check = new DatabaseSync(file, { readOnly: true });
    try {
      const counted = check.prepare('SELECT hour, status, n FROM delivery_hours WHERE n <> 0 ORDER BY hour, status').all();
      const recount = check.prepare(`SELECT created_at / 3600000 AS hour, status, count(*) AS n FROM deliveries WHERE trigger = 'automatic' GROUP BY 1, 2 ORDER BY 1, 2`).all();
      expect(counted).toEqual(recount);
      expect(recount.reduce((sum, row) => sum + Number((row as { n: number }).n), 0)).toBe(kept);
    } finally {
      check.close();
    }
  });
});

describe('salvage of bodies recorded by reference', () => {
  it("keeps by reference only the bodies whose message and request it kept: one is not built again without its request's context", () => {
    const dir = tempDir();
    dirs.push(dir);
    const db = openDatabase(dir);
    db.exec(`INSERT INTO sources (id, name, write_key, kind, created_at) VALUES (1, 'web', 'wk', 'server', 0);
      INSERT INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (1, 'api', 1, '{}', 0, 0)`);
    const request = db.prepare(`INSERT INTO requests (id, source_id, endpoint, received_at, envelope) VALUES (?, 1, 'batch', ?, ?)`);
    const message = db.prepare(`INSERT INTO messages (id, request_id, source_id, message_id, type, status, event, received_at, raw) VALUES (?, ?, 1, ?, 'track', 'accepted', 'E', ?, '{"type":"track","event":"E"}')`);
    const delivery = db.prepare(`INSERT INTO deliveries (id, message_id, destination_id, trigger, status, body_shape, created_at, updated_at) VALUES (?, ?, 1, 'automatic', 'delivered', 'forward', ?, ?)`);
    db.exec('BEGIN');
    for (let i = 1; i <= 2000; i++) {
      request.run(i, i * 1000, JSON.stringify({ context: { page: { path: `/p/${i}/${'x'.repeat(200)}` } } }));
      message.run(i, i, `m-${i}`, i * 1000);
      delivery.run(i, i, i * 1000, i * 1000);
    }
    db.exec('COMMIT');
    db.close();
    const file = path.join(dir, 'sluice.db');
    const leaves = pagesOf(file, "name = 'requests' AND pagetype = 'leaf'");
    expect(leaves.length).toBeGreaterThan(10);
    overwrite(file, [leaves[Math.floor(leaves.length / 2)]!], seeded(11));

    const report = salvage(file, new Date(2025, 0, 2, 3, 4, 5));
    expect(report.tables.find((t) => t.table === 'requests')!.copied).toBeLessThan(2000);
    const check = new DatabaseSync(file, { readOnly: true });
    try {
      const shapes = check.prepare(`SELECT d.body_shape AS shape, r.id IS NOT NULL AS kept, count(*) AS n FROM deliveries d
        JOIN messages m ON m.id = d.message_id LEFT JOIN requests r ON r.id = m.request_id GROUP BY 1, 2 ORDER BY 2`).all() as { shape: string | null; kept: number; n: number }[];
      expect(shapes.map(({ shape, kept }) => [shape, kept])).toEqual([[null, 0], ['forward', 1]]);
      expect(shapes.reduce((sum, row) => sum + Number(row.n), 0)).toBe(2000); // every message and delivery kept
    } finally {
      check.close();
    }
  });
});

describe('store failures as ingestion answers', () => {
  it('maps SQLite messages: malformed / not a database → 503 store_damaged, full → 507 disk_full, anything else stays a 500', () => {
    const file = '/data/sluice/sluice.db';
    for (const message of ['database disk image is malformed', 'file is not a database']) {
      const error = ingestErrorOf(storeFailure(message, file)) as IngestError;
      expect(error).toBeInstanceOf(IngestError);
      expect([error.status, error.code, error.message]).toEqual([503, 'store_damaged', sentence('/data/sluice', message)]);
    }
    const full = ingestErrorOf(storeFailure('database or disk is full', file)) as IngestError;
    expect([full.status, full.code, full.message]).toEqual([
      507,
      'disk_full',
      'the disk holding /data/sluice is full: Sluice cannot store messages until there is room; free some space or lower the retention (Settings) — it stores again by itself once there is',
    ]);
    const other = ingestErrorOf(storeFailure('UNIQUE constraint failed: x', file)) as Error;
    expect(other).not.toBeInstanceOf(IngestError);
    expect(other.message).toBe('UNIQUE constraint failed: x');
  });
});
