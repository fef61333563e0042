// Which delivery a message's row shows (shared/shown-delivery.ts), and that the store's SQL filter
// (electron/core/store/shown-delivery.ts, used by MessagesRepo.findIds for replays by filter) selects
// exactly the rows the rule puts in each state — over hand-picked histories and random ones, in a
// real SQLite file migrated like the app's. Also which indexes the SQL uses.
import { describe, expect, it } from 'vitest';
import { DeliveriesRepo } from '../../../electron/core/store/deliveries-repo.ts';
import { MessagesRepo } from '../../../electron/core/store/messages-repo.ts';
import { LATEST_IN_LANE_SQL, shownDeliverySql } from '../../../electron/core/store/shown-delivery.ts';
import { DELIVERY_STATUSES } from '../../../shared/message-filter.ts';
import { shownDelivery, type LaneDelivery } from '../../../shared/shown-delivery.ts';
import { scratchStores } from '../../helpers/scratch-store.ts';

type D = Omit<LaneDelivery, 'id'> & { trigger?: string };

const scratchStore = scratchStores();

function open() {
  const db = scratchStore('sluice-shown-');
  for (const id of [1, 2, 3]) db.exec(`INSERT INTO destinations (id, name, enabled, settings, created_at, updated_at) VALUES (${id}, 'd${id}', 1, '{}', 0, 0)`);
  const insertMessage = db.prepare(`INSERT INTO messages (source_id, message_id, type, status, received_at, raw) VALUES (1, ?, 'track', 'accepted', 0, '{}')`);
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (message_id, destination_id, trigger, status, target_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, 0)`,
  );
  return {
    db,
    /** Stores a message with these deliveries, in this order (ids grow); returns the message id and the rows as stored. */
    add(history: D[]): { id: number; rows: LaneDelivery[] } {
      const id = Number(insertMessage.run(`m-${Math.random()}`).lastInsertRowid);
      const rows = history.map((d) => ({
        ...d,
        id: Number(insertDelivery.run(id, d.destinationId, d.trigger ?? 'automatic', d.status, d.targetUrl).lastInsertRowid),
      }));
      return { id, rows };
    },
  };
}

const own = (destinationId: number, status: string, trigger = 'automatic'): D => ({ destinationId, status, targetUrl: null, trigger });
const side = (destinationId: number, status: string): D => ({ destinationId, status, targetUrl: 'http://localhost:3000/hook', trigger: 'replay' });

describe('the delivery a row shows', () => {
  const cases: { name: string; history: D[]; shows: string; index?: number }[] = [
    { name: 'no delivery', history: [], shows: 'none' },
    { name: 'a failed delivery recovered by a replay', history: [own(1, 'failed'), own(1, 'delivered', 'replay')], shows: 'delivered', index: 1 },
    { name: 'a replay under way supersedes the failure', history: [own(1, 'failed'), own(1, 'pending', 'replay')], shows: 'pending', index: 1 },
    { name: 'a failed replay of a delivered message', history: [own(1, 'delivered'), own(1, 'failed', 'replay')], shows: 'failed', index: 1 },
    { name: 'a typed-URL replay never supersedes (delivered there)', history: [own(1, 'failed'), side(1, 'delivered')], shows: 'failed', index: 0 },
    { name: 'a typed-URL replay never supersedes (failed there)', history: [own(1, 'delivered'), side(1, 'failed')], shows: 'delivered', index: 0 },
    { name: 'typed-URL replays count when nothing went to a destination', history: [side(1, 'failed'), side(1, 'delivered')], shows: 'delivered', index: 1 },
    { name: 'per destination, then the most telling', history: [own(1, 'failed'), own(2, 'retrying'), own(1, 'delivered', 'replay')], shows: 'retrying', index: 1 },
    { name: 'a failure on another destination still shows', history: [own(1, 'failed'), own(2, 'failed'), own(1, 'delivered', 'replay')], shows: 'failed', index: 1 },
    { name: 'equally telling: the latest', history: [own(1, 'delivered'), own(2, 'failed'), own(2, 'delivered', 'replay')], shows: 'delivered', index: 2 },
    { name: 'skipped, then replayed anyway', history: [own(1, 'skipped'), own(1, 'cancelled', 'replay')], shows: 'cancelled', index: 1 },
  ];

  it.each(cases)('$name → $shows (rule and SQL agree)', ({ history, shows, index }) => {
    const store = open();
    const { id, rows } = store.add(history);
    const shown = shownDelivery(rows);
    expect(shown?.status ?? 'none').toBe(shows);
    if (index !== undefined) expect(shown).toBe(rows[index]);
    const sql = store.db.prepare(`SELECT ${shownDeliverySql('m')} AS shown FROM messages m WHERE m.id = ?`).get(id) as { shown: string };
    expect(sql.shown).toBe(shows);
  });

  it('the SQL filter and the rule put the same messages in every state, over random histories', () => {
    const store = open();
    const messages = new MessagesRepo(store.db);
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return (seed >>> 16) % n; // the high bits: an LCG's low bits repeat quickly
    };
    const statuses = [...DELIVERY_STATUSES];
    const expected = new Map<string, number[]>();
    for (let i = 0; i < 600; i++) {
      const history: D[] = [];
      for (let k = random(6); k > 0; k--) {
        const destinationId = 1 + random(3);
        const status = statuses[random(statuses.length)]!;
        history.push(random(4) === 0 ? side(destinationId, status) : own(destinationId, status, history.length ? 'replay' : 'automatic'));
      }
      const { id, rows } = store.add(history);
      const state = shownDelivery(rows)?.status ?? 'none';
      expected.set(state, [...(expected.get(state) ?? []), id]);
    }
    for (const state of [...statuses, 'none'] as const) {
      expect(messages.findIds({ delivery: state }, 10_000), state).toEqual(expected.get(state) ?? []);
    }
    // Every state occurred, so each comparison above meant something.
    expect([...expected.keys()].sort()).toEqual([...statuses, 'none'].sort());
  });

  it('reads deliveries through their indexes: no scan of the deliveries table per message', () => {
    const store = open();
    const plan = (sql: string) =>
      (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((row) => row.detail);
    const filter = plan(`SELECT m.id FROM messages m WHERE ${shownDeliverySql('m')} = 'failed' ORDER BY m.id LIMIT 10`);
    expect(filter).toContain('SEARCH d USING INDEX deliveries_message (message_id=?)');
    expect(filter).toContain('SEARCH later USING INDEX deliveries_message (message_id=? AND rowid>?)');
    expect(filter.filter((step) => /^SCAN (d|later)\b/.test(step))).toEqual([]);
    expect(filter.some((step) => step.includes('TEMP B-TREE'))).toBe(false); // an aggregate, no sorter per message
    // "Failed now" scans deliveries once (only failed ones are checked), each check a seek.
    const failedNow = plan(`SELECT d.id FROM deliveries d WHERE d.status = 'failed' AND d.target_url IS NULL AND ${LATEST_IN_LANE_SQL}`);
    expect(failedNow).toContain('SEARCH later USING INDEX deliveries_message (message_id=? AND rowid>?)');
  });
});

describe('failed now (replay all failed)', () => {
  it('is the latest delivery to the destination per message when it failed; typed-URL replays and test events do not count', () => {
    const store = open();
    const deliveries = new DeliveriesRepo(store.db);
    const recovered = store.add([own(1, 'failed'), own(1, 'delivered', 'replay')]);
    const retrying = store.add([own(1, 'failed'), own(1, 'retrying', 'replay')]);
    const sideOnly = store.add([own(1, 'failed'), side(1, 'delivered')]);
    const failedAgain = store.add([own(1, 'failed'), own(1, 'failed', 'replay'), side(1, 'failed')]);
    const twoDestinations = store.add([own(1, 'failed'), own(2, 'failed'), own(2, 'delivered', 'replay')]);
    store.db.exec(`INSERT INTO deliveries (message_id, destination_id, trigger, status, created_at, updated_at) VALUES (NULL, 1, 'test', 'failed', 0, 0)`);
    expect(deliveries.failedNow().deliveries.map((d) => d.id)).toEqual([sideOnly.rows[0]!.id, failedAgain.rows[1]!.id, twoDestinations.rows[0]!.id]);
    expect([recovered, retrying].flatMap((m) => m.rows).some((d) => deliveries.failedNow().deliveries.some((f) => f.id === d.id))).toBe(false);
  });
});
