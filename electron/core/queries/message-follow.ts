/**
 * Following the stored messages as they come (`GET /api/v1/messages/stream`, `sluice tail`, `sluice
 * serve --print`): each new message once, oldest first — every one the store keeps, refused ones,
 * duplicates and Violation Generated events included — with its deliveries' outcome. Woken by the
 * bus, it reads only the rows after its cursor (by id, a page at a time): never the whole store, and a
 * consumer that reads slowly holds at most one page here — the store is the buffer, so nothing is lost
 * or piled up in memory, the follower only falls behind.
 *
 * The outcome changes after a message is stored: ingestion makes its deliveries in the same commit, in
 * state pending until their first attempt ends. A message is handed out once none of its deliveries is
 * pending any more (delivered, failed, retrying, skipped: what a terminal user wants to read on the
 * line), or `settleMs` after it was received, whichever comes first; messages stay in stored order (one
 * still settling holds back those after it, for at most `settleMs`). A `search` is matched then, on the
 * settled row: `status:failed` picks what failed on its first attempt. Later changes (a retry that
 * succeeds an hour on) are not handed out again.
 *
 * Ids are reused (the messages table has no AUTOINCREMENT): once a clear, a prune or a purge removed the newest
 * messages, the next one stored takes an id at or below the cursor. Each removal says the highest id
 * it left (bus `messages.removed`, announced before anything stored after it), and the cursor goes back
 * to it. A step that read the store between the removal's commit and its announcement may have handed
 * out a new message above the old cursor already: the last ones handed out are remembered (id, time
 * received, messageId) so that reading them again does not hand them out twice.
 */
import type { EventBus } from '../bus/event-bus.ts';
import type { Delivery } from '../store/deliveries-repo.ts';
import { currentDeliveries } from '../../../shared/shown-delivery.ts';
import { parseQuery } from '../../../shared/message-query.ts';
import type { Row, TestMessage } from './filters.ts';
import type { TestQueries } from './test-queries.ts';
import { filterSql } from './filter-sql.ts';

/** Messages read per step. */
const FOLLOW_STEP = 100;
/**
 * Every stored message (Violation Generated events too, which the API's lists leave out unless asked),
 * read as a range of ids (`id > cursor ORDER BY id LIMIT`, the rowid's own B-tree): on the core's thread
 * whatever the store's size, never queued behind the counting thread's counts (store-reader.ts).
 */
const EVERY_MESSAGE = { ...filterSql({}, { everyOrigin: true }), byId: true };
/** How many of the last messages handed out a follower remembers (see above: a removal's announcement). */
const REMEMBERED = FOLLOW_STEP;
/** How long a message waits for its first delivery attempts, by default. */
export const DEFAULT_SETTLE_MS = 2_000;
/** The longest settle a follower may ask for. */
export const MAX_SETTLE_MS = 60_000;

/** A delivery as a followed message carries it: where, how it stands, why. */
export interface FollowedDelivery {
  destination: string;
  status: Delivery['status'];
  attemptCount: number;
  lastError: string | null;
  skipReason: string | null;
}

/** One line of the stream: the message as the HTTP API shows it, and its current deliveries (one per destination). */
export interface FollowedMessage {
  message: TestMessage;
  deliveries: FollowedDelivery[];
}

export interface FollowOptions {
  /** A query (shared/message-query.ts), as the inspector's search means it. */
  search?: string;
  /** Start with the messages received from this time on (ms); without it, with the next message stored. */
  since?: number;
  /** Default DEFAULT_SETTLE_MS; 0 hands each message out as soon as it is stored. */
  settleMs?: number;
  /** Clock (tests). */
  now?: () => number;
  /**
   * Sluice is stopping and has stopped storing: hand out every message stored (settled or not), then end —
   * rather than end at once with those still settling, or not yet read by a slow reader, left out.
   */
  finishing?: AbortSignal;
}

/**
 * The followed messages until `signal` aborts. Throws a QueryError at once (before any message) when
 * the search does not parse.
 */
export async function* followMessages(queries: TestQueries, bus: EventBus, options: FollowOptions, signal: AbortSignal): AsyncGenerator<FollowedMessage> {
  const search = options.search;
  if (search !== undefined) parseQuery(search);
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  const now = options.now ?? Date.now;
  const wake = new Wake(signal);
  const finishing = options.finishing;
  finishing?.addEventListener('abort', wake.poke);
  let reset = false;
  /** The lowest id a removal left as the highest since the last step (Infinity: none removed). */
  let removedTo = Infinity;
  const offs = [
    bus.on('messages.stored', wake.poke),
    bus.on('deliveries.changed', wake.poke),
    bus.on('store.reset', () => {
      reset = true;
      wake.poke();
    }),
    bus.on('messages.removed', ({ topId }) => {
      removedTo = Math.min(removedTo, topId);
      wake.poke();
    }),
  ];
  const handedOut = new Map<number, string>();
  try {
    const reader = queries.reader;
    let cursor = options.since === undefined ? reader.topId() : (reader.firstIdFrom(options.since) ?? reader.topId() + 1) - 1;
    let held: Row[] = [];
    while (!signal.aborted) {
      if (reset) {
        reset = false;
        cursor = 0; // a reset gives ids from 1 again
        held = [];
        handedOut.clear();
      }
      if (removedTo !== Infinity) {
        // The next ids stored start after removedTo; what is held may be gone: read it again.
        cursor = Math.min(cursor, removedTo);
        removedTo = Infinity;
        held = [];
      }
      if (held.length === 0) {
        const ids = await reader.ids({ of: 'messages', terms: EVERY_MESSAGE, search: undefined, afterId: cursor, limit: FOLLOW_STEP });
        if (ids.length === 0) {
          if (finishing?.aborted) return; // all handed out, and nothing more will be stored
          await wake.sleep(Infinity);
          continue;
        }
        held = queries.rowsOf(ids, false);
        if (held.length === 0) cursor = ids.at(-1)!; // gone meanwhile (a purge): read on after them
        continue;
      }
      const deliveries = byMessage(queries.deliveryHeadsOf(held.map((row) => row.id)));
      const at = now();
      let ready = 0;
      let wait = Infinity;
      for (const row of held) {
        const until = Date.parse(row.message.receivedAt) + settleMs;
        if (!finishing?.aborted && at < until && currentDeliveries(deliveries.get(row.id) ?? []).some((d) => d.status === 'pending')) {
          wait = until - at;
          break;
        }
        ready++;
      }
      if (ready === 0) {
        await wake.sleep(wait);
        continue;
      }
      const out = held.slice(0, ready);
      held = held.slice(ready);
      const kept = search === undefined ? null : queries.matchingIds(out.map((row) => row.id), search);
      for (const row of out) {
        cursor = row.id;
        if (kept && !kept.has(row.id)) continue;
        const key = `${row.message.receivedAt}\n${row.message.messageId}`;
        if (handedOut.get(row.id) === key) continue; // read again after a removal: handed out already
        handedOut.delete(row.id); // a reused id: the newest hand-out last
        handedOut.set(row.id, key);
        if (handedOut.size > REMEMBERED) handedOut.delete(handedOut.keys().next().value!);
        yield { message: row.message, deliveries: followed(queries, deliveries.get(row.id) ?? []) };
        if (signal.aborted || reset || removedTo !== Infinity) break;
      }
    }
  } finally {
    for (const off of offs) off();
    finishing?.removeEventListener('abort', wake.poke);
    wake.close();
  }
}

function byMessage(deliveries: Delivery[]): Map<number, Delivery[]> {
  const map = new Map<number, Delivery[]>();
  for (const d of deliveries) {
    if (d.messageId === null) continue;
    const list = map.get(d.messageId);
    if (list) list.push(d);
    else map.set(d.messageId, [d]);
  }
  return map;
}

/** The deliveries that count for the message's row (shared/shown-delivery.ts), by destination name. */
function followed(queries: TestQueries, deliveries: Delivery[]): FollowedDelivery[] {
  return currentDeliveries(deliveries)
    .sort((a, b) => a.id - b.id)
    .map((d) => ({ destination: queries.destinationName(d.destinationId), status: d.status, attemptCount: d.attemptCount, lastError: d.lastError, skipReason: d.skipReason }));
}

/** A sleep that a poke (a bus event) or the signal ends early; a poke while awake ends the next sleep at once. */
class Wake {
  #poked = false;
  #end: (() => void) | undefined;
  readonly #signal: AbortSignal;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    signal.addEventListener('abort', this.poke);
  }

  readonly poke = (): void => {
    this.#poked = true;
    this.#end?.();
  };

  sleep(ms: number): Promise<void> {
    if (this.#poked || this.#signal.aborted) {
      this.#poked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => end(), Math.max(0, ms)) : undefined;
      const end = () => {
        clearTimeout(timer);
        this.#end = undefined;
        this.#poked = false;
        resolve();
      };
      this.#end = end;
    });
  }

  close(): void {
    this.#signal.removeEventListener('abort', this.poke);
    this.#end?.();
  }
}
