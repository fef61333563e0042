/**
 * The questions a test asks of a Sluice — what was stored, wait until it is, what was delivered — for
 * both of its adapters: sluice/testing in the test's process (electron/testing/) and the HTTP API
 * (electron/host/http-api.ts). Reads only; a wait listens to the bus.
 */
import type { EventBus } from '../bus/event-bus.ts';
import type { DeliveriesRepo, Delivery } from '../store/deliveries-repo.ts';
import type { DestinationsRepo } from '../store/destinations-repo.ts';
import type { MessagesRepo } from '../store/messages-repo.ts';
import type { MessageText, MessageTexts } from '../store/message-texts.ts';
import { testMessage } from './test-message.ts';
import type { HeldValues, MessageHead, MessageHeads } from '../store/message-heads.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';
import { DELIVERY_STATUSES } from '../../../shared/message-filter.ts';
import { sourceLabel } from '../../../shared/refused-request.ts';
import { checkFilter, checkOptions, explainShortfall, MESSAGE_FILTER_FIELDS, matches, type MessageFilter, type Row, type TestDelivery, type TestMessage } from './filters.ts';

export type { Row, TestDelivery } from './filters.ts';
import { deliveryTerms, filterSql, type DeliveryWanted, type SqlTerms } from './filter-sql.ts';
import { READ_STEP, type StoreReader } from './store-reader.ts';
import type { StoreStats } from '../store/store-stats.ts';
import { Waits } from './waits.ts';
import { SluiceTimeoutError } from './timeout-error.ts';

export { SluiceClosedError, SluiceTimeoutError } from './timeout-error.ts';

export interface WaitOptions {
  /** Matches to wait for (default 1). */
  count?: number;
  /** Default 5,000 ms. */
  timeoutMs?: number;
}

/** A message wait's options; `afterSequence`: only messages stored after the one whose `sequence` this is count. */
export interface MessageWaitOptions extends WaitOptions {
  afterSequence?: number;
}

/** A delivery filter: its message's fields, and the destination (name) and delivery status. */
export interface DeliveryFilter extends Omit<MessageFilter, 'status'> {
  destination?: string;
  status?: Delivery['status'];
}


export interface QueryParts {
  bus: EventBus;
  messages: MessagesRepo;
  sources: SourcesRepo;
  destinations: DestinationsRepo;
  deliveries: DeliveriesRepo;
  reader: StoreReader;
  heads: MessageHeads;
  texts: MessageTexts;
}


export class TestQueries {
  readonly #p: QueryParts;
  /**
   * Converted messages: a stored message does not change. Keyed by more than the row id, which SQLite
   * gives again once the newest rows are gone (a purge, a reset).
   */
  readonly #seen = new Map<string, TestMessage>();
  readonly #waits: Waits;
  #generation = 0;
  /** The highest message id a page has handed out in this generation (its `next` cursor may name it). */
  #handedOut = 0;
  /** The same for the pages of deliveries (their ids are given again as messages' are). */
  #handedOutDeliveries = 0;
  /** Sources' and destinations' names by id, read once per turn of the event loop (a commit's checks share them). */
  #names: { sources: Map<number, string>; destinations: Map<number, string> } | null = null;

  constructor(parts: QueryParts) {
    this.#p = parts;
    this.#waits = new Waits(parts.bus, this);
    // A re-check may rewrite stored messages' violations (wording too, not only their number).
    parts.bus.on('plans.recheck', (progress) => {
      if (progress.state !== 'running') this.#seen.clear();
    });
    // A removal that took the newest messages (a clear, a purge) lets their ids be given again: a cursor
    // past what is left would skip the messages that take them, so it is refused (409 stale_cursor), as
    // after a reset. Before 2026-12-01 only a reset did this, and paging on after a clear missed them.
    parts.bus.on('messages.removed', ({ topId }) => {
      const deliveriesTop = this.#handedOutDeliveries > 0 ? (this.#p.deliveries.latestIds(1)[0] ?? 0) : 0;
      if (topId >= this.#handedOut && deliveriesTop >= this.#handedOutDeliveries) return;
      this.#generation++;
      this.#handedOut = 0;
      this.#handedOutDeliveries = 0;
    });
  }

  /**
   * A page of the stored messages that match `filter` and `search` (a query, shared/message-query.ts),
   * oldest first (or `newestFirst`): at most `limit` after the row id `after` in that order (0: from
   * the start), whether more follow, and the id to go on after. Read by id with SQL (filter-sql.ts, the
   * search indexes); only the rows SQL picks are read and converted. A QueryError when the search does
   * not parse.
   */
  async page(filter: unknown, search: string | undefined, after: number, limit: number, where: string, newestFirst = false): Promise<{ rows: Row[]; more: boolean; lastId: number | undefined }> {
    const wanted = checkFilter(filter, where);
    const pick = (ids: number[]) => this.rowsOf(ids).filter((row) => matches(row.message, wanted));
    const { found, more } = await this.#matching('messages', filterSql(wanted), search, after, limit, pick, newestFirst);
    const lastId = found.at(-1)?.id;
    if (lastId !== undefined && more) this.#handedOut = Math.max(this.#handedOut, lastId);
    return { rows: found, more, lastId };
  }

  /**
   * A page of deliveries as `deliveries` gives them (of the messages that match the filter, to the
   * destination and in the status it names) whose message matches `search`, by delivery id after
   * `after`: at most `limit`, and whether more follow. Read by id with SQL, as `page`.
   */
  async deliveryPage(filter: unknown, search: string | undefined, after: number, limit: number, where: string): Promise<{ deliveries: TestDelivery[]; more: boolean }> {
    const wanted = deliveryFilter(filter, where);
    const { found, more } = await this.#matching('deliveries', deliveryTerms(wanted), search, after, limit, (ids) => this.deliveriesOf(ids, wanted));
    const lastId = found.at(-1)?.id;
    if (lastId !== undefined && more) this.#handedOutDeliveries = Math.max(this.#handedOutDeliveries, lastId);
    return { deliveries: found, more };
  }

  /** Every stored message that matches, oldest first, with its row id (read page by page, as `page`). */
  async rows(filter?: unknown, where = 'messages()'): Promise<Row[]> {
    const wanted = checkFilter(filter, where);
    return (await this.#matching('messages', filterSql(wanted), undefined, 0, Infinity, (ids) => this.rowsOf(ids).filter((row) => matches(row.message, wanted)))).found;
  }

  async messages(filter?: unknown): Promise<TestMessage[]> {
    return (await this.rows(filter)).map((row) => row.message);
  }

  /** The stored message with this messageId (the accepted one first), with its deliveries. */
  async messageById(messageId: string): Promise<{ message: TestMessage; deliveries: TestDelivery[] } | undefined> {
    if (typeof messageId !== 'string') throw new TypeError('messageById(): a messageId is a string');
    const read = async (status?: 'accepted') => {
      const ids = await this.#p.reader.ids({ of: 'messages', terms: filterSql({ messageId, ...(status ? { status } : {}) }, { everyOrigin: true }), search: undefined, afterId: 0, limit: 1 });
      return this.rowsOf(ids)[0];
    };
    const row = (await read('accepted')) ?? (await read());
    if (!row) return undefined;
    const ids = this.#p.deliveries.forMessage(row.id).map((d) => d.id);
    return { message: row.message, deliveries: this.deliveriesOf(ids, {}) };
  }

  /**
   * Resolves with the first `count` matches. Without a `status` in the filter only accepted messages
   * count: a retried (duplicate) or refused (rejected) copy must not make a broken tracking test pass.
   * `startedAt` (performance.now()): when the wait was asked, which `timeoutMs` counts from — the call,
   * or for the HTTP API the request's arrival, before its body was read.
   */
  async waitForMessages(filter?: unknown, options: MessageWaitOptions = {}, signal?: AbortSignal, startedAt = performance.now()): Promise<TestMessage[]> {
    const given = checkFilter(filter, 'waitForMessages()');
    const wanted: MessageFilter = given.status === undefined ? { ...given, status: 'accepted' } : given;
    checkOptions(options, ['count', 'timeoutMs', 'afterSequence'], 'waitForMessages()');
    const { count, timeoutMs } = waitOptions(options, 'waitForMessages()');
    const after = options.afterSequence ?? 0;
    if (!Number.isSafeInteger(after) || after < 0) throw new TypeError("waitForMessages(): afterSequence must be a message's sequence (a whole number ≥ 0)");
    return this.#waits.forMessages(wanted, count, startedAt + timeoutMs, signal, async (found) => {
      // The newest 200, the closest of them named: read in one statement, without normalizing them.
      const sources = this.#sourceNames();
      const latest = this.#p.texts.latest(200).map((record) => this.#converted(record, sources));
      const explained = explainShortfall(wanted, count, found.length, latest, timeoutMs, given, await this.#p.reader.total());
      return new SluiceTimeoutError(after > 0 ? `${explained} (only messages stored after sequence ${after} count)` : explained, found);
    }, after);
  }

  async deliveries(filter?: unknown, where = 'deliveries()'): Promise<TestDelivery[]> {
    const wanted = deliveryFilter(filter, where);
    return (await this.#matching('deliveries', deliveryTerms(wanted), undefined, 0, Infinity, (ids) => this.deliveriesOf(ids, wanted))).found;
  }

  /** As waitForMessages, for deliveries; `startedAt` as there. */
  async waitForDeliveries(filter?: unknown, options: WaitOptions & { status?: string } = {}, signal?: AbortSignal, startedAt = performance.now()): Promise<TestDelivery[]> {
    checkOptions(options, ['count', 'timeoutMs', 'status'], 'waitForDeliveries()', [...MESSAGE_FILTER_FIELDS, 'destination']);
    const inFilter = (filter as { status?: unknown } | null | undefined)?.status;
    if (options.status !== undefined && inFilter !== undefined && inFilter !== options.status) {
      throw new TypeError(`waitForDeliveries(): the filter's status (${JSON.stringify(inFilter)}) and the options' (${JSON.stringify(options.status)}) differ; give one`);
    }
    const merged = options.status !== undefined ? { ...(filter as object | undefined), status: options.status } : filter;
    const wanted = deliveryFilter(merged, 'waitForDeliveries()');
    const { count, timeoutMs } = waitOptions(options, 'waitForDeliveries()');
    return this.#waits.forDeliveries(wanted, count, startedAt + timeoutMs, signal, (found) => {
      // The latest deliveries' states: what the test's destinations did instead. Their rows only: the
      // sentence names no message or attempt, so none is read (those of a purged message left out).
      const recent = this.#p.deliveries.byIds(this.#p.deliveries.latestIds(200)).filter((d) => d.messageId !== null);
      const states = [...new Set(recent.map((d) => `${this.destinationName(d.destinationId)}: ${d.status}${d.lastError ? ` (${d.lastError})` : ''}`))].slice(0, 5);
      return new SluiceTimeoutError(
        `waited ${timeoutMs} ms for ${count} deliver${count === 1 ? 'y' : 'ies'} matching ${JSON.stringify(merged ?? {})}; ${found.length} matched (${recent.length === 200 ? 'of the latest 200' : `${recent.length} in all`}${states.length ? `: ${states.join('; ')}` : ''})`,
        found,
      );
    });
  }

  /**
   * Counts by status and by type (store/store-stats.ts: kept counts and indexes, no message read). A
   * rejected message's type is whatever the client wrote ("constructor", "__proto__"): given as an
   * object's own properties, never an inherited one.
   */
  stats(): Promise<StoreStats> {
    return this.#p.reader.stats();
  }

  /** Resets since start: row ids are given again from 1 after one, so a paging cursor names its generation. */
  get generation(): number {
    return this.#generation;
  }

  /** The relay is closing: pending waits end now, saying so (waits.ts close). */
  close(): void {
    this.#waits.close();
  }

  /** After a reset: nothing seen is kept. */
  forget(): void {
    this.#seen.clear();
    this.#generation++;
    this.#handedOut = 0;
    this.#handedOutDeliveries = 0;
  }

  /** Where a wait reads the store (waits.ts). */
  get reader(): StoreReader {
    return this.#p.reader;
  }

  /**
   * These messages as a test sees them, in the order given; ids no longer stored are left out. `keep`
   * false: converted without being kept for the next question (a follower reads each message once).
   */
  rowsOf(ids: readonly number[], keep = true): Row[] {
    const sources = this.#sourceNames();
    return ids.flatMap((id) => {
      const record = this.#p.texts.text(id);
      return record ? [{ id, message: this.#converted(record, sources, keep) }] : [];
    });
  }

  /** These deliveries as a test sees them (those that meet `filter`'s destination, status and message), by id. */
  deliveriesOf(ids: readonly number[], filter: Partial<DeliveryWanted>): TestDelivery[] {
    if (ids.length === 0) return [];
    const destinations = this.#destinationNames();
    const sources = this.#sourceNames();
    const out: TestDelivery[] = [];
    for (const d of this.#p.deliveries.byIds(ids, { bodies: true })) {
      if (filter.destination !== undefined && destinationName(destinations, d) !== filter.destination) continue;
      if (filter.status !== undefined && d.status !== filter.status) continue;
      const record = d.messageId === null ? undefined : this.#p.texts.text(d.messageId);
      if (!record) continue;
      const message = this.#converted(record, sources);
      if (filter.message && !matches(message, filter.message)) continue;
      out.push(this.#testDelivery(d, destinations, message));
    }
    return out;
  }

  /** Which of these messages match `search` now (a query; each clause tested on the row, by id). */
  matchingIds(ids: readonly number[], search: string): Set<number> {
    return this.#p.messages.matchingIds(ids, search);
  }

  idsHolding(ids: ArrayLike<number>, values: HeldValues): number[] {
    return this.#p.heads.idsHolding(ids, values);
  }

  headsOf(ids: ArrayLike<number>): MessageHead[] {
    return this.#p.heads.heads(ids);
  }

  deliveryHeadsOf(messageIds: readonly number[]): Delivery[] {
    return [...this.#p.deliveries.forMessages([...messageIds]).values()].flat();
  }

  destinationName(destinationId: number): string {
    return this.#destinationNames().get(destinationId) ?? `#${destinationId} (deleted)`;
  }

  /**
   * Up to `limit` of what `pick` keeps of the ids SQL gives after `after` (oldest first, or newest
   * first, READ_STEP at a time), and whether more follow; the cost is the rows SQL picks, never the
   * store's size.
   */
  async #matching<T extends { id: number }>(
    of: 'messages' | 'deliveries',
    terms: SqlTerms,
    search: string | undefined,
    after: number,
    limit: number,
    pick: (ids: number[]) => T[],
    newestFirst = false,
  ): Promise<{ found: T[]; more: boolean }> {
    const found: T[] = [];
    for (let cursor = after; ; ) {
      const step = Math.min(READ_STEP, limit - found.length + 1);
      const ids = await this.#p.reader.ids({ of, terms, search, afterId: cursor, limit: step, ...(newestFirst ? { newestFirst } : {}) });
      found.push(...pick(ids));
      if (found.length > limit) return { found: found.slice(0, limit), more: true };
      if (ids.length < step) return { found, more: false };
      cursor = ids.at(-1)!;
    }
  }

  /** The message as a test sees it, converted once. */
  #converted(record: MessageText, sources: Map<number, string>, keep = true): TestMessage {
    // Pinning changes a stored message: its pin is part of the key, so a pinned message is converted again.
    const key = `${record.id}\n${record.receivedAt}\n${record.messageId}\n${record.pinned === true}`;
    let message = this.#seen.get(key);
    if (!message && !keep) return testMessage(record, sourceLabel(sources.get(record.sourceId), record.sourceId));
    if (!message) {
      if (this.#seen.size >= 100_000) this.#seen.clear(); // a long-running serve: converted again when asked
      message = testMessage(record, sourceLabel(sources.get(record.sourceId), record.sourceId));
      this.#seen.set(key, message);
    }
    return message;
  }

  #sourceNames(): Map<number, string> {
    return this.#readNames().sources;
  }

  #destinationNames(): Map<number, string> {
    return this.#readNames().destinations;
  }

  #readNames(): { sources: Map<number, string>; destinations: Map<number, string> } {
    if (this.#names) return this.#names;
    setImmediate(() => (this.#names = null));
    return (this.#names = {
      sources: new Map(this.#p.sources.list().map((s) => [s.id, s.name])),
      destinations: new Map(this.#p.destinations.list().map((d) => [d.id, d.name])),
    });
  }

  #testDelivery(d: Delivery, destinations: Map<number, string>, message: TestMessage): TestDelivery {
    return {
      id: d.id,
      destination: destinationName(destinations, d),
      status: d.status,
      trigger: d.trigger,
      attemptCount: d.attemptCount,
      lastError: d.lastError,
      skipReason: d.skipReason,
      shaping: d.shaping,
      body: d.body,
      message,
      attempts: this.#p.deliveries.attempts(d.id).map((a) => ({
        url: a.url,
        startedAt: new Date(a.startedAt).toISOString(),
        durationMs: a.durationMs,
        status: a.responseStatus,
        error: a.errorMessage,
        outcome: a.outcome,
        ...(a.transform ? { transform: a.transform } : {}),
      })),
    };
  }
}

function destinationName(destinations: Map<number, string>, d: Delivery): string {
  return destinations.get(d.destinationId) ?? `#${d.destinationId} (deleted)`;
}

function waitOptions(options: WaitOptions, where: string): { count: number; timeoutMs: number } {
  const count = options.count ?? 1;
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!Number.isInteger(count) || count < 1) throw new TypeError(`${where}: count must be a whole number ≥ 1`);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 2 ** 31 - 1) throw new TypeError(`${where}: timeoutMs must be a number of ms ≥ 0`);
  return { count, timeoutMs };
}

function deliveryFilter(filter: unknown, where: string): DeliveryWanted {
  if (filter !== undefined && filter !== null && (typeof filter !== 'object' || Array.isArray(filter))) throw new TypeError(`${where}: a filter is an object`);
  const { destination, status, ...message } = (filter ?? {}) as DeliveryFilter;
  if (destination !== undefined && typeof destination !== 'string') throw new TypeError(`${where}: filter.destination must be a destination's name`);
  if (status !== undefined && !(DELIVERY_STATUSES as readonly unknown[]).includes(status)) {
    throw new TypeError(`${where}: filter.status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  return { message: checkFilter(message, where), ...(destination !== undefined ? { destination } : {}), ...(status !== undefined ? { status } : {}) };
}
