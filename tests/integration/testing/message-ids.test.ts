// A messageId is read by id through B-trees (store/message-ids.ts; issue 26): a wait's first look, GET
// /api/v1/messages/{id} and messageById do a few index lookups however many messages are stored, where
// a trigram search plus the messages its index did not cover yet cost milliseconds at a million. The
// plans are SQLite's own; the reads are checked against every stored message filtered in JavaScript,
// for every status, two sources and ids too short for the trigram index.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { deliveryTerms, filterSql } from '../../../electron/core/queries/filter-sql.ts';
import { matches, type MessageFilter } from '../../../electron/core/queries/filters.ts';
import { openDatabase } from '../../../electron/core/store/database.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const FILTERS: MessageFilter[] = [
  { messageId: 'shared-id' },
  { messageId: 'shared-id', status: 'accepted' },
  { messageId: 'shared-id', status: 'duplicate' },
  { messageId: 'ab' },
  { messageId: 'refused-id' },
  { messageId: 'refused-id', status: 'rejected' },
  { messageId: '12345' }, // a refused message's messageId that is a number: its column is empty
  { messageId: '12345', status: 'rejected' },
  { messageId: 'nowhere' },
  { messageId: '5f3c0a-nowhere' },
];
/**
 * A read of every row: a scan, or a walk of the rowids from the page's start (`m.id > ?`). A scan of the
 * messages not accepted (a partial index: refused and duplicate rows only) is allowed.
 */
const SCANS = /^SCAN (m|messages|a|u|dv)\b(?! USING INDEX messages_unaccepted\b)|^SEARCH (m|dv) USING INTEGER PRIMARY KEY \(rowid>\?\)|VIRTUAL TABLE/;

describe('a messageId read through B-trees', () => {
  it("SQLite reads the terms of a filter naming a messageId by index lookups, never scanning messages, deliveries or a search index", () => {
    const dir = tempDir();
    const db = openDatabase(dir);
    try {
      const plan = (sql: string, params: (string | number)[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
      for (const filter of FILTERS) {
        const terms = filterSql(filter);
        expect(terms.index, JSON.stringify(filter)).toBeUndefined();
        const messages = plan(`SELECT m.id FROM messages m WHERE m.id > ? AND ${terms.where.join(' AND ')} ORDER BY m.id LIMIT ?`, [0, ...terms.params, 500]);
        expect(messages.filter((step) => SCANS.test(step)), `${JSON.stringify(filter)}: ${messages.join(' | ')}`).toEqual([]);
        const d = deliveryTerms({ message: filter });
        const deliveries = plan(`SELECT dv.id FROM deliveries dv JOIN messages m ON m.id = dv.message_id WHERE dv.id > ? AND ${d.where.join(' AND ')} ORDER BY dv.id LIMIT ?`, [0, ...d.params, 500]);
        expect(deliveries.filter((step) => SCANS.test(step)), `${JSON.stringify(filter)}: ${deliveries.join(' | ')}`).toEqual([]);
      }
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('against every stored message filtered in JavaScript', () => {
    let core: TestCore;
    beforeAll(async () => {
      const config = parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'app', writeKey: 'wk_app' }] }));
      core = await startCore({ config });
      const web = { ingestUrl: core.ingestUrl, writeKey: 'wk_web' };
      const app = { ingestUrl: core.ingestUrl, writeKey: 'wk_app' };
      for (const [to, body] of [
        [app, { userId: 'u', event: 'First', messageId: 'shared-id' }], // accepted in app, oldest
        [web, { userId: 'u', event: 'Second', messageId: 'shared-id' }], // accepted in web
        [web, { userId: 'u', event: 'Second', messageId: 'shared-id' }], // a duplicate in web
        [web, { userId: 'u', event: 'Short', messageId: 'ab' }],
        [web, { userId: 'u', messageId: 'refused-id' }], // no event: refused
        [web, { userId: 'u', event: 'Numbered', messageId: 12345 }], // a messageId that is no string: refused
        [web, { userId: 'u', event: 'Other', messageId: 'other-id' }],
      ] as const) expect((await post(to, '/v1/track', body)).status).toBeLessThan(500);
      await core.queries.waitForMessages({ messageId: 'other-id' });
    });
    afterAll(() => core?.dispose());

    it('lists, waits and messageById find exactly what the filter matches, of every status and source', async () => {
      const everything = await core.queries.rows({ origin: 'ingest' });
      expect(everything.map((row) => row.message.status)).toEqual(['accepted', 'accepted', 'duplicate', 'accepted', 'rejected', 'rejected', 'accepted']);
      for (const filter of FILTERS) {
        const expected = everything.filter((row) => matches(row.message, filter));
        expect(await core.queries.rows(filter), JSON.stringify(filter)).toEqual(expected);
        expect(expected.length > 0, JSON.stringify(filter)).toBe(!filter.messageId!.includes('nowhere'));
      }
      // A wait counts accepted messages only: both sources' copies, oldest first.
      expect((await core.queries.waitForMessages({ messageId: 'shared-id' }, { count: 2 })).map((m) => [m.source, m.event])).toEqual([['app', 'First'], ['web', 'Second']]);
      expect((await core.queries.waitForMessages({ messageId: 'ab' })).map((m) => m.event)).toEqual(['Short']);
      expect((await core.queries.messageById('shared-id'))?.message).toMatchObject({ source: 'app', status: 'accepted' });
      expect((await core.queries.messageById('refused-id'))?.message).toMatchObject({ status: 'rejected' });
      expect(await core.queries.messageById('nowhere')).toBeUndefined();
      expect((await core.queries.messageById('12345'))?.message).toMatchObject({ status: 'rejected', event: 'Numbered' });
    });

    it('writes a status or origin into the SQL only when it is a plain word, and binds anything else', async () => {
      // Written in, a statement is not prepared again at each run (store/prepared.ts partialIndexTerm).
      const plain = filterSql({ messageId: 'shared-id', status: 'accepted', origin: 'ingest' });
      expect(plain.where).toEqual(expect.arrayContaining(["m.status = 'accepted'", "m.origin = 'ingest'"]));
      expect(plain.params).not.toContain('accepted');
      expect(deliveryTerms({ message: {}, status: 'delivered' }).where).toContain("dv.status = 'delivered'");
      // A value with a quote in it is bound: it matches nothing, and opens nothing.
      const quoted = "accepted' OR '1'='1";
      const bound = filterSql({ status: quoted, origin: quoted } as unknown as MessageFilter);
      expect(bound.where).toEqual(expect.arrayContaining(['m.status = ?', 'm.origin = ?']));
      expect(bound.params.filter((value) => value === quoted)).toHaveLength(2);
      // (The queries refuse such a status before any SQL: it reaches the store only from a caller inside.)
      await expect(core.queries.rows({ status: quoted } as unknown as MessageFilter)).rejects.toThrow('filter.status must be one of');
      const db = openDatabase(core.dataDir);
      try {
        expect(db.prepare(`SELECT m.id FROM messages m WHERE ${bound.where.join(' AND ')}`).all(...bound.params)).toEqual([]);
        expect(db.prepare(`SELECT m.id FROM messages m WHERE ${filterSql({ status: 'duplicate' }).where.join(' AND ')}`).all()).toHaveLength(1);
      } finally {
        db.close();
      }
      // The words themselves still filter as before.
      expect((await core.queries.rows({ status: 'duplicate' })).map((row) => row.message.event)).toEqual(['Second']);
    });
  });
});
