// The stream's search (the query language, shared/message-query.ts) through the word and trigram
// indexes (migrations 11 and 12, store/search-index.ts writing, store/message-search.ts reading): in
// every state of the indexes — nothing indexed yet, new messages indexed upwards, an older store
// indexed downwards, all of it — and after messages are removed (and their ids given again), a search
// lists exactly what the language means, newest first, page by page, oldest first for the bulk
// actions, and among given ids for live rows. Real SQLite files; the expectation is computed in
// JavaScript from the rows, by a second writing of the language's meaning. Messages are written as
// different encoders write JSON (& as \u0026, non-ASCII as \uXXXX, newlines and tabs escaped): words
// are those of the text the client meant.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase } from '../../../electron/core/store/database.ts';
import { MessagesRepo } from '../../../electron/core/store/messages-repo.ts';
import { searchIndexer } from '../../../electron/core/store/search-index.ts';
import { registerSqlFunctions } from '../../../electron/core/store/sql-functions.ts';
import { post, startCore, tempDir } from '../../helpers/core.ts';
import { indexCaughtUp } from '../../helpers/search-index.ts';

const dbs: DatabaseSync[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

interface Row {
  id: number;
  status: string;
  type: string | null;
  user: string | null;
  anon: string | null;
  messageId: string | null;
  event: string | null;
  raw: string;
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
    `INSERT INTO messages (source_id, message_id, type, status, user_id, anonymous_id, event, received_at, raw) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  let n = 0;
  const add = (count: number) => {
    for (let i = 0; i < count; i++, n++) {
      const messageId = i % 13 === 0 ? null : `msg-${n}-${(n * 7) % 1000}`;
      const user = USERS[n % USERS.length] ?? null;
      const anon = n % 5 === 0 ? `anon_${n % 17}` : null;
      const event = EVENTS[n % EVENTS.length] ?? null;
      const identify = n % 4 === 3;
      // A rejected message's text need not be JSON: the path clauses must not fail on it.
      if (n % 29 === 28) {
        insert.run(null, null, 'rejected', null, null, null, n, `not json { ${user ?? ''}`);
        continue;
      }
      const payload = identify
        ? { type: 'identify', userId: user, anonymousId: anon, messageId, traits: { email: `${user ?? 'nobody'}@example.com`, plan: n % 3 ? 'pro' : 'free' } }
        : {
            type: 'track', event, userId: user, anonymousId: anon, messageId,
            properties: {
              sku: `sku_${n % 20}`, price: n % 50, ...(n % 7 === 0 ? { coupon: 'SAVE-10' } : {}), tags: ['new', n % 2 ? 'sale' : 'full'],
              ...(n % 3 === 1 ? { title: 'Tom & Jerry' } : {}),
              ...(n % 5 === 2 ? { note: 'Café visit\nline2\tnaïve 😀 smile' } : {}),
            },
            context: { page: { path: `/p/${n % 9}` } },
          };
      // As Go's encoding/json (analytics-go), Gson and .NET write it: & as \u0026; every other one as
      // Python's json.dumps does too (analytics-python): every non-ASCII character as \uXXXX.
      let json = JSON.stringify(payload).replaceAll('&', '\\u0026');
      if (n % 2) json = json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      insert.run(messageId, identify ? 'identify' : 'track', 'accepted', user, anon, identify ? null : event, n, json);
    }
  };
  return { db, repo: new MessagesRepo(db), indexer: searchIndexer(db), add };
}

function rows(db: DatabaseSync): Row[] {
  return db
    .prepare('SELECT id, status, type, user_id AS user, anonymous_id AS anon, message_id AS messageId, event, raw FROM messages ORDER BY id')
    .all() as unknown as Row[];
}

// The language's meaning, written out again in JavaScript (not with the parser's helpers): what every
// search must list, whatever the state of the indexes.
const lower = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
const WORD = 'a-z0-9\\u0080-\\uffff';
const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Words one after the other (separated by anything but a word character), the last a prefix when asked. */
function hasPhrase(text: string, words: string[], prefix: boolean): boolean {
  const body = words.map(escapeRe).join(`[^${WORD}]+`);
  return new RegExp(`(^|[^${WORD}])${body}${prefix ? '' : `($|[^${WORD}])`}`).test(lower(text));
}
/** LIKE with `*` for any characters, ASCII letters in any case. */
function like(text: string | null | undefined, pattern: string): boolean {
  if (text === null || text === undefined) return false;
  return new RegExp(`^${pattern.split('*').map((p) => escapeRe(lower(p))).join('.*')}$`, 's').test(lower(text));
}

/** The text as the client meant it: each JSON string literal read (JSON.parse), the rest as it is. */
const meant = (raw: string) =>
  raw.replace(/"(?:[^"\\]|\\.)*"/g, (literal) => {
    try {
      return `"${JSON.parse(literal) as string}"`;
    } catch {
      return literal;
    }
  });

type Test = (r: Row, json: Record<string, unknown> | null) => boolean;
const words = (text: string, quoted = false): Test => {
  const w = (text.match(/[A-Za-z0-9\u0080-\uffff]+/g) ?? []).map(lower);
  const prefix = !quoted && /[A-Za-z0-9\u0080-\uffff]$/.test(text) && w.at(-1)!.length >= 3;
  return (r) => hasPhrase(meant(r.raw), w, prefix);
};
const at = (json: Record<string, unknown> | null, path: string[]): unknown => path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), json);
const field = (path: string[], pattern: string): Test => (_r, json) => {
  const v = at(json, path);
  return v !== undefined && like(typeof v === 'string' ? v : JSON.stringify(v), pattern);
};
const not = (t: Test): Test => (r, j) => !t(r, j);
const all = (...ts: Test[]): Test => (r, j) => ts.every((t) => t(r, j));

/** Each query, and what it means. */
const QUERIES: [string, Test][] = [
  ['sku_17', words('sku_17')],
  ['SKU_1', words('SKU_1')], // "1" is too short to be a prefix: sku_1 only, not sku_17
  ['complet', words('complet')],
  ['"complet"', words('complet', true)],
  ['order -type:identify', all(words('order'), (r) => r.type !== 'identify')],
  ['properties.sku:sku_1*', field(['properties', 'sku'], 'sku_1*')],
  ['properties.price:>=45', (_r, j) => typeof at(j, ['properties', 'price']) === 'number' && (at(j, ['properties', 'price']) as number) >= 45],
  ['properties.price:12', field(['properties', 'price'], '12')],
  ['properties.coupon:save-10', field(['properties', 'coupon'], 'save-10')],
  ['-properties.coupon:*', not(field(['properties', 'coupon'], '*'))],
  ['properties.tags.1:sale', field(['properties', 'tags', '1'], 'sale')],
  ['context.page.path:/p/3', field(['context', 'page', 'path'], '/p/3')],
  ['userId:user_1*', (r) => like(r.user, 'user_1*')],
  ['userId:*@example.com', (r) => like(r.user, '*@example.com')],
  ['event:"Order Completed"', (r) => like(r.event, 'Order Completed')],
  ['messageId:msg-4*', (r) => like(r.messageId, 'msg-4*')],
  ['type:identify traits.email:*example*', all((r) => r.type === 'identify', field(['traits', 'email'], '*example*'))],
  ['traits.plan:PRO', field(['traits', 'plan'], 'PRO')],
  ['-order', not(words('order'))],
  ['zoë', words('zoë')],
  ['ZOË', words('ZOË')],
  ['Évent', words('Évent')],
  ['évent', words('évent')], // É is not ASCII: it is not folded, so none
  ['o"brien', words('o"brien')],
  ['json', words('json')], // in rejected messages' text
  ['example.com user', all(words('example.com'), words('user'))],
  ['status:rejected', (r) => r.status === 'rejected'],
  ['source:S', () => true],
  ['properties.title:"Tom & Jerry"', field(['properties', 'title'], 'Tom & Jerry')], // written \u0026 in the raw JSON
  ['properties.title:tom*', field(['properties', 'title'], 'tom*')],
  ['sku_1 ' + Array.from({ length: 31 }, (_, i) => `-w${i}`).join(' '), words('sku_1')], // many negated words: one NOT (… OR …)
  ['nothing-like-this', words('nothing-like-this')],
  // Words an encoder escaped: read as the client meant them.
  ['café', words('café')],
  ['line2', words('line2')], // after an escaped newline
  ['"visit line2 naïve"', words('visit line2 naïve', true)],
  ['😀', words('😀')], // two escaped halves of one character
  ['"tom & jerry"', words('tom & jerry', true)],
  ['properties.note:café*', field(['properties', 'note'], 'café*')], // through the word index, escaped or not
  ['properties.note:*NAÏVE*', field(['properties', 'note'], '*NAÏVE*')], // Ï is not folded: none
];

function expected(all: Row[], test: Test): number[] {
  return all
    .filter((r) => {
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(r.raw) as Record<string, unknown>;
      } catch {}
      return test(r, json);
    })
    .map((r) => r.id);
}

/** Every query, listed newest first in pages of 7 and in one page, oldest first in pages of 5, newest first by ids in pages of 6; and as live rows are tested. */
function checkAll(repo: MessagesRepo, db: DatabaseSync): void {
  const rowsNow = rows(db);
  for (const [query, test] of QUERIES) {
    const want = expected(rowsNow, test);
    if (rowsNow.length > 100 && !['nothing-like-this', '"complet"', 'ZOË', 'évent', 'properties.note:*NAÏVE*'].includes(query)) expect(want.length, `${query} finds some`).toBeGreaterThan(0);
    expect(repo.list({ search: query, limit: 10_000 }).map((m) => m.id), query).toEqual([...want].reverse());
    const paged: number[] = [];
    for (let before: number | undefined; ; ) {
      const page = repo.list({ search: query, limit: 7, ...(before !== undefined ? { beforeId: before } : {}) });
      paged.push(...page.map((m) => m.id));
      if (page.length < 7) break;
      before = page.at(-1)!.id;
    }
    expect(paged, `${query}, newest first in pages`).toEqual([...want].reverse());
    const ascending: number[] = [];
    for (let after = 0; ; ) {
      const ids = repo.findIds({ search: query }, 5, after);
      ascending.push(...ids);
      if (ids.length < 5) break;
      after = ids.at(-1)!;
    }
    expect(ascending, `${query}, oldest first`).toEqual(want);
    // GET /api/v1/messages?order=newest's read: the ids below each page's last, newest first.
    const descending: number[] = [];
    for (let below = 0; ; ) {
      const ids = repo.idsAfter({ where: [], params: [] }, query, below, 6, 'desc');
      descending.push(...ids);
      if (ids.length < 6) break;
      below = ids.at(-1)!;
    }
    expect(descending, `${query}, newest first by ids`).toEqual([...want].reverse());
    const some = rowsNow.filter((r) => r.id % 3 === 0).map((r) => r.id);
    expect([...repo.matchingIds(some, query)].sort((a, b) => a - b), `${query}, live rows`).toEqual(want.filter((id) => id % 3 === 0));
  }
}

const range = (db: DatabaseSync) => db.prepare('SELECT lo, hi FROM search_index').get() as { lo: number; hi: number };

it('finds what LIKE finds with nothing indexed, new messages indexed upwards, then everything', () => {
  const { db, repo, indexer, add } = store();
  add(300);
  expect(range(db)).toEqual({ lo: 1, hi: 0 }); // a new store: everything is newer than the index
  checkAll(repo, db);
  expect(indexer.step(120)).toBe(120); // ids 1–120 indexed, 121–300 read
  expect(range(db)).toEqual({ lo: 1, hi: 120 });
  checkAll(repo, db);
  while (indexer.step(120));
  expect(range(db)).toEqual({ lo: 1, hi: 300 });
  checkAll(repo, db);
  // With a time range too (a short one is read through the time index instead).
  const inRange = rows(db).filter((r) => r.id - 1 >= 50 && r.id - 1 <= 120);
  for (const [query, test] of QUERIES.slice(0, 8)) {
    expect(repo.list({ search: query, from: 50, to: 120, limit: 1000 }).map((m) => m.id), query).toEqual([...expected(inRange, test)].reverse());
  }
  add(40); // arrived since: read until indexed
  checkAll(repo, db);
});

it('indexes a store that had messages before the index, newest first, while searches stay whole', () => {
  const { db, repo, indexer, add } = store();
  add(300);
  // As migration 12 leaves a store that had 300 messages: nothing indexed, older ones to do.
  db.exec('UPDATE search_index SET lo = 301, hi = 300');
  expect(indexer.step(100)).toBe(100);
  expect(range(db)).toEqual({ lo: 201, hi: 300 });
  add(30); // new ones go first, then older ones fill the slice
  expect(indexer.step(100)).toBe(100); // the 30 new ones, and 70 older
  expect(range(db)).toEqual({ lo: 131, hi: 330 });
  checkAll(repo, db);
  add(5);
  expect(indexer.step(200)).toBe(135); // the 5 new ones and the last 130 older: fewer than the limit, none left
  expect(range(db)).toEqual({ lo: 1, hi: 335 });
  checkAll(repo, db);
  expect(indexer.step(100)).toBe(0);
});

it('a store from before the index whose oldest messages were removed is indexed to its end in one short slice', () => {
  const { db, repo, indexer, add } = store();
  add(300);
  db.exec('UPDATE search_index SET lo = 301, hi = 300');
  db.exec('DELETE FROM messages WHERE id <= 3'); // retention took the oldest before the index reached them
  expect(indexer.step(500)).toBe(297);
  // Short of its limit: nothing older is left, so the range reaches the start (a search reads nothing one by one).
  expect(range(db)).toEqual({ lo: 1, hi: 300 });
  checkAll(repo, db);
});

it('slices do not merge the indexes\' segments: the indexer\'s merge steps do, in steps, and no search changes', () => {
  const { db, repo, indexer, add } = store();
  const automerge = () => ['messages_search', 'messages_text'].map((t) => (db.prepare(`SELECT v FROM ${t}_config WHERE k = 'automerge'`).get() as { v: number } | undefined)?.v);
  expect(automerge()).toEqual([0, 0]); // the writer's indexer merges (writer/index-scheduler.ts), FTS5 does not
  const pages = () => ['messages_search', 'messages_text'].map((t) => (db.prepare(`SELECT count(*) AS n FROM ${t}_data`).get() as { n: number }).n);
  add(300);
  while (indexer.step(10)); // 30 slices: 30 segments in each index (FTS5 merges 16 of them by itself: 'crisismerge')
  const before = pages();
  checkAll(repo, db);
  let steps = 0;
  while (indexer.merge(1)) expect(++steps).toBeLessThan(100);
  expect(steps).toBeGreaterThan(1); // a page at a time: more than one step
  const after = pages();
  expect(after[0]).toBeLessThan(before[0]!);
  expect(after[1]).toBeLessThan(before[1]!);
  expect(indexer.merge(16)).toBe(false); // nothing left to merge
  // A level is merged once it holds four segments, not everything into one (that is retention's merge).
  const segments = (db.prepare('SELECT count(DISTINCT segid) AS n FROM messages_text_idx').get() as { n: number }).n;
  expect(segments).toBeGreaterThan(1);
  checkAll(repo, db);
  // Emptying the indexes (a reset) keeps the setting.
  db.exec("INSERT INTO messages_text (messages_text) VALUES ('delete-all')");
  expect(automerge()).toEqual([0, 0]);
  // The setting is written once: another writer start reads it and writes nothing.
  const changes = () => Number((db.prepare('SELECT total_changes() AS n').get() as { n: number }).n);
  const before2 = changes();
  searchIndexer(db);
  expect(changes()).toBe(before2);
});

it('a store whose indexes\' setting cannot be written still gets its indexer, and the log says why', () => {
  const { db, add } = store();
  add(20);
  db.exec("INSERT INTO messages_search (messages_search, rank) VALUES ('automerge', 4)"); // as a store from before
  const file = path.join(path.dirname(db.location()!), DATABASE_FILE);
  const readOnly = new DatabaseSync(file, { readOnly: true });
  dbs.push(readOnly);
  registerSqlFunctions(readOnly);
  const lines: string[] = [];
  searchIndexer(readOnly, (line) => lines.push(line));
  expect(lines).toEqual([expect.stringMatching(/^sluice: could not turn FTS5's own merging off for messages_search \(attempt to write a readonly database\); it merges as it indexes until the next start$/)]);
});

it('refuses a search of more than 32 clauses, saying so', () => {
  const { repo, add } = store();
  add(10);
  expect(() => repo.list({ search: Array.from({ length: 33 }, (_, i) => `w${i}`).join(' ') })).toThrow('a search takes at most 32 clauses');
});

it('reads through the indexes where they cover the messages (an entry missing from one is not found)', () => {
  const { db, repo, indexer, add } = store();
  add(50);
  while (indexer.step(100));
  const target = repo.list({ search: 'sku_13', limit: 100 })[0]!;
  const raw = (db.prepare('SELECT raw FROM messages WHERE id = ?').get(target.id) as { raw: string }).raw;
  db.prepare("INSERT INTO messages_text (messages_text, rowid, raw) VALUES ('delete', ?, sluice_word_text(?))").run(target.id, raw);
  expect(repo.list({ search: 'sku_13', limit: 100 }).map((m) => m.id)).not.toContain(target.id);
  // A path clause with words is read through the word index too; one without, from the messages.
  expect(repo.list({ search: 'properties.sku:sku_13', limit: 100 }).map((m) => m.id)).not.toContain(target.id);
  expect(repo.list({ search: 'properties.price:>=0', limit: 1000 }).map((m) => m.id)).toContain(target.id);
  // A column clause is read through the trigram index when it has 3 characters in a row.
  const user = repo.list({ search: 'userId:user_123', limit: 100 })[0]!;
  db.prepare("INSERT INTO messages_search (messages_search, rowid, user_id, anonymous_id, message_id, event) VALUES ('delete', ?, ?, ?, ?, ?)").run(
    user.id,
    ...[user.userId, user.anonymousId, user.messageId, user.event].map((v) => v?.replace(/[A-Z]/g, (c) => c.toLowerCase()) ?? null),
  );
  expect(repo.list({ search: 'userId:user_123', limit: 100 }).map((m) => m.id)).not.toContain(user.id);
  expect(repo.list({ search: 'userId:*r_*', limit: 1000 }).map((m) => m.id)).toContain(user.id); // 2 characters: read
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
  db.exec("INSERT INTO messages_text (messages_text) VALUES ('integrity-check')");
  db.exec('DELETE FROM messages'); // everything
  expect(range(db)).toEqual({ lo: 1, hi: 0 });
  add(20);
  checkAll(repo, db);
});

it('a running Sluice indexes what it receives, and a store from before the index in the background; searches answer throughout', async () => {
  const dataDir = tempDir('sluice-search-core-');
  dirs.push(dataDir);
  const caughtUp = () => indexCaughtUp(dataDir, 5_000, 25);
  let core = await startCore({ dataDir });
  const batch = (from: number) => ({ batch: Array.from({ length: 400 }, (_, i) => ({ type: 'track', event: 'Played', userId: `player_${from + i}` })) });
  expect((await post(core, '/v1/batch', batch(0))).status).toBe(200);
  await caughtUp();
  const found = await core.operations['messages.list']({ search: 'PLAYER_399 event:played', limit: 100 });
  expect(found.messages.map((m) => m.userId)).toEqual(['player_399']);
  await core.dispose();

  // As migrations 11 and 12 find a store of an earlier Sluice: messages, no index.
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
  db.exec("INSERT INTO messages_search (messages_search) VALUES ('delete-all'); INSERT INTO messages_text (messages_text) VALUES ('delete-all'); UPDATE search_index SET lo = (SELECT max(id) FROM messages) + 1, hi = (SELECT max(id) FROM messages)");
  db.close();
  core = await startCore({ dataDir });
  expect((await core.operations['messages.list']({ search: 'userId:player_12*', limit: 100 })).messages.length).toBe(11); // read while not indexed: player_12, _120…_129
  expect((await core.operations['messages.list']({ search: 'player_12', limit: 100 })).messages.length).toBe(1); // the words player and 12: "12" is too short to be a prefix
  expect((await post(core, '/v1/batch', batch(400))).status).toBe(200);
  await caughtUp();
  expect((await core.operations['messages.list']({ search: 'userId:player_12*', limit: 100 })).messages.length).toBe(11);
  expect((await core.operations['messages.list']({ search: 'player_12', limit: 100 })).messages.length).toBe(1);
  expect((await core.operations['messages.list']({ search: 'player_799', limit: 100 })).messages.map((m) => m.userId)).toEqual(['player_799']);
  await core.dispose();
});
