// The search indexes under retention, in a real core: a contentless FTS5 index keeps what each
// 'delete' took out (and the 'delete' itself) until a merge writes its oldest segment again, so a
// store that prunes as much as it receives had indexes growing with everything ever sent. The pruner
// merges them (store/search-index.ts indexMerger) once enough was removed: they stay near the size
// of a fresh index of the messages kept, and still answer searches. Real HTTP, SQLite.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { registerSqlFunctions } from '../../../electron/core/store/sql-functions.ts';
import { DatabaseSync } from '../../../electron/core/store/sqlite.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { indexCaughtUp, indexSizes } from '../../helpers/search-index.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

const none = { maxAgeDays: null, maxMessages: null, maxBytes: null };

/** Messages as a browser's analytics library sends them: random ids (many distinct trigrams), a page, properties. */
function batch(round: number, n: number) {
  const id = (i: number, salt: number) => ((round * 1_000_003 + i) * 2_654_435_761 + salt).toString(36).padStart(12, '0');
  return {
    batch: Array.from({ length: n }, (_, i) => ({
      type: 'track',
      event: ['Product Viewed', 'Order Completed', 'Signed In'][i % 3],
      messageId: `m-${round}-${i}-${id(i, 1)}`,
      anonymousId: `${id(i, 2)}-${id(i, 3)}`,
      userId: `user_${(round * n + i) % 700}`,
      properties: { url: `https://shop.example.com/p/${id(i, 4)}`, orderId: `o_${round}_${i}`, revenue: (i % 97) + 0.99 },
    })),
  };
}

describe('the search indexes under retention', () => {
  it('stay near a fresh index of the messages kept while pruning removes as much as arrives, and still answer searches', async () => {
    const dataDir = tempDir();
    // Each round's pass is the test's (pruner.run()): the test runs about 4 s, and the timer's first pass,
    // 5 s after start, landing in a round would prune that round's messages before the test's run().
    const core: TestCore = await startCore({ dataDir, config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'server' }], destinations: [], retention: none }, scheduledPrunes: false });
    open.push({ close: async () => (await core.close(), fs.rmSync(dataDir, { recursive: true, force: true })) });
    await core.pruner.setRetention({ ...none, maxMessages: 1000 });
    const ratios: number[] = [];
    for (let round = 0; round < 12; round++) {
      for (let half = 0; half < 2; half++) expect((await post(core, '/v1/batch', batch(round * 2 + half, 500), { writeKey: 'wk_web' })).status).toBe(200);
      await indexCaughtUp(dataDir);
      const report = await core.pruner.run();
      if (round > 0) expect(report).toMatchObject({ reason: 'maxMessages', messages: 1000 });
      const { indexes, fresh } = indexSizes(dataDir);
      ratios.push(indexes / fresh);
    }
    // Without the merges the indexes swung between 2.4× and 6.7× a fresh index from the fifth round
    // on (measured); merged, 0.96–1.27× (the b-tree's half-empty pages count too).
    expect(Math.max(...ratios.slice(4))).toBeLessThan(1.6);

    // The merged indexes are whole (FTS5's own check) and answer: what is kept is found, what went is not.
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE));
    db.exec('PRAGMA busy_timeout = 5000');
    registerSqlFunctions(db);
    try {
      for (const table of ['messages_search', 'messages_text']) db.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 0)`);
    } finally {
      db.close();
    }
    const kept = batch(23, 500).batch[7]!;
    const gone = batch(21, 500).batch[7]!;
    expect((await core.operations['messages.list']({ search: kept.messageId, limit: 10 })).messages.map((m) => m.messageId)).toEqual([kept.messageId]);
    expect((await core.operations['messages.list']({ search: kept.properties.url.split('/').at(-1)!, limit: 10 })).messages.map((m) => m.messageId)).toEqual([kept.messageId]);
    expect((await core.operations['messages.list']({ search: gone.messageId, limit: 10 })).messages).toEqual([]);
  }, 120_000);

  it('count what a purge removed toward the next merge, and keep that count across a restart', async () => {
    const dataDir = tempDir();
    const config = { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'server' as const }], destinations: [], retention: none };
    const unmerged = () => {
      const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
      try {
        const row = db.prepare("SELECT value FROM settings WHERE key = 'retention.unmergedRemovals'").get() as { value: string } | undefined;
        return JSON.parse(row?.value ?? '0') as number;
      } finally {
        db.close();
      }
    };
    let core: TestCore = await startCore({ dataDir, config });
    open.push({ close: async () => (await core.close(), fs.rmSync(dataDir, { recursive: true, force: true })) });
    const sent = batch(0, 300).batch;
    expect((await post(core, '/v1/batch', { batch: sent }, { writeKey: 'wk_web' })).status).toBe(200);
    await indexCaughtUp(dataDir);
    const user = sent[0]!.userId;
    const result = await core.operations['deletions.create']({ userId: user, purge: true });
    expect(result.purgedMessages).toBe(sent.filter((m) => m.userId === user).length);
    expect(result.purgedMessages).toBeGreaterThan(0);
    expect(unmerged()).toBe(result.purgedMessages);
    await core.close();
    core = await startCore({ dataDir, config });
    await core.pruner.run(); // nothing over a limit: the count stays for the next prune or clear
    expect(unmerged()).toBe(result.purgedMessages);
  });
});
