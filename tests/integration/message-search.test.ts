// The stream's search through the trigram index (migration 11, store/search-index.ts writing,
// store/message-search.ts reading): in every state of the index — nothing indexed yet, new messages
// indexed upwards, an older store indexed downwards, all of it — and after messages are removed (and
// their ids given again), a search lists exactly what LIKE would (substring of userId, anonymousId,
// messageId or event, case-insensitive for ASCII), newest first, page by page, and oldest first for
// the bulk actions. Real SQLite files; the expectation is computed in JavaScript from the rows.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase } from '../../electron/core/store/database.ts';
import { MessagesRepo } from '../../electron/core/store/messages-repo.ts';
import { searchIndexer } from '../../electron/core/store/search-index.ts';
import { post, startCore, tempDir } from '../helpers/core.ts';

const dbs: DatabaseSync[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

interface Row {
  id: number;
  user: string | null;
  anon: string | null;
  messageId: string | null;
  event: string | null;
}

const USERS = ['user_1', 'User_12', 'USER_123', 'alice@Example.com', 'Zoë', 'o"brien', '100%_sure', null];
const EVENTS = ['Order Completed', 'order viewed', 'Signed In', null, 'Ünïcode Évent', 'a_b'];

function store() {
  const dir = tempDir('sluice-search-');
  dirs.push(dir);
  const db = openDatabase(dir);
  dbs.push(db);
  db.prepare("INSERT INTO sources (name, write_key, kind, created_at) VALUES ('s', 'wk', 'server', 0)").run();
  const insert = db.prepare(
    `INSERT INTO messages (source_id, message_id, type, status, user_id, anonymous_id, event, received_at, raw) VALUES (1, ?, 'track', 'accepted', ?, ?, ?, ?, '{}')`,
  );
  let n = 0;
  const add = (count: number) => {
    for (let i = 0; i < count; i++, n++) {
      insert.run(i % 13 === 0 ? null : `msg-${n}-${(n * 7) % 1000}`, USERS[n % USERS.length] ?? null, n % 5 === 0 ? `anon_${n % 17}` : null, EVENTS[n % EVENTS.length] ?? null, n);
    }
  };
  return { db, repo: new MessagesRepo(db), indexer: searchIndexer(db), add };
}

function rows(db: DatabaseSync): Row[] {
  return db.prepare('SELECT id, user_id AS user, anonymous_id AS anon, message_id AS messageId, event FROM messages ORDER BY id').all() as unknown as Row[];
}

/** LIKE's meaning, in JavaScript: a substring, ASCII letters in any case. */
function expected(all: Row[], term: string): number[] {
  const lower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const t = lower(term);
  return all.filter((r) => [r.user, r.anon, r.messageId, r.event].some((f) => f !== null && lower(f).includes(t))).map((r) => r.id);
}

const TERMS = ['user_12', 'USER_1', 'example.COM', 'zoë', 'ZOË', 'o"b', '100%_', '%_s', 'order', 'ORDER V', 'anon_1', 'msg-4', '-9', 'évent', 'nothing-like-this', 'in', 'a_b', 'n'];

/** Every term, listed newest first in pages of 7 and in one page, and oldest first in pages of 5. */
function checkAll(repo: MessagesRepo, db: DatabaseSync): void {
  const all = rows(db);
  for (const term of TERMS) {
    const want = expected(all, term);
    expect(repo.list({ search: term, limit: 10_000 }).map((m) => m.id), term).toEqual([...want].reverse());
    const paged: number[] = [];
    for (let before: number | undefined; ; ) {
      const page = repo.list({ search: term, limit: 7, ...(before !== undefined ? { beforeId: before } : {}) });
      paged.push(...page.map((m) => m.id));
      if (page.length < 7) break;
      before = page.at(-1)!.id;
    }
    expect(paged, `${term}, newest first in pages`).toEqual([...want].reverse());
    const ascending: number[] = [];
    for (let after = 0; ; ) {
      const ids = repo.findIds({ search: term }, 5, after);
      ascending.push(...ids);
      if (ids.length < 5) break;
      after = ids.at(-1)!;
    }
    expect(ascending, `${term}, oldest first`).toEqual(want);
  }
}

const range = (db: DatabaseSync) => db.prepare('SELECT lo, hi FROM search_index').get() as { lo: number; hi: number };

it('finds what LIKE finds with nothing indexed, new messages indexed upwards, then everything', () => {
  const { db, repo, indexer, add } = store();
  add(300);
  expect(range(db)).toEqual({ lo: 1, hi: 0 }); // a new store: everything is newer than the index
  checkAll(repo, db);
  expect(indexer.step(120)).toBe(true); // ids 1–120 indexed, 121–300 read
  expect(range(db)).toEqual({ lo: 1, hi: 120 });
  checkAll(repo, db);
  while (indexer.step(120));
  expect(range(db)).toEqual({ lo: 1, hi: 300 });
  checkAll(repo, db);
  // With a time range too (a short one is read through the time index instead).
  const inRange = rows(db).filter((r) => r.id - 1 >= 50 && r.id - 1 <= 120);
  for (const term of ['order', 'user_12', 'zo']) {
    expect(repo.list({ search: term, from: 50, to: 120, limit: 1000 }).map((m) => m.id), term).toEqual([...expected(inRange, term)].reverse());
  }
  add(40); // arrived since: read until indexed
  checkAll(repo, db);
});

it('indexes a store that had messages before the index, newest first, while searches stay whole', () => {
  const { db, repo, indexer, add } = store();
  add(300);
  // As migration 11 leaves a store that had 300 messages: nothing indexed, older ones to do.
  db.exec('UPDATE search_index SET lo = 301, hi = 300');
  expect(indexer.step(100)).toBe(true);
  expect(range(db)).toEqual({ lo: 201, hi: 300 });
  add(30); // new ones go first
  expect(indexer.step(100)).toBe(true);
  expect(range(db)).toEqual({ lo: 201, hi: 330 });
  checkAll(repo, db);
  while (indexer.step(100));
  expect(range(db)).toEqual({ lo: 1, hi: 330 });
  checkAll(repo, db);
});

it('reads through the index where it covers the messages (an entry missing from it is not found)', () => {
  const { db, repo, indexer, add } = store();
  add(50);
  while (indexer.step(100));
  const target = repo.list({ search: 'user_123', limit: 100 })[0]!;
  db.prepare("INSERT INTO messages_search (messages_search, rowid, user_id, anonymous_id, message_id, event) VALUES ('delete', ?, ?, ?, ?, ?)").run(
    target.id,
    ...[target.userId, target.anonymousId, target.messageId, target.event].map((v) => v?.replace(/[A-Z]/g, (c) => c.toLowerCase()) ?? null),
  );
  expect(repo.list({ search: 'user_123', limit: 100 }).map((m) => m.id)).not.toContain(target.id);
  // Two characters are too few for trigrams: those are read from the messages.
  expect(repo.list({ search: 'r_', limit: 1000 }).map((m) => m.id)).toContain(target.id);
});

it('removed messages leave the index, and ids SQLite gives again after the newest are removed are found', () => {
  const { db, repo, indexer, add } = store();
  add(200);
  while (indexer.step(64));
  db.exec('DELETE FROM messages WHERE id % 3 = 0'); // as retention or a clear would, here and there
  checkAll(repo, db);
  db.exec('DELETE FROM messages WHERE id > 150'); // the newest: their ids will be given again
  expect(range(db).hi).toBe(149);
  add(60); // ids 150–209, none of them indexed
  checkAll(repo, db);
  while (indexer.step(64));
  expect(range(db)).toEqual({ lo: 1, hi: 209 });
  checkAll(repo, db);
  // The index's own structure is sound (it cannot tell a 'delete' of values never indexed: checkAll can).
  db.exec("INSERT INTO messages_search (messages_search) VALUES ('integrity-check')");
  db.exec('DELETE FROM messages'); // everything
  expect(range(db)).toEqual({ lo: 1, hi: 0 });
  add(20);
  checkAll(repo, db);
});

it('a running Sluice indexes what it receives, and a store from before the index in the background; searches answer throughout', async () => {
  const dataDir = tempDir('sluice-search-core-');
  dirs.push(dataDir);
  const file = path.join(dataDir, DATABASE_FILE);
  const peek = <T,>(sql: string) => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      return db.prepare(sql).get() as T;
    } finally {
      db.close();
    }
  };
  const caughtUp = async () => {
    for (let i = 0; i < 200; i++) {
      const { lo, hi, top } = peek<{ lo: number; hi: number; top: number }>('SELECT lo, hi, (SELECT max(id) FROM messages) AS top FROM search_index');
      if (lo === 1 && hi === top) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the index did not catch up within 5 s');
  };
  let core = await startCore({ dataDir });
  const batch = (from: number) => ({ batch: Array.from({ length: 400 }, (_, i) => ({ type: 'track', event: 'Played', userId: `player_${from + i}` })) });
  expect((await post(core, '/v1/batch', batch(0))).status).toBe(200);
  await caughtUp();
  const found = await core.listMessages({ search: 'PLAYER_399', limit: 100 });
  expect(found.messages.map((m) => m.userId)).toEqual(['player_399']);
  await core.dispose();

  // As migration 11 finds a store of an earlier Sluice: messages, no index.
  const db = new DatabaseSync(file);
  db.exec("INSERT INTO messages_search (messages_search) VALUES ('delete-all'); UPDATE search_index SET lo = (SELECT max(id) FROM messages) + 1, hi = (SELECT max(id) FROM messages)");
  db.close();
  core = await startCore({ dataDir });
  expect((await core.listMessages({ search: 'player_12', limit: 100 })).messages.length).toBe(11); // read while not indexed: player_12, _120…_129
  expect((await post(core, '/v1/batch', batch(400))).status).toBe(200);
  await caughtUp();
  expect((await core.listMessages({ search: 'player_12', limit: 100 })).messages.length).toBe(11);
  expect((await core.listMessages({ search: 'player_799', limit: 100 })).messages.map((m) => m.userId)).toEqual(['player_799']);
  await core.dispose();
});
