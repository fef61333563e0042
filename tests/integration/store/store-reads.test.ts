// Reads on the request thread that must not grow with the size of the store: what the repos'
// statements return (counted through a recording wrapper of the connection) and how SQLite plans them.
import fs from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { DeliveriesRepo } from '../../../electron/core/store/deliveries-repo.ts';
import { DestinationsRepo } from '../../../electron/core/store/destinations-repo.ts';
import { MessagesRepo } from '../../../electron/core/store/messages-repo.ts';
import { SourcesRepo } from '../../../electron/core/store/sources-repo.ts';
import { tempDir } from '../../helpers/core.ts';

const opened: { db: DatabaseSync; dir: string }[] = [];
afterEach(() => {
  for (const { db, dir } of opened.splice(0)) {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** A connection whose statements count the rows they return, and remember their SQL. */
function recorded() {
  const dir = tempDir();
  const db = openDatabase(dir);
  opened.push({ db, dir });
  const statements: { sql: string; rows: number }[] = [];
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'prepare') {
        return (sql: string) => {
          const statement = target.prepare(sql);
          const entry = { sql, rows: 0 };
          statements.push(entry);
          return new Proxy(statement, {
            get(s, p) {
              if (p === 'all') {
                return (...args: never[]) => {
                  const rows = s.all(...args);
                  entry.rows += rows.length;
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
