// Reads on the request thread (and the list pages of ids, which the counting thread reads too) that must
// not grow with the size of the store: what the repos' statements return (counted through a recording
// wrapper of the connection) and how SQLite plans them.
import fs from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { DeliveriesRepo } from '../../../electron/core/store/deliveries-repo.ts';
import { DestinationsRepo } from '../../../electron/core/store/destinations-repo.ts';
import { MessagesRepo } from '../../../electron/core/store/messages-repo.ts';
import { searchIndexer } from '../../../electron/core/store/search-index.ts';
import { SourcesRepo } from '../../../electron/core/store/sources-repo.ts';
import { filterSql } from '../../../electron/core/queries/filter-sql.ts';
import { tempDir } from '../../helpers/core.ts';

const opened: { db: DatabaseSync; dir: string }[] = [];
afterEach(() => {
  for (const { db, dir } of opened.splice(0)) {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A connection whose statements count the rows they return, and remember their SQL and the values they were last run with. */
function recorded() {
  const dir = tempDir();
  const db = openDatabase(dir);
  opened.push({ db, dir });
  const statements: { sql: string; rows: number; values: (string | number)[] }[] = [];
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (sql: string) => {
          const statement = target.prepare(sql);
          // An entry per statement prepared, and one more per run after its first (a repo keeps some, e.g. MessagesRepo's composed reads).
          let entry: { sql: string; rows: number; values: (string | number)[] } | undefined = { sql, rows: 0, values: [] };
          statements.push(entry);
          return new Proxy(statement, {
            get(s, p) {
              if (p === 'all') {
                return (...args: never[]) => {
                  const run = entry ?? { sql, rows: 0, values: [] };
                  if (!entry) statements.push(run);
                  entry = undefined;
                  run.values = args;
                  const rows = s.all(...args);
                  run.rows += rows.length;
                  return rows;
                };
              }
              const value = Reflect.get(s, p) as unknown;
              return typeof value === 'function' ? value.bind(s) : value;
            },
          });
        };
      }
      const value = Reflect.get(target, prop) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const rowsRead = () => statements.reduce((n, s) => n + s.rows, 0);
  const plan = (sql: string, ...params: (string | number)[]) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
  return { db, proxy, statements, rowsRead, plan };
}

it('messages.byIds of two far-apart ids reads those two rows, not every message between them', () => {
  const { db, proxy, rowsRead } = recorded();
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
    INSERT INTO messages (source_id, message_id, type, status, user_id, received_at, raw)
    SELECT 1, 'm' || i, 'track', 'accepted', 'u', i, '{}' FROM n`);
  const messages = new MessagesRepo(proxy);
  const before = rowsRead();
  expect(messages.byIds([20000, 1, 20000]).map((m) => m.id)).toEqual([1, 20000]);
  expect(rowsRead() - before).toBe(2);
  // Ids of one commit, close together, still come back whole and in id order.
  expect(messages.byIds([12, 10, 11]).map((m) => m.id)).toEqual([10, 11, 12]);
});

it("a destination's open deliveries are read from the partial index of open deliveries, not by scanning all deliveries", () => {
  const { proxy, statements, plan } = recorded();
  const destinations = new DestinationsRepo(proxy, new SourcesRepo(proxy));
  expect(destinations.openDeliveryIds(1)).toEqual([]);
  const sql = statements.find((s) => /FROM deliveries/.test(s.sql))!.sql;
  const steps = plan(sql, 1);
  expect(steps.some((step) => /USING (COVERING )?INDEX deliveries_destination_due\b/.test(step))).toBe(true);
  expect(steps.filter((step) => /^SCAN deliveries$/.test(step))).toEqual([]);
});

it('the count of deliveries waiting to be sent is read from the partial index of open deliveries, not the table', () => {
  const { proxy, statements, plan } = recorded();
  const deliveries = new DeliveriesRepo(proxy);
  expect(deliveries.waitingCount()).toBe(0);
  const sql = statements.find((s) => /count\(\*\) AS n FROM deliveries WHERE status IN/.test(s.sql))!.sql;
  const steps = plan(sql);
  expect(steps.some((step) => /USING (COVERING )?INDEX deliveries_destination_due\b/.test(step))).toBe(true);
  expect(steps.filter((step) => /^SCAN deliveries$/.test(step))).toEqual([]);
});

it('a list page of ids, newest first or oldest first, walks the rowids or a search index in that order: no sort, whatever the filter', () => {
  const { db, proxy, statements, plan } = recorded();
  // 3,000 messages; the search indexes hold ids 1,001 to 2,000, so a read through them has all three
  // parts (above the indexed ids, through the index, below them: store/message-search.ts).
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
    INSERT INTO messages (source_id, message_id, type, status, user_id, event, received_at, raw)
    SELECT 1, 'm' || i, CASE WHEN i % 10 = 0 THEN 'identify' ELSE 'track' END, 'accepted', 'user-' || (i % 97),
      CASE WHEN i % 10 = 0 THEN NULL WHEN i % 2 = 0 THEN 'Product Viewed' ELSE 'Order Completed' END, i,
      json_object('type', CASE WHEN i % 10 = 0 THEN 'identify' ELSE 'track' END, 'userId', 'user-' || (i % 97), 'messageId', 'm' || i,
        'event', CASE WHEN i % 10 = 0 THEN NULL WHEN i % 2 = 0 THEN 'Product Viewed' ELSE 'Order Completed' END)
    FROM n`);
  db.exec('UPDATE search_index SET lo = 1001, hi = 1000 WHERE id = 1');
  searchIndexer(db).step(1000);
  const messages = new MessagesRepo(proxy);
  // The filters the API's lists get most, as their terms (queries/filter-sql.ts), a query as sluice mcp's
  // search_messages sends one, and the search index each reads through.
  const cases = [
    { filter: {}, index: null },
    { filter: { type: 'identify' }, index: null },
    { filter: { event: 'Product Viewed' }, index: 'messages_text' },
    { filter: { userId: 'user-5' }, index: 'messages_search' },
    { filter: {}, search: 'event:"Product Viewed"', index: 'messages_search' },
  ] as const;
  // A line of a plan that reads the messages by rowid: the whole table in rowid order, or a range of it.
  const byRowid = /^(SCAN m|SEARCH m USING INTEGER PRIMARY KEY \(rowid[<>]\?( AND rowid[<>]\?)?\))$/;
  for (const { filter, index, ...query } of cases) {
    const search = 'search' in query ? query.search : undefined;
    for (const order of ['desc', 'asc'] as const) {
      // From the newest (or oldest) end, and from a cursor in the middle of the indexed ids.
      for (const afterId of [0, 1500]) {
        const what = `${JSON.stringify({ ...filter, search })} ${order} after ${afterId}`;
        statements.length = 0;
        // A limit past the matches: every part is read.
        const ids = messages.idsAfter(filterSql(filter), search, afterId, 5000, order);
        expect(ids.length, what).toBeGreaterThan(0);
        expect(ids, what).toEqual([...ids].sort((a, b) => (order === 'desc' ? b - a : a - b)));
        // The reads of ids (the indexed range is read first, by its one row).
        const plans = statements.filter((s) => s.sql.startsWith('SELECT m.id ')).map((s) => ({ sql: s.sql, steps: plan(s.sql, ...s.values) }));
        expect(plans.length, what).toBe(index ? 3 : 1);
        for (const { sql, steps } of plans) {
          const shown = `${what}: ${steps.join(' | ')}`;
          expect(steps.filter((step) => /TEMP B-TREE/.test(step)), shown).toEqual([]);
          if (/ MATCH \?/.test(sql)) {
            // Through the index: its rowids in the order asked (FTS5 gives them so), each message looked up by id.
            expect(sql, shown).toContain(`FROM ${index} s`);
            expect(sql, shown).toMatch(new RegExp(`ORDER BY s\\.rowid ${order.toUpperCase()} LIMIT \\d+$`));
            expect(steps, shown).toEqual([expect.stringMatching(/^SCAN s VIRTUAL TABLE INDEX \d+:/), 'SEARCH m USING INTEGER PRIMARY KEY (rowid=?)']);
          } else {
            expect(sql, shown).toMatch(new RegExp(`ORDER BY m\\.id ${order.toUpperCase()} LIMIT \\d+$`));
            expect(steps, shown).toEqual([expect.stringMatching(byRowid)]);
          }
        }
        // A filter an index narrows reads through it; the others read no index.
        expect(plans.filter((p) => / MATCH \?/.test(p.sql)).length, what).toBe(index ? 1 : 0);
      }
    }
  }
});
