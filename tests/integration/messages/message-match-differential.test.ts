// The query language in JavaScript (shared/message-match.ts: what a destination's filters and the
// inspector's live rows test) against the store's SQL (store/message-query-sql.ts, message-search.ts) on
// the same messages: a real core (real SQLite file), ~100 varied messages ingested through POST
// /v1/batch from two sources and through the composer's client, with tracking plans flagging some (their
// Violation Generated events, origin "plan", delivered to a real receiver), and duplicates; ~60 queries of every clause kind. Each is answered by the store twice — by messages.list
// once the word index holds every message (the index's answer), and by each clause's own test on every
// row (compileQuery's `where`: sluice_words, json_extract, LIKE) — and by messageMatcher on each row's
// message and facts. The ids must be the same: a change of meaning on either side fails here.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, invoke, type Handlers } from '../../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import { compileQuery } from '../../../electron/core/store/message-query-sql.ts';
import { registerSqlFunctions } from '../../../electron/core/store/sql-functions.ts';
import type { MessageSummary, Result } from '../../../shared/contract.ts';
import { messageMatcher, type RowFacts } from '../../../shared/message-match.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { indexCaughtUp } from '../../helpers/search-index.ts';
import { until } from '../../helpers/wait.ts';

/** Queries and, for each, whether it may match nothing (else it must match some rows and not all). */
const QUERIES: [string, 'may be empty'?][] = [
  // Words: anywhere in the message, one after the other, the last a prefix from 3 characters.
  ['order'],
  ['Order Completed'],
  ['"order completed"'],
  ['ord'],
  ['"ord"', 'may be empty'],
  ['completed order'],
  ['café'],
  ['CAFÉ', 'may be empty'],
  ['tom jerry'],
  ['sku_1'],
  ['-order'],
  ['example com'],
  ['line2'],
  ['42'],
  ['checkout -sku'],
  ['😀'],
  // Columns: the stored value LIKE the clause's (ASCII case-insensitive, * any characters).
  ['event:"Order Completed"'],
  ['event:order*'],
  ['event:*ED'],
  ['event:Home'],
  ['-event:*'],
  ['type:identify'],
  ['-type:track'],
  ['type:screen'],
  ['userId:user_1*'],
  ['userId:4*'],
  ['anonymousId:anon_*'],
  ['-anonymousId:*'],
  ['messageId:m-1*'],
  ['messageId:*_dup'],
  ['source:web'],
  ['source:IOS'],
  ['origin:plan'],
  ['-origin:ingest'],
  ['origin:PL*'],
  ['violations:yes'],
  ['violations:no'],
  ['plan:web*'],
  ['plan:"shop plan"'],
  ['-plan:shop*'],
  ['status:accepted'],
  ['status:duplicate'],
  ['status:none'],
  ['status:d*'],
  ['status:delivered'],
  ['-status:none'],
  // Payload paths: a string by its text, anything else by its JSON; numbers compared.
  ['properties.price:12'],
  ['properties.price:"12"'],
  ['properties.price:>10'],
  ['properties.price:<=0'],
  ['properties.price:>=12.5'],
  ['properties.price:<-1'],
  ['properties.price:1*'],
  ['properties.currency:eur'],
  ['properties.coupon:*'],
  ['-properties.coupon:*'],
  ['properties.flag:true'],
  ['properties.flag:FALSE'],
  ['properties.gift:null'],
  ['properties.products.0.sku:sku_1*'],
  ['properties.products.1.price:>5'],
  ['properties.products.sku:*', 'may be empty'],
  ['properties.tags:*sale*'],
  ['properties.dims:{"w":2*'],
  ['properties.text:*jerry*'],
  ['context.page.path:/p/*'],
  ['traits.email:*@example.com'],
  ['traits.age:>=30'],
  ['name:home'],
  ['groupId:g_*'],
  ['previousId:*'],
  ['PROPERTIES.price:>10'],
  ['properties.Price:12', 'may be empty'],
  ['properties.0:x', 'may be empty'],
  ['integrations.All:false'],
  // Together.
  ['type:track properties.price:>10 -source:ios'],
  ['order -event:order*'],
  ['source:web violations:yes -plan:web*'],
  ['violations:yes -plan:web*'],
  ['-type:identify -type:track -type:page'],
  // Pins (every 7th stored message is pinned below).
  ['pinned:true'],
  ['-pinned:true'],
  ['pinned:false'],
  ['PINNED:True type:track'],
  ['-pinned:false violations:yes', 'may be empty'],
  ['order -pinned:true'],
];

const PLANS = [
  { name: 'web plan', sources: ['web'], forwardViolationsTo: 'violations', plan: { events: { 'Order Completed': { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] } } } },
  { name: 'shop plan', sources: ['web', 'iOS'], plan: { events: { 'Checkout Started': { type: 'object', properties: { currency: { enum: ['EUR', 'USD'] } } } } } },
];

const EVENTS = ['Order Completed', 'order viewed', 'Signed In', 'Ünïcode Évent', 'a_b', 'Checkout Started'];
const USERS: unknown[] = ['user_1', 'User_12', 'USER_123', 'alice@Example.com', 'Zoë', 42, 4.5, null];

/** ~100 messages of every type, with the kinds of values each clause compares. */
function messages(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let n = 0; n < 96; n++) {
    const userId = USERS[n % USERS.length];
    const common = {
      messageId: `m-${n}`,
      ...(userId !== null ? { userId } : {}),
      ...(n % 5 === 0 || userId === null ? { anonymousId: `anon_${n % 7}` } : {}),
      context: { page: { path: `/p/${n % 9}` }, ...(n % 4 === 0 ? { locale: 'fr-FR' } : {}) },
      ...(n % 11 === 0 ? { integrations: { All: n % 2 === 0 } } : {}),
    };
    switch (n % 8) {
      case 0:
      case 1:
      case 2:
      case 3: {
        const price = [12, 12.5, -3, 0, 42, '12', 7, 100][n % 8 === 3 ? (n >> 3) % 8 : n % 8];
        out.push({
          ...common,
          type: 'track',
          event: EVENTS[n % EVENTS.length],
          properties: {
            // A key of digits: a path's digits index arrays only (json_extract's $[0]), never this key.
            ...(n % 9 === 4 ? { '0': 'x' } : {}),
            price,
            currency: n % 3 === 0 ? 'EUR' : n % 3 === 1 ? 'eur' : 'GBP',
            ...(n % 7 === 0 ? { coupon: 'SAVE-10' } : {}),
            ...(n % 6 === 1 ? { flag: n % 12 === 1 } : {}),
            ...(n % 10 === 2 ? { gift: null } : {}),
            tags: ['new', n % 2 ? 'sale' : 'full'],
            products: [
              { sku: `sku_${n % 20}`, price: n % 9 },
              { sku: `sku_${(n + 3) % 20}`, price: (n * 3) % 11 },
            ],
            ...(n % 3 === 1 ? { text: 'Tom & Jerry' } : {}),
            ...(n % 5 === 2 ? { note: 'Café visit\nline2\tnaïve 😀 smile' } : {}),
            ...(n % 4 === 1 ? { dims: { w: n % 3, h: 2 } } : {}),
          },
        });
        break;
      }
      case 4:
        out.push({ ...common, type: 'identify', traits: { email: `${String(userId ?? 'nobody')}@example.com`, age: 20 + (n % 20), name: 'Café Owner' } });
        break;
      case 5:
        out.push({ ...common, type: n % 16 === 5 ? 'page' : 'screen', name: n % 3 === 0 ? 'Home' : 'Checkout', properties: { path: '/home', price: n, note: 'order history' } });
        break;
      case 6:
        out.push({ ...common, type: 'group', groupId: `g_${n}`, traits: { plan: 'pro', seats: n } });
        break;
      default:
        out.push({ ...common, type: 'alias', previousId: `old_${n}` });
    }
  }
  return out;
}

let core: TestCore;
let receiver: Receiver;
let handlers: Handlers;
let dataDir: string;
/** Every stored row: its id, its message, its facts. */
let rows: { id: number; message: Record<string, unknown>; facts: RowFacts }[];

beforeAll(async () => {
  dataDir = tempDir('sluice-match-');
  receiver = await startReceiver();
  const config = parseConfig(
    JSON.stringify({
      sources: [{ name: 'web', writeKey: 'wk_web' }, { name: 'iOS', writeKey: 'wk_ios' }],
      // Gets only the web plan's Violation Generated events (no source of its own).
      destinations: [{ name: 'violations', webhooks: [{ url: receiver.url }] }],
      trackingPlans: PLANS,
    }),
  );
  core = await startCore({ config, dataDir });
  handlers = createHandlers(core);
  const all = messages();
  const web = all.filter((_, i) => i % 3 !== 2);
  const ios = all.filter((_, i) => i % 3 === 2);
  for (const [writeKey, batch] of [
    ['wk_web', web],
    ['wk_ios', ios],
  ] as const) {
    const res = await post({ ingestUrl: core.ingestUrl, writeKey }, '/v1/batch', { batch });
    expect(res.status).toBe(200);
  }
  // Duplicates: the same messageIds again (stored as duplicates), and messageIds ending _dup.
  await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch: [web[0], web[1], { ...web[2], messageId: 'x_dup' }] });
  // Through the composer (Sluice's own client library, as an app sends).
  const webSource = core.sources.list().find((s) => s.name === 'web')!;
  for (const event of ['Order Completed', 'Composer Hello']) {
    const sent = await invoke(handlers, 'composer.send', { sourceId: webSource.id, type: 'track', fields: { userId: 'user_1', event, properties: { price: 13 } } });
    expect(sent.ok).toBe(true);
  }
  expect((await invoke(handlers, 'composer.flush', { sourceId: webSource.id })).ok).toBe(true);
  await until(() => core.messages.list({ limit: 1000 }).filter((m) => m.origin !== 'plan').length === all.length + 5);
  // Every delivery done (the rows' outcomes settled) and every message in the word index.
  await until(() => core.messages.list({ limit: 1000 }).filter((m) => m.origin === 'plan').length === receiver.received.length && receiver.received.length > 0);
  await indexCaughtUp(dataDir, 30_000, 20);
  // Every 7th message pinned (messages.pin, through the writer).
  const toPin = core.messages.list({ limit: 1000 }).map((m) => m.id).filter((id) => id % 7 === 0);
  expect((await invoke(handlers, 'messages.pin', { ids: toPin, pinned: true })).ok).toBe(true);

  type Stored = { id: number; raw: string; status: string; origin: string; violations: string | null; source: string; deliveries: string | null; pinned: number | null };
  const read = (): Stored[] => {
    const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
    try {
      return db
        .prepare(
          `SELECT m.id, m.raw, m.status, m.origin, m.violations, m.pinned, s.name AS source,
             (SELECT group_concat(d.status) FROM deliveries d WHERE d.message_id = m.id) AS deliveries
           FROM messages m JOIN sources s ON s.id = m.source_id ORDER BY m.id`,
        )
        .all() as Stored[];
    } finally {
      db.close();
    }
  };
  // Only the Violation Generated events have a delivery, one each: wait until each is delivered.
  const stored = await until(() => {
    const all = read();
    return all.every((r) => (r.origin === 'plan' ? r.deliveries === 'delivered' : r.deliveries === null)) && all;
  });
  expect(stored.some((r) => r.status === 'rejected')).toBe(false);
  rows = stored.map((r) => {
    const violations = r.violations ? (JSON.parse(r.violations) as { plan: string }[]) : [];
    return {
      id: r.id,
      message: JSON.parse(r.raw) as Record<string, unknown>,
      facts: {
        source: r.source,
        origin: r.origin,
        violations: violations.length,
        plans: violations.map((v) => v.plan),
        outcome: r.status === 'accepted' ? (r.deliveries ?? 'none') : r.status,
        pinned: r.pinned === 1,
      },
    };
  });
}, 60_000);

afterAll(async () => {
  await core?.dispose();
  await receiver?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The store's answer through the contract's messages.list (the word index covers every message). */
async function listed(query: string): Promise<number[]> {
  const result = (await invoke(handlers, 'messages.list', { search: query, limit: 1000 })) as Result<{ messages: MessageSummary[] }>;
  if (!result.ok) throw new Error(`${query}: ${result.error.message}`);
  return result.value.messages.map((m) => m.id).sort((a, b) => a - b);
}

/** The store's answer by each clause's own test on every row (the part of a search the index does not cover yet). */
function scanned(query: string): number[] {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    registerSqlFunctions(db);
    const { where, params } = compileQuery(query);
    const sql = `SELECT m.id FROM messages m${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY m.id`;
    return (db.prepare(sql).all(...params) as { id: number }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

describe('a query in JavaScript and in the store', () => {
  it('the store holds a varied set: every type, both sources, ingested and made by a plan, violations of both plans, duplicates', () => {
    expect(rows.length).toBeGreaterThanOrEqual(100);
    expect(new Set(rows.map((r) => r.message.type))).toEqual(new Set(['track', 'identify', 'page', 'screen', 'group', 'alias']));
    expect(new Set(rows.map((r) => r.facts.source))).toEqual(new Set(['web', 'iOS']));
    expect(new Set(rows.map((r) => r.facts.origin))).toEqual(new Set(['ingest', 'plan']));
    expect(new Set(rows.flatMap((r) => r.facts.plans ?? []))).toEqual(new Set(['web plan', 'shop plan']));
    expect(rows.filter((r) => r.facts.outcome === 'duplicate').length).toBe(2);
  });

  it.each(QUERIES)('%s', async (query, mayBeEmpty) => {
    const matcher = messageMatcher(query);
    const inJs = rows.filter((r) => matcher.matches(r.message, r.facts)).map((r) => r.id);
    expect(await listed(query), 'messages.list (through the word index)').toEqual(inJs);
    expect(scanned(query), "each clause's test on every row").toEqual(inJs);
    if (!mayBeEmpty) {
      expect(inJs.length, 'the query picks some messages').toBeGreaterThan(0);
      expect(inJs.length, 'the query leaves some out').toBeLessThan(rows.length);
    }
  });
});
