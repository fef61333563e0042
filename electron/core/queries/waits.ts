/**
 * A test's pending waits (test-queries.ts waitForMessages, waitForDeliveries): each looks at the store
 * once, by SQL through the store reader (store-reader.ts: the counting thread once the store is large),
 * and from then on only at what each commit or delivery round brings — the new messages read and
 * converted once per commit for every wait, the changed deliveries once per round — so that a wait
 * costs the same at 10 stored messages as at a million, and nothing stored is read again.
 */
import type { EventBus } from '../bus/event-bus.ts';
import type { CommittedRequest } from '../store/stored-request.ts';
import { deliveryTerms, filterSql, type SqlTerms } from './filter-sql.ts';
import { matches, type MessageFilter, type Row, type TestDelivery, type TestMessage } from './filters.ts';
import type { StoreReader } from './store-reader.ts';

/** Ids read per step of a wait's first look. */
const STEP = 500;

/** What a delivery wait asks: its message's filter, the destination's name, the delivery's status. */
export interface DeliveryWanted {
  message: MessageFilter;
  destination?: string;
  status?: string;
}

/** What the waits read through (test-queries.ts). */
export interface WaitHost {
  readonly reader: StoreReader;
  rowsOf(ids: readonly number[]): Row[];
  deliveriesOf(ids: readonly number[], filter: DeliveryWanted | Record<string, never>): TestDelivery[];
  /** The ids of these messages' deliveries. */
  deliveryIdsOf(messageIds: readonly number[]): number[];
}

/** An item a wait found, with its id (a message's row id, a delivery's id). */
interface Found<T> {
  id: number;
  item: T;
}

interface Pending<T> {
  of: 'messages' | 'deliveries';
  count: number;
  terms: SqlTerms;
  /** Matches by id: found by the first look or since. */
  found: Map<number, T>;
  /** The first look is done: from now on only what changes is looked at. */
  looked: boolean;
  /** Which first look counts (one starts again after a re-check). */
  look: number;
  /** The wanted items of these ids, read now (ids no longer stored, or no longer matching, left out). */
  pick(ids: readonly number[]): Found<T>[];
  /** Whether this item (a new message, a changed delivery) is one the wait wants. */
  wants(item: T): boolean;
  /** Whether a re-check of tracking plans can change what it matches. */
  rechecks: boolean;
  finish(result: T[] | Error): void;
}

export class Waits {
  readonly #host: WaitHost;
  readonly #messageWaits = new Set<Pending<TestMessage>>();
  readonly #deliveryWaits = new Set<Pending<TestDelivery>>();

  constructor(bus: EventBus, host: WaitHost) {
    this.#host = host;
    bus.on('messages.stored', (commits) => this.#stored(commits));
    bus.on('deliveries.changed', (changes) => this.#deliveriesChanged(changes.map((change) => change.deliveryId)));
    // Everything stored is gone: what was found with it.
    bus.on('store.reset', () => {
      for (const wait of [...this.#messageWaits, ...this.#deliveryWaits]) wait.found.clear();
    });
    // A re-check rewrites stored messages' violations: a wait that filters on them looks again.
    bus.on('plans.recheck', (progress) => {
      if (progress.state === 'running') return;
      for (const wait of this.#messageWaits) if (wait.rechecks) this.#firstLook(wait);
      for (const wait of this.#deliveryWaits) if (wait.rechecks) this.#firstLook(wait);
    });
  }

  forMessages(filter: MessageFilter, count: number, timeoutMs: number, signal: AbortSignal | undefined, timeout: (found: TestMessage[]) => Promise<Error> | Error): Promise<TestMessage[]> {
    return this.#wait(this.#messageWaits, {
      of: 'messages',
      count,
      terms: filterSql(filter),
      pick: (ids) => this.#host.rowsOf(ids).flatMap((row) => (matches(row.message, filter) ? [{ id: row.id, item: row.message }] : [])),
      wants: (message) => matches(message, filter),
      rechecks: filter.violations !== undefined,
    }, timeoutMs, signal, timeout);
  }

  forDeliveries(wanted: DeliveryWanted, count: number, timeoutMs: number, signal: AbortSignal | undefined, timeout: (found: TestDelivery[]) => Promise<Error> | Error): Promise<TestDelivery[]> {
    return this.#wait(this.#deliveryWaits, {
      of: 'deliveries',
      count,
      terms: deliveryTerms(wanted),
      pick: (ids) => this.#host.deliveriesOf(ids, wanted).map((d) => ({ id: d.id, item: d })),
      wants: (d) =>
        (wanted.destination === undefined || d.destination === wanted.destination) &&
        (wanted.status === undefined || d.status === wanted.status) &&
        d.message !== null && matches(d.message, wanted.message),
      rechecks: wanted.message.violations !== undefined,
    }, timeoutMs, signal, timeout);
  }

  #wait<T>(
    waits: Set<Pending<T>>,
    parts: Omit<Pending<T>, 'found' | 'looked' | 'look' | 'finish'>,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    timeout: (found: T[]) => Promise<Error> | Error,
  ): Promise<T[]> {
    return new Promise((resolve, reject) => {
      const wait: Pending<T> = {
        ...parts,
        found: new Map(),
        looked: false,
        look: 0,
        finish: (result) => {
          if (!waits.delete(wait)) return;
          clearTimeout(timer);
          signal?.removeEventListener('abort', aborted);
          if (result instanceof Error) reject(result);
          else resolve(result);
        },
      };
      const aborted = () => wait.finish(new Error('the wait was abandoned'));
      const timer = setTimeout(() => {
        if (!waits.has(wait)) return;
        const found = sorted(wait.found);
        Promise.resolve(timeout(found)).then((error) => wait.finish(error), (error: unknown) => wait.finish(error as Error));
      }, timeoutMs);
      signal?.addEventListener('abort', aborted);
      // Listening (being in the set) starts before the first look, so nothing stored in between is missed.
      waits.add(wait);
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
      for (let cursor = 0; ; ) {
        const ids = await this.#host.reader.ids({ of: wait.of, terms: wait.terms, search: undefined, afterId: cursor, limit: STEP });
        if (wait.look !== look || !this.#pending(wait)) return;
        for (const { id, item } of wait.pick(ids)) {
          if (!wait.found.has(id)) seen++;
          wait.found.set(id, item);
        }
        if (seen >= wait.count || ids.length < STEP) break;
        cursor = ids.at(-1)!;
      }
      wait.looked = true;
      this.#settle(wait);
    })().catch((error: unknown) => wait.finish(error as Error));
  }

  /** Resolves a wait that has its count: the first `count` matches, read again (gone or changed ones left out). */
  #settle<T>(wait: Pending<T>): void {
    if (!wait.looked || wait.found.size < wait.count) return;
    const ids = [...wait.found.keys()].sort((a, b) => a - b).slice(0, wait.count);
    const now = wait.pick(ids);
    if (now.length === wait.count) return wait.finish(now.map(({ item }) => item));
    const kept = new Set(now.map(({ id }) => id));
    for (const id of ids) if (!kept.has(id)) wait.found.delete(id);
  }

  #pending(wait: Pending<never> | Pending<unknown>): boolean {
    return this.#messageWaits.has(wait as Pending<TestMessage>) || this.#deliveryWaits.has(wait as Pending<TestDelivery>);
  }

  /** A commit: its messages read and converted once, for every message wait; their new deliveries for the delivery waits. */
  #stored(commits: readonly CommittedRequest[]): void {
    if (this.#messageWaits.size === 0 && this.#deliveryWaits.size === 0) return;
    const ids: number[] = [];
    for (const commit of commits) {
      for (const id of commit.ids) ids.push(id);
      if (commit.generatedIds) ids.push(...commit.generatedIds);
    }
    if (this.#messageWaits.size > 0) {
      const rows = this.#host.rowsOf(ids);
      for (const wait of [...this.#messageWaits]) {
        for (const row of rows) if (wait.wants(row.message)) wait.found.set(row.id, row.message);
        this.#settle(wait);
      }
    }
    if (this.#deliveryWaits.size > 0 && commits.some((commit) => commit.deliveries > 0)) this.#deliveriesChanged(this.#host.deliveryIdsOf(ids));
  }

  /** Deliveries created or changed: read once, each wait's matches updated (a delivery that no longer matches leaves). */
  #deliveriesChanged(ids: readonly number[]): void {
    if (this.#deliveryWaits.size === 0 || ids.length === 0) return;
    const deliveries = this.#host.deliveriesOf(ids, {});
    for (const wait of [...this.#deliveryWaits]) {
      for (const d of deliveries) {
        if (wait.wants(d)) wait.found.set(d.id, d);
        else wait.found.delete(d.id);
      }
      this.#settle(wait);
    }
  }
}

function sorted<T>(found: Map<number, T>): T[] {
  return [...found.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
}
