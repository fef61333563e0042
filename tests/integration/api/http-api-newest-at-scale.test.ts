// GET /api/v1/messages?order=newest (what sluice mcp's search_messages asks) on a store of more than
// SMALL_STORE_ROWS messages, where the list's ids are read on the counting thread (count-worker.ts)
// rather than the core's: http-api.test.ts covers a small store, read on the core's thread. The store is
// a real one made by the migrations, its rows written in one transaction (ingesting 21,000 messages
// through HTTP would take most of a minute), and its search indexes hold only a slice in the middle of
// its ids: a search then reads three parts (above the slice by testing rows, the slice through the
// index, below it by testing rows), and pages cross from one part to the next. The writer does not
// index (searchIndex: false), so that state holds while the test pages. The expected pages are
// computed in JavaScript from the rows written.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { SMALL_STORE_ROWS } from '../../../electron/core/queries/store-reader.ts';
import type { IdsQuery } from '../../../electron/core/store/message-counter.ts';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { indexedRange, searchIndexer } from '../../../electron/core/store/search-index.ts';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const STORED = SMALL_STORE_ROWS + 1_500;
/** The ids the search indexes hold: 1,000 in the middle, so that more than SMALL_STORE_ROWS are not indexed. */
const INDEXED = { lo: Math.floor(STORED / 2), hi: Math.floor(STORED / 2) + 999 };
const EVENTS = ['Order Completed', 'Product Viewed', 'Cart Viewed'];

interface Written {
  id: number;
  type: 'track' | 'identify';
  event: string | null;
  userId: string;
  origin: 'ingest' | 'plan';
}

/** Row i (its id, as the table was empty): mostly tracks of three events, every tenth an identify, a few Violation Generated events a plan forwarded. */
function rowAt(i: number): Written {
  const userId = `user-${i % 97}`;
  if (i % 250 === 0) return { id: i, type: 'track', event: 'Violation Generated', userId, origin: 'plan' };
  if (i % 10 === 0) return { id: i, type: 'identify', event: null, userId, origin: 'ingest' };
  return { id: i, type: 'track', event: EVENTS[i % 3]!, userId, origin: 'ingest' };
}

const written = Array.from({ length: STORED }, (_, i) => rowAt(i + 1));
const dataDir = tempDir();
let core: TestCore;
let ui: UiServer;
/** What the counting thread was asked, and how often the core's thread read ids itself. */
const countingJobs: IdsQuery[] = [];
let mainThreadReads = 0;

beforeAll(async () => {
  // A first start makes the store (migrations, the default source); then the rows go straight into the file.
  const first = await startCore({ dataDir });
  const sourceId = first.sources.list()[0]!.id;
  await first.close();
  const db = openDatabase(dataDir);
  // Received over the last seconds: retention (30 days by default) has nothing to prune.
  const receivedFrom = Date.now() - STORED;
  const insert = db.prepare(
    'INSERT INTO messages (id, source_id, message_id, type, status, origin, user_id, event, received_at, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  db.exec('BEGIN');
  for (const row of written) {
    const messageId = `m-${row.id}`;
    const raw = JSON.stringify({ type: row.type, ...(row.event === null ? { traits: { n: row.id } } : { event: row.event, properties: { n: row.id } }), userId: row.userId, messageId });
    insert.run(row.id, sourceId, messageId, row.type, 'accepted', row.origin, row.userId, row.event, receivedFrom + row.id, raw);
  }
  db.exec('COMMIT');
  // The writer's own indexer, started at the slice's low end: it indexes upwards from there.
  db.prepare('UPDATE search_index SET lo = ?, hi = ? WHERE id = 1').run(INDEXED.lo, INDEXED.lo - 1);
  searchIndexer(db).step(INDEXED.hi - INDEXED.lo + 1);
  expect(indexedRange(db)).toEqual(INDEXED);
  db.close();

  core = await startCore({ dataDir, searchIndex: false });
  ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
  await ui.listen();
  // Called through, only counted: which thread read each step of ids.
  const ids = core.counter.ids.bind(core.counter);
  core.counter.ids = (query, lane) => (countingJobs.push(query), ids(query, lane));
  const idsAfter = core.messages.idsAfter.bind(core.messages);
  core.messages.idsAfter = (...args) => (mainThreadReads++, idsAfter(...args));
}, 120_000);

afterAll(async () => {
  await ui?.close();
  await core?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function api(path: string): Promise<{ status: number; json: any }> {
  const res = await request(`${ui.apiUrl}${path}`, { headers: { authorization: `Bearer ${ui.token}` } });
  return { status: res.statusCode, json: JSON.parse(await res.body.text()) };
}

/** Every page of the list in `order`, following each page's next; each page as its messages' sequences (their row ids). */
async function pages(params: string, order: 'newest' | 'oldest', limit: number): Promise<number[][]> {
  const out: number[][] = [];
  let next: string | null = null;
  do {
    const query = [params, `order=${order}`, `limit=${limit}`, ...(next ? [`after=${next}`] : [])].filter(Boolean).join('&');
    const res = await api(`/messages?${query}`);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    out.push(res.json.messages.map((m: { sequence: number }) => m.sequence));
    next = res.json.next;
    // A cursor that reads the wrong way round would page for ever.
    expect(out.length, `${params} ${order}: more pages than the store holds`).toBeLessThanOrEqual(Math.ceil(STORED / limit) + 1);
  } while (next !== null);
  return out;
}

// Each filter as the API's parameters, what it means on the rows written, and a page size: odd sizes,
// so that pages end anywhere, some across the indexed slice's edges (the test checks that they do).
const LISTS: { label: string; params: string; keep: (row: Written) => boolean; limit: number }[] = [
  { label: 'type=identify', params: 'type=identify', keep: (row) => row.type === 'identify', limit: 251 },
  { label: 'event=Product Viewed', params: `event=${encodeURIComponent('Product Viewed')}`, keep: (row) => row.event === 'Product Viewed', limit: 333 },
  { label: 'userId=user-5', params: 'userId=user-5', keep: (row) => row.userId === 'user-5', limit: 38 },
  // As search_messages sends a query: through the trigram index where it covers the rows.
  { label: 'search=event:"Cart Viewed" userId:user-4', params: `search=${encodeURIComponent('event:"Cart Viewed" userId:user-4')}`, keep: (row) => row.event === 'Cart Viewed' && row.userId === 'user-4', limit: 7 },
  // No filter: every message but the Violation Generated events, which lists leave out unless asked.
  { label: 'every message', params: '', keep: () => true, limit: 1000 },
];

describe(`GET /api/v1/messages on a store of ${STORED.toLocaleString('en-US')} messages (read on the counting thread)`, () => {
  for (const { label, params, keep, limit } of LISTS) {
    it(`order=newest pages ${label} newest first, without a gap or a repeat; oldest first lists the same messages`, async () => {
      const expected = written.filter((row) => row.origin !== 'plan' && keep(row)).map((row) => row.id);
      expect(expected.length).toBeGreaterThan(limit); // more than one page
      expect(expected.length).toBeLessThan(written.length); // a subset (the Violation Generated events at least)

      const jobsBefore = countingJobs.length;
      const readsBefore = mainThreadReads;
      const newest = await pages(params, 'newest', limit);
      const newestJobs = countingJobs.slice(jobsBefore);
      // Each page strictly falling, and each page below the one before: no repeat, no page out of order.
      for (const [n, page] of newest.entries()) {
        expect(page.length, `page ${n}`).toBeGreaterThan(0);
        for (let i = 1; i < page.length; i++) expect(page[i]!, `page ${n}, row ${i}`).toBeLessThan(page[i - 1]!);
        if (n > 0) expect(page[0]!, `page ${n} starts below page ${n - 1}'s end`).toBeLessThan(newest[n - 1]!.at(-1)!);
      }
      // Full pages but the last, and together exactly the matches, newest first: no gap.
      expect(newest.slice(0, -1).every((page) => page.length === limit)).toBe(true);
      expect(newest.flat()).toEqual([...expected].reverse());
      // Some page holds ids on both sides of each edge of the indexed slice (above `edge`, and at or below it).
      for (const edge of [INDEXED.hi, INDEXED.lo - 1]) expect(newest.some((page) => page[0]! > edge && page.at(-1)! <= edge), `a page across ${edge}`).toBe(true);

      const oldest = await pages(params, 'oldest', limit);
      expect(oldest.flat()).toEqual(expected);
      expect([...newest.flat()].sort((a, b) => a - b)).toEqual(oldest.flat());

      // Every step of ids was read on the counting thread, newest first while the list was.
      expect(newestJobs.length).toBeGreaterThanOrEqual(newest.length);
      expect(newestJobs.every((job) => job.of === 'messages' && job.newestFirst === true)).toBe(true);
      expect(countingJobs.slice(jobsBefore + newestJobs.length).every((job) => !job.newestFirst)).toBe(true);
      expect(mainThreadReads - readsBefore).toBe(0);
    });
  }
});
