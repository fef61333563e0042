// Audience benchmark: 100,000 users and 1,000,000 stored events; time per sync (target < 2 s).
//
// The store is filled directly through the real schema (ingestion has its own benchmark): one identify
// per user (plan, seats, email) and 900,000 track events over 60 days. Then, in a real core, with
// deliveries held (the sync stores its identifies and their delivery rows; sending them is the
// delivery benchmark's business):
// - the first evaluation, which folds all 1,000,000 messages into the profiles (once);
// - an audience "plan equals pro and Order Completed at least once in the last 30 days": its initial
//   sync, syncs with nothing changed, and a sync after 1,000 users changed plan;
// - a computed trait "Order Completed in the last 7 days": initial sync, and after 1,000 new orders.
// Baselines in the same run, on the same file: a plain `GROUP BY user_id` over the messages table,
// and the audience's rule evaluated directly over the messages table (what a non-incremental design
// runs at every sync).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { request } from 'undici';
import { createCore } from '../../electron/core/index.ts';
import { DATABASE_FILE, openDatabase } from '../../electron/core/store/database.ts';
import { transaction } from '../../electron/core/store/connection.ts';
import { median } from './median.ts';

const USERS = Number(process.env.BENCH_AUDIENCE_USERS ?? 100_000);
const EVENTS = Number(process.env.BENCH_AUDIENCE_EVENTS ?? 1_000_000);
const CHANGED = 1_000;
const DAY = 86_400_000;
const EVENT_NAMES = ['Order Completed', 'Product Viewed', 'Signed In', 'Cart Viewed', 'Checkout Started'];
const PLANS = ['free', 'pro', 'enterprise'];

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Fills a fresh store: one identify per user, then track events spread over the last 60 days. */
export function fill(dir: string, now: number): { sourceId: number; fillMs: number } {
  const started = performance.now();
  const db = openDatabase(dir);
  db.prepare("INSERT INTO sources (name, write_key, kind, created_at) VALUES ('bench', 'wk_bench', 'server', ?)").run(now);
  const sourceId = Number((db.prepare("SELECT id FROM sources WHERE name = 'bench'").get() as { id: number }).id);
  const insert = db.prepare(
    `INSERT INTO messages (request_id, source_id, message_id, type, status, user_id, event, received_at, timestamp, raw)
     VALUES (NULL, ?, ?, ?, 'accepted', ?, ?, ?, ?, ?)`,
  );
  const tracks = EVENTS - USERS;
  const CHUNK = 50_000;
  for (let from = 0; from < EVENTS; from += CHUNK) {
    transaction(db, () => {
      for (let i = from; i < Math.min(EVENTS, from + CHUNK); i++) {
        if (i < USERS) {
          const userId = `user_${i}`;
          const at = now - 60 * DAY + i;
          const raw = JSON.stringify({ type: 'identify', userId, traits: { plan: PLANS[i % 3], seats: 1 + (i % 50), email: `${userId}@example.com` }, messageId: `m-${i}`, timestamp: new Date(at).toISOString() });
          insert.run(sourceId, `m-${i}`, 'identify', userId, null, at, at, raw);
        } else {
          const n = i - USERS;
          const userId = `user_${(n * 7919) % USERS}`;
          // A multiplicative hash, so the event name does not follow the user (n × 7919 above).
          const event = EVENT_NAMES[(Math.imul(n, 2654435761) >>> 0) % EVENT_NAMES.length]!;
          const at = now - 60 * DAY + Math.floor((n / tracks) * 60 * DAY);
          const raw = JSON.stringify({ type: 'track', userId, event, properties: { orderId: `o_${n}`, revenue: (n % 997) + 0.99 }, messageId: `m-${i}`, timestamp: new Date(at).toISOString() });
          insert.run(sourceId, `m-${i}`, 'track', userId, event, at, at, raw);
        }
      }
    });
  }
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
  return { sourceId, fillMs: performance.now() - started };
}

/** The baselines, on their own connection to the same file. */
function baselines(dir: string, sourceId: number, now: number) {
  const db = new DatabaseSync(path.join(dir, DATABASE_FILE), { readOnly: true });
  db.exec('PRAGMA temp_store = MEMORY');
  const time = (sql: string, ...params: (string | number)[]) => {
    const runs: number[] = [];
    let rows = 0;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      rows = db.prepare(sql).all(...params).length;
      runs.push(performance.now() - started);
    }
    return { medianMs: round(median(runs)), rows };
  };
  const groupBy = time(`SELECT user_id, count(*) AS n FROM messages WHERE source_id = ? AND status = 'accepted' GROUP BY user_id`, sourceId);
  // The audience's rule straight over the messages: latest plan per user (max over "id ‖ value") and
  // their recent orders, in one pass.
  const direct = time(
    `SELECT user_id FROM (
       SELECT user_id,
         max(CASE WHEN type = 'identify' THEN format('%016d', id) || (raw -> '$.traits' ->> 'plan') END) AS plan,
         sum(type = 'track' AND event = 'Order Completed' AND coalesce(timestamp, received_at) >= ?) AS orders
       FROM messages WHERE source_id = ? AND status = 'accepted' AND origin != 'audience' AND user_id IS NOT NULL
       GROUP BY user_id)
     WHERE substr(plan, 17) = 'pro' AND orders >= 1`,
    now - 30 * DAY,
    sourceId,
  );
  db.close();
  return { groupBy, direct };
}

export async function runAudiencesBench() {
  // Not tempDir: benchmarks run under plain node (tests/bench/run.ts), where no vitest hook would remove it; this function removes it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-audiences-'));
  const now = Date.now();
  console.log(`audiences: ${USERS.toLocaleString('en-US')} users, ${EVENTS.toLocaleString('en-US')} stored events; filling the store…`);
  const { sourceId, fillMs } = fill(dir, now);
  console.log(`  filled in ${(fillMs / 1000).toFixed(1)} s`);

  const core = await createCore({
    dataDir: dir,
    ingestPort: 0,
    receiverPort: 0,
    config: {
      sources: [{ name: 'bench', writeKey: 'wk_bench', kind: 'server' }],
      destinations: [{ name: 'sink', enabled: true, sources: ['bench'], sharedSecret: 's3cret', webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: {} }], options: { bodyShape: 'seed', concurrency: 32 } }],
    },
  });
  core.delivery.setHeld(true);
  const send = async (batch: unknown[]) => {
    for (let i = 0; i < batch.length; i += 500) {
      const res = await request(`${core.ingestUrl}/v1/batch`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('wk_bench:').toString('base64')}`, 'content-type': 'application/json' },
        body: JSON.stringify({ batch: batch.slice(i, i + 500) }),
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`ingestion answered ${res.statusCode}`);
    }
  };
  const timed = async <T,>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> => {
    const started = performance.now();
    const value = await fn();
    return { ms: performance.now() - started, value };
  };

  try {
    const rule = {
      match: 'all' as const,
      conditions: [
        { kind: 'trait' as const, trait: 'plan', operator: 'equals' as const, value: 'pro' },
        { kind: 'event' as const, event: 'Order Completed', operator: 'at_least' as const, count: 1, within: { amount: 30, unit: 'days' as const } },
      ],
    };
    // 1. The first evaluation folds every stored message into the profiles.
    const cold = await timed(() => core.audiences.preview({ sourceId, rule }));
    const warm = await timed(() => core.audiences.preview({ sourceId, rule }));
    console.log(`  first preview (folds ${EVENTS.toLocaleString('en-US')} messages): ${(cold.ms / 1000).toFixed(2)} s; then ${warm.ms.toFixed(0)} ms (${warm.value.members} members)`);

    // 2. The audience: created in realistic mode so that only our syncs run.
    const audience = await core.audiences.save({ sourceId, name: 'Pro buyers', rule, mode: 'realistic' });
    const initial = await timed(() => core.audiences.syncNow(audience.id));
    const unchanged: number[] = [];
    for (let i = 0; i < 5; i++) unchanged.push((await timed(() => core.audiences.syncNow(audience.id))).ms);
    // 1,000 users change plan (pro ↔ free): some join, some leave.
    await send(Array.from({ length: CHANGED }, (_, k) => {
      const user = k * 97;
      return { type: 'identify', userId: `user_${user}`, traits: { plan: user % 3 === 1 ? 'free' : 'pro' } };
    }));
    const changed = await timed(() => core.audiences.syncNow(audience.id));
    console.log(
      `  audience: initial sync ${initial.ms.toFixed(0)} ms (${initial.value.joined} joined), unchanged ${median(unchanged).toFixed(0)} ms, ` +
        `after ${CHANGED} users changed ${changed.ms.toFixed(0)} ms (${changed.value.joined} joined, ${changed.value.left} left)`,
    );

    // The baselines now, over the same messages the last sync saw.
    const base = baselines(dir, sourceId, now);
    console.log(`  baselines: GROUP BY user_id ${base.groupBy.medianMs} ms; the rule over the messages table ${base.direct.medianMs} ms (${base.direct.rows} members; the audience has ${changed.value.members})`);

    // 3. A computed trait: orders in the last 7 days.
    const trait = await core.audiences.save({ sourceId, name: 'Orders last 7 days', kind: 'computed_trait', computation: { kind: 'event_count', event: 'Order Completed', within: { amount: 7, unit: 'days' } }, mode: 'realistic' });
    const traitInitial = await timed(() => core.audiences.syncNow(trait.id));
    await send(Array.from({ length: CHANGED }, (_, k) => ({ type: 'track', userId: `user_${k * 89}`, event: 'Order Completed', properties: {} })));
    const traitChanged = await timed(() => core.audiences.syncNow(trait.id));
    console.log(`  computed trait: initial sync ${traitInitial.ms.toFixed(0)} ms (${traitInitial.value.joined} values), after ${CHANGED} new orders ${traitChanged.ms.toFixed(0)} ms (${traitChanged.value.joined} changed)`);

    const dbBytes = fs.statSync(path.join(dir, DATABASE_FILE)).size + (fs.existsSync(path.join(dir, `${DATABASE_FILE}-wal`)) ? fs.statSync(path.join(dir, `${DATABASE_FILE}-wal`)).size : 0);

    return {
      users: USERS,
      storedEvents: EVENTS,
      fillSeconds: round(fillMs / 1000),
      firstPreviewFoldingAllMs: round(cold.ms),
      previewMs: round(warm.ms),
      audience: {
        rule: 'plan equals "pro" and Order Completed at least once in the last 30 days',
        members: initial.value.members,
        initialSyncMs: round(initial.ms),
        initialSyncWriterMs: round(initial.value.durationMs),
        initialJoined: initial.value.joined,
        unchangedSyncMsMedian: round(median(unchanged)),
        unchangedSyncMsRuns: unchanged.map(round),
        afterChangesSyncMs: round(changed.ms),
        afterChanges: { changedUsers: CHANGED, joined: changed.value.joined, left: changed.value.left, members: changed.value.members },
      },
      computedTrait: {
        computation: 'count of Order Completed in the last 7 days',
        initialSyncMs: round(traitInitial.ms),
        initialValues: traitInitial.value.joined,
        afterNewOrdersSyncMs: round(traitChanged.ms),
        changed: traitChanged.value.joined,
      },
      baselines: {
        groupByUserIdMs: base.groupBy.medianMs,
        ruleOverMessagesMs: base.direct.medianMs,
        ruleOverMessagesMembers: base.direct.rows,
      },
      databaseMiB: Math.round(dbBytes / 2 ** 20),
    };
  } finally {
    await core.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
