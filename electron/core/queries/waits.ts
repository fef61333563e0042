/**
 * A test's pending waits (test-queries.ts waitForMessages, waitForDeliveries). Each looks at the store
 * once, by SQL through the store reader (store-reader.ts: the counting thread once the store is
 * large), and from then on only at what each commit or delivery round brings, batched: a commit's new
 * messages are read once (their columns, no payload), each handed only to the waits its columns can
 * satisfy (waits are filed by the messageId, userId, anonymousId or event they name), and converted
 * (payload parsed) only for those; a round's changed deliveries are sorted by status and destination
 * from the change itself. So a wait costs the same at 10 stored messages as at a million, and nothing
 * stored is read again.
 */
import type { EventBus } from '../bus/event-bus.ts';
import type { HeldValues, MessageHead } from '../store/message-heads.ts';
import type { CommittedRequest } from '../store/stored-request.ts';
import { deliveryTerms, filterSql, idInColumn, type DeliveryWanted, type SqlTerms } from './filter-sql.ts';
import { matches, type MessageFilter, type Row, type TestDelivery, type TestMessage } from './filters.ts';
import { READ_STEP, type StoreReader } from './store-reader.ts';
import { SluiceClosedError } from './timeout-error.ts';


/** A delivery as a change or a new row gives it: enough to tell which waits it may concern. */
interface DeliveryHead {
  id: number;
  messageId: number | null;
  destinationId: number;
  status: string;
}

/** What the waits read through (test-queries.ts). */
export interface WaitHost {
  readonly reader: StoreReader;
  /** Of these messages, those holding one of these column values (MessageHeads.idsHolding). */
  idsHolding(ids: ArrayLike<number>, values: HeldValues): number[];
  /** These messages' columns that tell which waits they may satisfy (no payload), in id order. */
  headsOf(ids: ArrayLike<number>): MessageHead[];
  rowsOf(ids: readonly number[]): Row[];
  deliveriesOf(ids: readonly number[], filter: Partial<DeliveryWanted>): TestDelivery[];
  /** The new deliveries of these messages. */
  deliveryHeadsOf(messageIds: readonly number[]): DeliveryHead[];
  destinationName(destinationId: number): string;
}

interface Pending<T> {
  of: 'messages' | 'deliveries';
  count: number;
  terms: SqlTerms;
  /** Only rows after this id count (a message's `sequence`; 0: every one). */
  after: number;
  /** Ids of the matches: found by the first look or since. */
  found: Set<number>;
  /** The first look is done: from now on only what changes is looked at. */
  looked: boolean;
  /** Which first look counts (one starts again after a re-check). */
  look: number;
  /** The matches among these ids, read now (ids no longer stored, or no longer matching, left out). */
  pick(ids: readonly number[]): { id: number; item: T }[];
  /** Whether a re-check of tracking plans can change what it matches. */
  rechecks: boolean;
  finish(result: T[] | Error): void;
}

interface MessageWait extends Pending<TestMessage> {
  filter: MessageFilter;
}

interface DeliveryWait extends Pending<TestDelivery> {
  wanted: DeliveryWanted;
}

export class Waits {
  readonly #host: WaitHost;
  readonly #messageWaits = new Set<MessageWait>();
  readonly #deliveryWaits = new Set<DeliveryWait>();
  /** Message waits by the one column value a matching (not rejected) message must have; the rest apart. */
  readonly #filed = new Map<string, Set<MessageWait>>();
  readonly #unfiled = new Set<MessageWait>();
  /** Message waits filed by event: a message other than a track may carry an `event` member of its own. */
  readonly #byEvent = new Set<MessageWait>();
  /** Commits announced this turn, checked in the next (#stored). */
  readonly #storedLater: CommittedRequest[] = [];
  /** The relay is closing: no wait is kept, none is taken. */
  #closed = false;

  constructor(bus: EventBus, host: WaitHost) {
    this.#host = host;
    bus.on('messages.stored', (commits) => this.#stored(commits));
    bus.on('deliveries.changed', (changes) => this.#deliveriesChanged(changes.map((c) => ({ id: c.deliveryId, messageId: c.messageId, destinationId: c.destinationId, status: c.status }))));
    // Everything stored is gone: what was found with it.
    bus.on('store.reset', () => {
      this.#storedLater.length = 0; // ids of messages gone, which new ones may take again
      for (const wait of [...this.#messageWaits, ...this.#deliveryWaits]) wait.found.clear();
    });
    // The newest messages went (a clear, a purge): the ids above what is left are given again, to messages
    // stored after every wait began. A wait for messages after a sequence above it counts those (before
    // 2026-12-01 it skipped them, and timed out).
    bus.on('messages.removed', ({ topId }) => {
      for (const wait of this.#messageWaits) if (wait.after > topId) wait.after = topId;
    });
        // A re-check rewrites stored messages' violations: a wait that filters on them looks again.
    bus.on('plans.recheck', (progress) => {
      if (progress.state === 'running') return;
      for (const wait of [...this.#messageWaits, ...this.#deliveryWaits]) if (wait.rechecks) this.#firstLook(wait as Pending<unknown>);
    });
  }

  /**
   * The relay is closing: every pending wait ends now with a SluiceClosedError (it could only time out
   * later, reading a closed store), and a wait asked after this ends so at once.
   */
  close(): void {
    this.#closed = true;
    for (const wait of [...this.#messageWaits, ...this.#deliveryWaits]) wait.finish(closedError(wait.of, wait.count, wait.found.size));
  }

  /** `deadline`: when the wait times out, on performance.now()'s clock (its caller's arrival plus its timeoutMs). */
  forMessages(
    filter: MessageFilter,
    count: number,
    deadline: number,
    signal: AbortSignal | undefined,
    timeout: (found: TestMessage[]) => Promise<Error> | Error,
    after = 0,
  ): Promise<TestMessage[]> {
    const key = keyOf(filter);
    return this.#wait<TestMessage, MessageWait>({
      of: 'messages',
      count,
      terms: filterSql(filter),
      after,
      filter,
      pick: (ids) => this.#host.rowsOf(ids).flatMap((row) => (matches(row.message, filter) ? [{ id: row.id, item: row.message }] : [])),
      rechecks: filter.violations !== undefined,
    }, deadline, signal, timeout, (wait, on) => {
      if (on) this.#messageWaits.add(wait);
      else this.#messageWaits.delete(wait);
      if (key === null) {
        if (on) this.#unfiled.add(wait);
        else this.#unfiled.delete(wait);
      } else if (on) {
        const filed = this.#filed.get(key) ?? new Set();
        this.#filed.set(key, filed.add(wait));
      } else {
        const filed = this.#filed.get(key);
        if (filed?.delete(wait) && filed.size === 0) this.#filed.delete(key);
      }
      if (key?.startsWith('e\n')) {
        if (on) this.#byEvent.add(wait);
        else this.#byEvent.delete(wait);
      }
    });
  }

  forDeliveries(wanted: DeliveryWanted, count: number, deadline: number, signal: AbortSignal | undefined, timeout: (found: TestDelivery[]) => Promise<Error> | Error): Promise<TestDelivery[]> {
    return this.#wait<TestDelivery, DeliveryWait>({
      of: 'deliveries',
      count,
      terms: deliveryTerms(wanted),
      after: 0,
      wanted,
      pick: (ids) => this.#host.deliveriesOf(ids, wanted).map((d) => ({ id: d.id, item: d })),
      rechecks: wanted.message.violations !== undefined,
    }, deadline, signal, timeout, (wait, on) => {
      if (on) this.#deliveryWaits.add(wait);
      else this.#deliveryWaits.delete(wait);
    });
  }

  #wait<T, W extends Pending<T>>(
    parts: Omit<W, 'found' | 'looked' | 'look' | 'finish'>,
    deadline: number,
    signal: AbortSignal | undefined,
    timeout: (found: T[]) => Promise<Error> | Error,
    listen: (wait: W, on: boolean) => void,
  ): Promise<T[]> {
    if (this.#closed) return Promise.reject(closedError(parts.of, parts.count, 0));
    return new Promise((resolve, reject) => {
      let done = false;
      const wait = {
        ...parts,
        found: new Set<number>(),
        looked: false,
        look: 0,
        finish: (result: T[] | Error) => {
          if (done) return;
          done = true;
          listen(wait, false);
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
          if (result instanceof Error) reject(result);
          else resolve(result);
        },
      } as W;
      const aborted = () => wait.finish(new Error('the wait was abandoned'));
      // Counted to the deadline, not from now: reading the request and compiling its filter took part of
      // the time asked for. One already past (a body sent slowly) times out in the next turn, with what
      // the first look found by then (all of it where the look reads on this thread: a small store).
      // Timers count in whole milliseconds of the event loop's clock and may fire up to 1 ms before the
      // exact time: one that fires before the deadline is set again for the rest, so no wait ends early.
      const expire = () => {
        if (done) return;
        const left = deadline - performance.now();
        if (left > 0) return void (timer = setTimeout(expire, Math.ceil(left)));
        const found = wait.pick([...wait.found].sort((a, b) => a - b)).map(({ item }) => item);
        Promise.resolve(timeout(found)).then((error) => wait.finish(error), (error: unknown) => wait.finish(error as Error));
      };
      let timer = setTimeout(expire, Math.max(0, Math.ceil(deadline - performance.now())));
      signal?.addEventListener('abort', aborted);
      // Listening starts before the first look, so nothing stored in between is missed.
      listen(wait, true);
      if (signal?.aborted) return aborted();
      this.#firstLook(wait);
    });
  }

  /** Reads the matches stored so far, oldest first, until `count` are found or none are left. */
  #firstLook<T>(wait: Pending<T>): void {
    const look = ++wait.look;
    wait.looked = false;
    void (async () => {
      let seen = 0;
      // Steps start at what is wanted (a filter SQL expresses whole reads no more than its count: each
      // message read is converted, its payload parsed) and grow to READ_STEP for one that JavaScript
      // narrows further (properties, traits).
      for (let cursor = wait.after, step = Math.min(READ_STEP, wait.count * 2); ; step = Math.min(READ_STEP, step * 8)) {
        const ids = await this.#host.reader.ids({ of: wait.of, terms: wait.terms, search: undefined, afterId: cursor, limit: step });
        if (wait.look !== look || !this.#pending(wait)) return;
        for (const { id } of wait.pick(ids)) if (!wait.found.has(id)) (seen++, wait.found.add(id));
        if (seen >= wait.count || ids.length < step) break;
        cursor = ids.at(-1)!;
      }
      wait.looked = true;
      this.#settle(wait);
    })().catch((error: unknown) => wait.finish(error as Error));
  }

  /** Resolves a wait that has its count: the first `count` matches, read again (gone or changed ones left out). */
  #settle<T>(wait: Pending<T>): void {
    if (!wait.looked || wait.found.size < wait.count) return;
    const ids = [...wait.found].sort((a, b) => a - b).slice(0, wait.count);
    const now = wait.pick(ids);
    if (now.length === wait.count) return wait.finish(now.map(({ item }) => item));
    const kept = new Set(now.map(({ id }) => id));
    for (const id of ids) if (!kept.has(id)) wait.found.delete(id);
  }

  #pending(wait: Pending<unknown>): boolean {
    return this.#messageWaits.has(wait as MessageWait) || this.#deliveryWaits.has(wait as DeliveryWait);
  }

  /**
   * Commits, checked after ingestion has answered them (setImmediate: the I/O of this turn — the
   * responses — goes first) and together when several land in one turn.
   */
  #stored(commits: readonly CommittedRequest[]): void {
    if (this.#messageWaits.size === 0 && this.#deliveryWaits.size === 0) return;
    const first = this.#storedLater.length === 0;
    this.#storedLater.push(...commits);
    if (first) setImmediate(() => this.#check(this.#storedLater.splice(0)));
  }

  /** Commits' messages: their columns read once, each converted only for the waits its columns can satisfy. */
  #check(commits: readonly CommittedRequest[]): void {
    const ids: number[] = [];
    for (const commit of commits) {
      for (const id of commit.ids) ids.push(id);
      if (commit.generatedIds) ids.push(...commit.generatedIds);
    }
    if (this.#messageWaits.size > 0) {
      const touched = new Set<MessageWait>();
      for (const head of this.#host.headsOf(this.#mayWant(ids))) {
        let message: TestMessage | undefined;
        for (const wait of this.#candidates(head)) {
          if (wait.filter.status !== undefined && wait.filter.status !== head[1]) continue;
          if (head[0] <= wait.after) continue;
          message ??= this.#host.rowsOf([head[0]])[0]?.message;
          if (message && matches(message, wait.filter)) (wait.found.add(head[0]), touched.add(wait));
        }
      }
      for (const wait of touched) this.#settle(wait);
    }
    // New deliveries are pending or skipped: only waits that may want those read them.
    const created = [...this.#deliveryWaits].some((wait) => wait.wanted.status === undefined || wait.wanted.status === 'pending' || wait.wanted.status === 'skipped');
    if (created && commits.some((commit) => commit.deliveries > 0)) this.#deliveriesChanged(this.#host.deliveryHeadsOf(ids));
  }

  /**
   * Of these new messages, those some wait may want: every one while a wait is filed by no column;
   * else those whose columns hold a value a wait is filed by, or refused, or (while a wait is filed by
   * event) not tracks — tested in SQL, so that a commit no wait wants costs one statement.
   */
  #mayWant(ids: readonly number[]): ArrayLike<number> {
    if (this.#unfiled.size > 0 || ids.length === 0) return ids;
    const values: HeldValues = { messageIds: [], userIds: [], anonymousIds: [], events: [], otherTypes: this.#byEvent.size > 0 };
    const lists = { m: values.messageIds, u: values.userIds, a: values.anonymousIds, e: values.events } as Record<string, string[]>;
    for (const key of this.#filed.keys()) lists[key[0]!]!.push(key.slice(2));
    return this.#host.idsHolding(ids, values);
  }

  /** The message waits a message with these columns may satisfy. */
  #candidates([, status, type, event, userId, anonymousId, messageId]: MessageHead): MessageWait[] {
    // A refused message's columns are what ingestion could read of it: its text decides.
    if (status === 'rejected') return [...this.#messageWaits];
    const out = this.#unfiled.size ? [...this.#unfiled] : [];
    if (this.#filed.size === 0 && this.#byEvent.size === 0) return out;
    for (const key of [`m\n${messageId}`, `u\n${userId}`, `a\n${anonymousId}`, type === 'track' ? `e\n${event}` : null]) {
      const filed = key === null ? undefined : this.#filed.get(key);
      if (filed) out.push(...filed);
    }
    if (type !== 'track') out.push(...this.#byEvent);
    return out;
  }

  /** Deliveries created or changed: each wait's matches updated (one that no longer matches leaves). */
  #deliveriesChanged(heads: readonly DeliveryHead[]): void {
    if (this.#deliveryWaits.size === 0 || heads.length === 0) return;
    const touched = new Set<DeliveryWait>();
    for (const head of heads) {
      let message: TestMessage | undefined | null;
      for (const wait of this.#deliveryWaits) {
        const { wanted } = wait;
        let wants = (wanted.status === undefined || wanted.status === head.status) && (wanted.destination === undefined || wanted.destination === this.#host.destinationName(head.destinationId));
        if (wants) {
          if (message === undefined) message = head.messageId === null ? null : (this.#host.rowsOf([head.messageId])[0]?.message ?? null);
          wants = message !== null && matches(message, wanted.message);
        }
        if (wants) (wait.found.add(head.id), touched.add(wait));
        else if (wait.found.delete(head.id)) touched.add(wait);
      }
    }
    for (const wait of touched) this.#settle(wait);
  }
}

/** The one column value a matching message that is not rejected must have; null when the filter names none. */
function keyOf(filter: MessageFilter): string | null {
  if (filter.messageId !== undefined) return `m\n${filter.messageId}`;
  // An empty id, or one past what its column keeps, is not in the column as the message has it.
  if (filter.userId !== undefined && idInColumn(filter.userId)) return `u\n${String(filter.userId)}`;
  if (filter.anonymousId !== undefined && idInColumn(filter.anonymousId)) return `a\n${String(filter.anonymousId)}`;
  if (filter.event !== undefined) return `e\n${filter.event}`;
  return null;
}

function closedError(of: 'messages' | 'deliveries', count: number, found: number): SluiceClosedError {
  const what = of === 'messages' ? `message${count === 1 ? '' : 's'}` : `deliver${count === 1 ? 'y' : 'ies'}`;
  return new SluiceClosedError(`Sluice was closed while this wait for ${count} ${what} was pending (${found} had matched): nothing more can arrive`);
}
