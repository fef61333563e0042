// The writer's side of audiences (runs in the store's writer thread, inside its transactions): saves
// definitions, folds profiles, previews, and syncs. A sync evaluates the rule into a temp table,
// diffs it against the member snapshot of the last sync, and for each user whose membership (or
// value) changed stores one identify message (origin 'audience') with a delivery per destination —
// the ones the audience chose, or else the source's (trigger 'audience'): the delivery engine then
// sends them like any message — and
// updates the snapshot. All of it commits together, or not at all.
import { randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { AudienceKind, AudienceRule, Computation } from '../../../shared/audiences.ts';
import type { AudienceOp, AudienceOutcome, PreviewOutcome, SyncOutcome } from '../writer/audience-ops.ts';
import { ProfileFold } from './profile-fold.ts';
import { compile, leavingValue } from './rule-sql.ts';

/**
 * settings' key (with the audience's id): the destinations its last sync sent to (a JSON array of ids).
 * A sync that sends to one not in it (connected to the source, chosen, enabled again) sends it every
 * member whose value the others already have; no schema change for what one row per audience holds.
 * (The one-day `audience.resend.<id>` flag a save set before 2026-12-01 is not read: the last sync's
 * deliveries tell the same, #sentBeforeTheRecord.)
 */
const SENT_KEY = 'audience.sent.';
/**
 * Settings' key (with the audience's id), set when a save changes the definition: its members' values were
 * computed under the old one until the next sync, so none is kept for want of its messages (#evaluate).
 */
const REDEFINED_KEY = 'audience.redefined.';

/** Messages folded per fold call: bounds how long one call holds the writer (and ingestion). */
export const FOLD_CHUNK = 20_000;

interface AudienceRow {
  id: number;
  kind: AudienceKind;
  source_id: number;
  property: string;
  definition: string;
}

export class AudienceWriter {
  readonly #db: DatabaseSync;
  readonly fold: ProfileFold;
  readonly #s: ReturnType<typeof prepare>;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.fold = new ProfileFold(db);
    db.exec(`PRAGMA temp_store = MEMORY;
      CREATE TEMP TABLE IF NOT EXISTS audience_current (user_id TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;`);
    this.#s = prepare(db);
  }

  /**
   * Runs one op inside the writer's transaction, in a savepoint: an op that fails (a broken rule, a
   * constraint) is undone alone and reported, without failing the ingestion requests committed with it.
   * `routes`: the enabled destinations of each source, as ingestion uses them.
   */
  apply(op: AudienceOp, routes: ReadonlyMap<number, number[]>): AudienceOutcome {
    this.#db.exec('SAVEPOINT audience_op');
    try {
      const outcome = this.#apply(op, routes);
      this.#db.exec('RELEASE audience_op');
      return outcome;
    } catch (error) {
      this.#db.exec('ROLLBACK TO audience_op');
      this.#db.exec('RELEASE audience_op');
      return { op: 'error', message: (error as Error).message };
    }
  }

  #apply(op: AudienceOp, routes: ReadonlyMap<number, number[]>): AudienceOutcome {
    switch (op.op) {
      case 'audience.save':
        return { op: op.op, audienceId: this.#save(op) };
      case 'audience.delete':
        this.#s.clearSentTo.run(op.audienceId);
        this.#s.clearRedefined.run(op.audienceId);
        return { op: op.op, deleted: Number(this.#s.deleteAudience.run(op.audienceId).changes) > 0 };
      case 'audience.fold': {
        const { through, latest } = this.fold.fold(op.limit);
        return { op: op.op, through, latest };
      }
      case 'audience.preview':
        return { op: op.op, preview: this.#preview(op, routes) };
      case 'audience.sync':
        return { op: op.op, sync: this.#sync(op, routes) };
    }
  }

  /**
   * A deletion request purged the user's messages: everything the audiences keep of them goes too —
   * profile, memberships (no identify follows) and the syncs' record of what was sent to them (their
   * id, the value, and a message id that a later message may reuse: SQLite reuses the highest ids).
   */
  forgetPurgedUser(sourceId: number, userId: string): void {
    this.fold.forgetUser(sourceId, userId);
    this.#s.forgetPurged.run(userId, sourceId);
    this.#s.forgetPurgedSyncMessages.run(userId, sourceId);
    this.#s.forgetPurgedSent.run(userId, sourceId);
  }

  #save(op: Extract<AudienceOp, { op: 'audience.save' }>): number {
    const a = op.audience;
    const definition = JSON.stringify(a.definition);
    const destinations = a.destinationIds === null ? null : JSON.stringify(a.destinationIds);
    if (a.id === undefined) {
      return Number(
        this.#s.insertAudience.run(a.name, a.kind, a.sourceId, a.property, definition, a.mode, a.intervalSeconds, destinations, op.now, op.now, op.nextSyncAt)
          .lastInsertRowid,
      );
    }
    const before = this.#s.audience.get(a.id) as AudienceRow | undefined;
    if (before !== undefined && before.definition !== definition) this.#s.setRedefined.run(a.id);
    this.#s.updateAudience.run(a.name, a.kind, a.sourceId, a.property, definition, a.mode, a.intervalSeconds, destinations, op.now, op.nextSyncAt, a.id);
    // A destination this save adds is found gained by the next sync (#gained); a fresh start forgets both.
    if (op.resetMembers) {
      this.#s.forgetMembers.run(a.id);
      this.#s.clearSentTo.run(a.id);
    }
    return a.id;
  }

  /**
   * Folds whatever is left, then fills temp.audience_current with the definition's current values. For the
   * audience `keepFor` (its saved definition, unchanged since its last sync: a value computed under another
   * event or property is not kept), a last-property trait also keeps the value of each member whose
   * events of it are still in the profile but whose messages carrying the property are gone (pruned or
   * cleared: the value is read from the message, which the profile outlives): retention alone does not
   * change a trait. Before 2026-12-01 such a member "left", and every destination was sent null.
   */
  #evaluate(kind: AudienceKind, definition: AudienceRule | Computation, sourceId: number, now: number, keepFor?: number): void {
    while (true) {
      const { through, latest } = this.fold.fold(FOLD_CHUNK);
      if (through >= latest) break;
    }
    const query = compile(kind, definition, sourceId, now);
    this.#s.clearCurrent.run();
    this.#db.prepare(`INSERT INTO temp.audience_current (user_id, value) ${query.sql}`).run(...query.params);
    if (keepFor !== undefined && kind === 'computed_trait' && (definition as Computation).kind === 'last_property' && this.#s.redefined.get(keepFor) === undefined) {
      this.#s.keepLastValues.run(keepFor, sourceId, (definition as Computation).event);
    }
  }

  #preview(op: Extract<AudienceOp, { op: 'audience.preview' }>, routes: ReadonlyMap<number, number[]>): PreviewOutcome {
    const started = performance.now();
    // The members' kept values count when the preview is of the saved definition (what the next sync would do).
    const saved = op.audienceId === null ? undefined : (this.#s.audience.get(op.audienceId) as AudienceRow | undefined);
    const same = saved !== undefined && saved.kind === op.kind && saved.source_id === op.sourceId && saved.definition === JSON.stringify(op.definition);
    this.#evaluate(op.kind, op.definition, op.sourceId, op.now, same ? saved.id : undefined);
    const members = count(this.#s.countCurrent.get());
    const sample = (this.#s.sample.all(op.sampleSize) as { user_id: string; value: string }[]).map((row) => ({
      userId: row.user_id,
      value: JSON.parse(row.value) as unknown,
    }));
    let joining: number | null = null;
    let leaving: number | null = null;
    if (op.audienceId !== null) {
      const everyone = this.#gained(op.audienceId, op.destinationIds ?? routes.get(op.sourceId) ?? []).length > 0;
      joining = this.#s.changed.all(op.sourceId, op.audienceId, everyone ? 1 : 0).length;
      leaving = this.#s.left.all(op.sourceId, op.audienceId).length;
    }
    const users = count(this.#s.users.get(op.sourceId));
    this.#s.clearCurrent.run();
    return { members, sample, joining, leaving, users, durationMs: performance.now() - started };
  }

  /** Of `destinations`, those the audience's last sync did not send to. */
  #gained(audienceId: number, destinations: readonly number[]): number[] {
    const row = this.#s.sentTo.get(audienceId) as { value: string } | undefined;
    const before = row !== undefined ? (JSON.parse(row.value) as number[]) : this.#sentBeforeTheRecord(audienceId);
    return before === null ? [] : destinations.filter((id) => !before.includes(id));
  }

  /**
   * Where an audience synced before syncs recorded it (a store from before 2026-12-01): the destinations of
   * the deliveries of its last sync that sent any; none when it synced and never sent; null (nothing gained)
   * when it never synced, or what it sent is no longer stored.
   */
  #sentBeforeTheRecord(audienceId: number): number[] | null {
    if (this.#s.hasSync.get(audienceId) === undefined) return null;
    const sent = this.#s.lastSentSync.get(audienceId) as { id: number } | undefined;
    if (sent === undefined) return [];
    const destinations = (this.#s.syncDestinations.all(sent.id) as { id: number }[]).map((row) => row.id);
    return destinations.length > 0 ? destinations : null;
  }

  #sync(op: Extract<AudienceOp, { op: 'audience.sync' }>, routes: ReadonlyMap<number, number[]>): SyncOutcome | null {
    const started = performance.now();
    const row = this.#s.audience.get(op.audienceId) as AudienceRow | undefined;
    if (!row) return null;
    const definition = JSON.parse(row.definition) as AudienceRule | Computation;
    const sourceId = row.source_id;
    this.#evaluate(row.kind, definition, sourceId, op.now, row.id);
    this.#s.clearRedefined.run(row.id); // this sync leaves every member as the current definition says

    // A scheduled sync that finds nothing to send is not recorded (the audience's lastSyncAt says it ran):
    // at the demo interval of 30 s such rows buried the syncs that sent something. An audience's first
    // sync, and every "Sync now", are recorded whatever they find.
    const destinations = op.destinationIds ?? routes.get(sourceId) ?? [];
    // Destinations this sync sends to that the last did not: they learn the members the others have.
    const gained = this.#gained(row.id, destinations);
    this.#s.setSentTo.run(row.id, JSON.stringify(destinations));
    if (
      op.reason === 'scheduled' && gained.length === 0 &&
      this.#s.hasSync.get(row.id) !== undefined && !(this.#s.anyChange.get(row.id, row.id) as { changed: number }).changed
    ) {
      const members = count(this.#s.countCurrent.get());
      this.#s.clearCurrent.run();
      this.#s.synced.run(op.now, op.nextSyncAt, row.id);
      return { syncId: null, audienceId: row.id, sourceId, initial: false, members, joined: 0, left: 0, messageIds: [], deliveries: 0, durationMs: performance.now() - started };
    }
    const initial = count(this.#s.snapshotSize.get(row.id)) === 0;
    const syncId = Number(this.#s.insertSync.run(row.id, op.now, op.reason, initial ? 1 : 0, row.property).lastInsertRowid);
    const timestamp = new Date(op.now).toISOString();
    const computationClass = row.kind === 'audience' ? 'audience' : 'trait';
    const messageIds: number[] = [];
    let deliveries = 0;
    const nextMessageId = timeOrderedIds(op.now);

    // An identify carries the loop chain of the user's messages (profile-fold.ts), in a request of its own
    // (endpoint "audience", one per chain and sync): it is never forwarded to a Sluice its data came from.
    const chainRequests = new Map<string, number>();
    const requestOf = (via: string | null): number | null => {
      if (via === null) return null;
      let id = chainRequests.get(via);
      if (id === undefined) {
        id = Number(this.#s.insertRequest.run(sourceId, op.now, `{"via":${via}}`).lastInsertRowid);
        chainRequests.set(via, id);
      }
      return id;
    };
    const send = (userId: string, value: string, change: 'joined' | 'left' | 'changed', via: string | null, to = destinations) => {
      const messageId = nextMessageId();
      // Built as text around the value's JSON so the value is sent exactly as computed.
      const raw =
        `{"type":"identify","userId":${JSON.stringify(userId)},"traits":{${JSON.stringify(row.property)}:${value}},` +
        `"messageId":"${messageId}","timestamp":"${timestamp}",` +
        `"context":{"personas":{"computation_class":"${computationClass}","computation_id":"${row.id}","computation_key":${JSON.stringify(row.property)}}}}`;
      const id = Number(this.#s.insertMessage.run(requestOf(via), sourceId, messageId, userId, op.now, op.now, raw).lastInsertRowid);
      for (const destinationId of to) this.#s.insertDelivery.run(id, destinationId, op.now, op.now, op.now);
      for (const destinationId of to) this.#s.sentUser.run(userId, sourceId, destinationId); // a deletion request tells them (migration 30)
      deliveries += to.length;
      this.#s.link.run(syncId, id, userId, value, change);
      messageIds.push(id);
    };

    let joined = 0;
    type Changed = { user_id: string; value: string; previous: string | null; via: string | null };
    // Every member again when a destination was gained: the unchanged ones join it, and only it.
    for (const { user_id, value, previous, via } of this.#s.changed.all(sourceId, row.id, gained.length > 0 ? 1 : 0) as Changed[]) {
      const unchanged = previous === value;
      send(user_id, value, previous === null || unchanged ? 'joined' : 'changed', via, unchanged ? gained : destinations);
      this.#s.upsertMember.run(row.id, user_id, value, op.now);
      joined++;
    }
    const gone = leavingValue(row.kind, definition);
    let left = 0;
    // Who left is told only where they had been sent: not to a destination gained at this sync.
    const told = gained.length > 0 ? destinations.filter((id) => !gained.includes(id)) : destinations;
    for (const { user_id, via } of this.#s.left.all(sourceId, row.id) as { user_id: string; via: string | null }[]) {
      send(user_id, gone, 'left', via, told);
      this.#s.removeMember.run(row.id, user_id);
      left++;
    }
    const members = count(this.#s.countCurrent.get());
    this.#s.clearCurrent.run();
    this.#s.synced.run(op.now, op.nextSyncAt, row.id);
    const durationMs = performance.now() - started;
    this.#s.finishSync.run(members, joined, left, deliveries, durationMs, syncId);
    return { syncId, audienceId: row.id, sourceId, initial, members, joined, left, messageIds, deliveries, durationMs };
  }
}

/**
 * UUIDv7-shaped messageIds (RFC 9562: the time in the first 48 bits, then a counter, then random bits
 * fixed per sync): they sort by creation, so a sync of thousands of members appends to the
 * messages' dedupe index instead of touching a random page of it per message.
 */
export function timeOrderedIds(now: number): () => string {
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  const node = randomBytes(6).toString('hex');
  let seq = 0;
  return () => {
    const n = seq++;
    const high = ((n / 0x4000) & 0xfff).toString(16).padStart(3, '0');
    const low = (0x8000 | (n & 0x3fff)).toString(16);
    return `${time.slice(0, 8)}-${time.slice(8)}-7${high}-${low}-${node}`;
  };
}

function count(row: unknown): number {
  return Number((row as { n: number }).n);
}

/** The writer's statements, prepared once (the temp table must exist first). */
function prepare(db: DatabaseSync) {
  return {
    insertAudience: db.prepare(
      `INSERT INTO audiences (name, kind, source_id, property, definition, mode, interval_seconds, destination_ids, created_at, updated_at, next_sync_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    updateAudience: db.prepare(
      `UPDATE audiences SET name = ?, kind = ?, source_id = ?, property = ?, definition = ?, mode = ?, interval_seconds = ?,
         destination_ids = ?, updated_at = ?, next_sync_at = ? WHERE id = ?`,
    ),
    forgetMembers: db.prepare('DELETE FROM audience_members WHERE audience_id = ?'),
    deleteAudience: db.prepare('DELETE FROM audiences WHERE id = ?'),
    audience: db.prepare('SELECT id, kind, source_id, property, definition FROM audiences WHERE id = ?'),
    redefined: db.prepare(`SELECT 1 FROM settings WHERE key = '${REDEFINED_KEY}' || ?`),
    setRedefined: db.prepare(`INSERT INTO settings (key, value) VALUES ('${REDEFINED_KEY}' || ?, '1') ON CONFLICT (key) DO NOTHING`),
    clearRedefined: db.prepare(`DELETE FROM settings WHERE key = '${REDEFINED_KEY}' || ?`),
    sentTo: db.prepare(`SELECT value FROM settings WHERE key = '${SENT_KEY}' || ?`),
    setSentTo: db.prepare(`INSERT INTO settings (key, value) VALUES ('${SENT_KEY}' || ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
    clearSentTo: db.prepare(`DELETE FROM settings WHERE key = '${SENT_KEY}' || ?`),
    clearCurrent: db.prepare('DELETE FROM temp.audience_current'),
    // Members with events of the trait's event still in the profile and no value computed (#evaluate): kept.
    keepLastValues: db.prepare(
      `INSERT OR IGNORE INTO temp.audience_current (user_id, value) SELECT m.user_id, m.value FROM audience_members m
       WHERE m.audience_id = ? AND m.user_id IN (SELECT e.user_id FROM profile_events e WHERE e.source_id = ? AND e.event = ?)`,
    ),
    countCurrent: db.prepare('SELECT count(*) AS n FROM temp.audience_current'),
    sample: db.prepare('SELECT user_id, value FROM temp.audience_current ORDER BY user_id LIMIT ?'),
    users: db.prepare('SELECT count(*) AS n FROM profile_users WHERE source_id = ?'),
    snapshotSize: db.prepare('SELECT count(*) AS n FROM audience_members WHERE audience_id = ?'),
    // Users whose value is new or differs from what was last sent (source, audience), with the Sluices
    // their messages came through.
    changed: db.prepare(
      `SELECT c.user_id, c.value, m.value AS previous, p.via FROM temp.audience_current c
       LEFT JOIN profile_users p ON p.source_id = ? AND p.user_id = c.user_id
       LEFT JOIN audience_members m ON m.audience_id = ? AND m.user_id = c.user_id
       WHERE m.value IS NOT c.value OR ? ORDER BY c.user_id`,
    ),
    // Users in the snapshot who no longer match (or no longer have a value): (source, audience).
    left: db.prepare(
      `SELECT m.user_id, p.via FROM audience_members m LEFT JOIN profile_users p ON p.source_id = ? AND p.user_id = m.user_id
       WHERE m.audience_id = ? AND NOT EXISTS (SELECT 1 FROM temp.audience_current c WHERE c.user_id = m.user_id) ORDER BY m.user_id`,
    ),
    hasSync: db.prepare('SELECT 1 FROM audience_syncs WHERE audience_id = ? LIMIT 1'),
    lastSentSync: db.prepare('SELECT max(id) AS id FROM audience_syncs WHERE audience_id = ? AND deliveries > 0 HAVING max(id) IS NOT NULL'),
    syncDestinations: db.prepare(
      `SELECT DISTINCT d.destination_id AS id FROM audience_sync_messages m JOIN deliveries d ON d.message_id = m.message_id
       WHERE m.sync_id = ?`,
    ),
    // Whether a sync now would send anything: the two queries above, stopping at the first row.
    anyChange: db.prepare(
      `SELECT EXISTS (SELECT 1 FROM temp.audience_current c LEFT JOIN audience_members m ON m.audience_id = ? AND m.user_id = c.user_id
           WHERE m.value IS NOT c.value)
         OR EXISTS (SELECT 1 FROM audience_members m WHERE m.audience_id = ?
           AND NOT EXISTS (SELECT 1 FROM temp.audience_current c WHERE c.user_id = m.user_id)) AS changed`,
    ),
    insertSync: db.prepare(
      `INSERT INTO audience_syncs (audience_id, at, reason, initial, property, members, joined, left_count, deliveries, duration_ms)
       VALUES (?, ?, ?, ?, ?, 0, 0, 0, 0, 0)`,
    ),
    finishSync: db.prepare(
      'UPDATE audience_syncs SET members = ?, joined = ?, left_count = ?, deliveries = ?, duration_ms = ? WHERE id = ?',
    ),
    insertRequest: db.prepare(`INSERT INTO requests (source_id, endpoint, received_at, sent_at, ip, envelope) VALUES (?, 'audience', ?, NULL, NULL, ?)`),
    insertMessage: db.prepare(
      `INSERT INTO messages (request_id, source_id, message_id, type, status, origin, user_id, received_at, timestamp, raw)
       VALUES (?, ?, ?, 'identify', 'accepted', 'audience', ?, ?, ?, ?)`,
    ),
    insertDelivery: db.prepare(
      `INSERT INTO deliveries (message_id, destination_id, trigger, status, next_attempt_at, created_at, updated_at)
       VALUES (?, ?, 'audience', 'pending', ?, ?, ?)`,
    ),
    link: db.prepare('INSERT INTO audience_sync_messages (sync_id, message_id, user_id, value, change) VALUES (?, ?, ?, ?, ?)'),
    sentUser: db.prepare('INSERT OR IGNORE INTO audience_sent_users (user_id, source_id, destination_id) VALUES (?, ?, ?)'),
    upsertMember: db.prepare(
      `INSERT INTO audience_members (audience_id, user_id, value, since) VALUES (?, ?, ?, ?)
       ON CONFLICT (audience_id, user_id) DO UPDATE SET value = excluded.value`,
    ),
    removeMember: db.prepare('DELETE FROM audience_members WHERE audience_id = ? AND user_id = ?'),
    synced: db.prepare('UPDATE audiences SET last_sync_at = ?, next_sync_at = ? WHERE id = ?'),
    forgetPurged: db.prepare(
      'DELETE FROM audience_members WHERE user_id = ? AND audience_id IN (SELECT id FROM audiences WHERE source_id = ?)',
    ),
    // No index by user: a purge (rare) goes over the source's syncs' rows once.
    forgetPurgedSent: db.prepare(
      'DELETE FROM audience_sent_users WHERE user_id = ? AND source_id = ?',
    ),
    forgetPurgedSyncMessages: db.prepare(
      `DELETE FROM audience_sync_messages WHERE user_id = ? AND sync_id IN
         (SELECT s.id FROM audience_syncs s JOIN audiences a ON a.id = s.audience_id WHERE a.source_id = ?)`,
    ),
  };
}
