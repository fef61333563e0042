/**
 * The questions a test asks of a Sluice — what was stored, wait until it is, what was delivered — for
 * both of its adapters: sluice/testing in the test's process (electron/testing/) and the HTTP API
 * (electron/host/http-api.ts). Reads only; a wait listens to the bus.
 */
import type { EventBus } from '../bus/event-bus.ts';
import type { DeliveriesRepo, Delivery } from '../store/deliveries-repo.ts';
import type { DestinationsRepo } from '../store/destinations-repo.ts';
import type { MessageRecord, MessagesRepo, StoredMessage } from '../store/messages-repo.ts';
import type { SourcesRepo } from '../store/sources-repo.ts';
import { DELIVERY_STATUSES } from '../../../shared/message-filter.ts';
import { sourceLabel } from '../../../shared/refused-request.ts';
import { checkFilter, explainShortfall, matches, type MessageFilter, type TestMessage } from './filters.ts';
import { filterSql } from './filter-sql.ts';

export interface WaitOptions {
  /** Matches to wait for (default 1). */
  count?: number;
  /** Default 5,000 ms. */
  timeoutMs?: number;
}

/** A delivery as a test sees it: where it went, how it ended, each attempt, and its message. */
export interface TestDelivery {
  id: number;
  /** The destination's name. */
  destination: string;
  status: Delivery['status'];
  trigger: Delivery['trigger'];
  attemptCount: number;
  lastError: string | null;
  /** Why a `skipped` delivery was not sent (a tracking plan's block, integrations that turn it off…); null otherwise. */
  skipReason: string | null;
  /** The body sent (the last attempt's); null until one is. */
  body: string | null;
  message: TestMessage | null;
  attempts: { url: string; startedAt: string; durationMs: number; status: number | null; error: string | null; outcome: string }[];
}

/** A delivery filter: its message's fields, and the destination (name) and delivery status. */
export interface DeliveryFilter extends Omit<MessageFilter, 'status'> {
  destination?: string;
  status?: Delivery['status'];
}

/** A wait ran out of time; `message` says what was asked and what came closest. */
export class SluiceTimeoutError extends Error {
  readonly code = 'timeout';
  /** What had arrived that matched, fewer than asked. */
  readonly matched: readonly unknown[];
  constructor(message: string, matched: readonly unknown[]) {
    super(message);
    this.name = 'SluiceTimeoutError';
    this.matched = matched;
  }
}

/** A stored message with its row id (the HTTP API's paging cursor). */
export interface Row {
  id: number;
  message: TestMessage;
}

export interface QueryParts {
  bus: EventBus;
  messages: MessagesRepo;
  sources: SourcesRepo;
  destinations: DestinationsRepo;
  deliveries: DeliveriesRepo;
}

export class TestQueries {
  readonly #p: QueryParts;
  /**
   * Converted messages: a stored message does not change. Keyed by more than the row id, which SQLite
   * gives again once the newest rows are gone (a purge, a reset).
   */
  readonly #seen = new Map<string, TestMessage>();
  #generation = 0;

  constructor(parts: QueryParts) {
    this.#p = parts;
    // A re-check may rewrite stored messages' violations (wording too, not only their number).
    parts.bus.on('plans.recheck', (progress) => {
      if (progress.state !== 'running') this.#seen.clear();
    });
  }

  /** Stored messages that match, oldest first, with their row ids. */
  rows(filter?: unknown, where = 'messages()'): Row[] {
    const wanted = checkFilter(filter, where);
    return this.#rows().filter(({ message }) => matches(message, wanted));
  }

  /**
   * A page of the stored messages that match `filter` and `search` (a query, shared/message-query.ts),
   * oldest first: at most `limit` after the row id `after`, and whether more follow. Read by id with SQL
   * (filter-sql.ts, the search indexes): only the page's messages are read and converted. A QueryError
   * when the search does not parse.
   */
  page(filter: unknown, search: string | undefined, after: number, limit: number, where: string): { rows: Row[]; more: boolean } {
    const ids = this.#p.messages.idsAfter(filterSql(checkFilter(filter, where)), search, after, limit + 1);
    const sources = this.#sourceNames();
    const rows = ids.slice(0, limit).flatMap((id) => {
      const record = this.#p.messages.get(id);
      return record ? [{ id, message: this.#converted(record, record, sources) }] : [];
    });
    return { rows, more: ids.length > limit };
  }

  /**
   * A page of deliveries as `deliveries` gives them (of the messages that match the filter, to the
   * destination and in the status it names) whose message matches `search`, by delivery id after
   * `after`: at most `limit`, and whether more follow. Read by id with SQL, as `page`.
   */
  deliveryPage(filter: unknown, search: string | undefined, after: number, limit: number, where: string): { deliveries: TestDelivery[]; more: boolean } {
    const wanted = deliveryFilter(filter, where);
    const terms = filterSql(wanted.message);
    if (wanted.destination !== undefined) (terms.where.push('dv.destination_id IN (SELECT id FROM destinations WHERE name = ?)'), terms.params.push(wanted.destination));
    if (wanted.status !== undefined) (terms.where.push('dv.status = ?'), terms.params.push(wanted.status));
    const ids = this.#p.deliveries.idsAfter(terms, search, after, limit + 1);
    const destinations = this.#destinationNames();
    const sources = this.#sourceNames();
    const deliveries = this.#p.deliveries.byIds(ids.slice(0, limit)).flatMap((d) => {
      const record = d.messageId === null ? undefined : this.#p.messages.get(d.messageId);
      return record ? [this.#testDelivery(d, destinations, this.#converted(record, record, sources))] : [];
    });
    return { deliveries, more: ids.length > limit };
  }

  messages(filter?: unknown): TestMessage[] {
    return this.rows(filter).map(({ message }) => message);
  }

  /** The stored message with this messageId (the accepted one first), with its deliveries. */
  messageById(messageId: string): { message: TestMessage; deliveries: TestDelivery[] } | undefined {
    const found = this.#rows().filter(({ message }) => message.messageId === messageId);
    const row = found.find(({ message }) => message.status === 'accepted') ?? found[0];
    return row ? { message: row.message, deliveries: this.#deliveriesOf([row], {}) } : undefined;
  }

  /**
   * Resolves with the first `count` matches. Without a `status` in the filter only accepted messages
   * count: a retried (duplicate) or refused (rejected) copy must not make a broken tracking test pass.
   */
  async waitForMessages(filter?: unknown, options: WaitOptions = {}, signal?: AbortSignal): Promise<TestMessage[]> {
    const given = checkFilter(filter, 'waitForMessages()');
    const wanted: MessageFilter = given.status === undefined ? { ...given, status: 'accepted' } : given;
    const { count, timeoutMs } = waitOptions(options, 'waitForMessages()');
    return this.#waitFor(timeoutMs, signal, () => {
      const all = this.#rows().map(({ message }) => message);
      const found = all.filter((message) => matches(message, wanted));
      return found.length >= count ? found.slice(0, count) : { found, all };
    }, ({ found, all }) => new SluiceTimeoutError(explainShortfall(wanted, count, found.length, all, timeoutMs, given), found));
  }

  deliveries(filter?: unknown, where = 'deliveries()'): TestDelivery[] {
    const wanted = deliveryFilter(filter, where);
    return this.#deliveriesOf(this.#rows().filter(({ message }) => matches(message, wanted.message)), wanted);
  }

  async waitForDeliveries(filter?: unknown, options: WaitOptions & { status?: string } = {}, signal?: AbortSignal): Promise<TestDelivery[]> {
    const merged = options.status !== undefined ? { ...(filter as object | undefined), status: options.status } : filter;
    const wanted = deliveryFilter(merged, 'waitForDeliveries()');
    const { count, timeoutMs } = waitOptions(options, 'waitForDeliveries()');
    return this.#waitFor(timeoutMs, signal, () => {
      const found = this.#deliveriesOf(this.#rows().filter(({ message }) => matches(message, wanted.message)), wanted);
      return found.length >= count ? found.slice(0, count) : { found };
    }, ({ found }) => {
      const all = this.#deliveriesOf(this.#rows(), {});
      const states = [...new Set(all.map((d) => `${d.destination}: ${d.status}${d.lastError ? ` (${d.lastError})` : ''}`))].slice(0, 5);
      return new SluiceTimeoutError(
        `waited ${timeoutMs} ms for ${count} deliver${count === 1 ? 'y' : 'ies'} matching ${JSON.stringify(merged ?? {})}; ${found.length} matched (${all.length} in all${states.length ? `: ${states.join('; ')}` : ''})`,
        found,
      );
    });
  }

  /**
   * Counts by status and by type. A rejected message's type is whatever the client wrote ("constructor",
   * "__proto__"): counted in a Map, and given as an object's own properties, never an inherited one.
   */
  stats(): { messages: Record<string, number>; types: Record<string, number>; deliveries: Record<string, number> } {
    const types = new Map<string, number>();
    for (const { message } of this.#rows()) types.set(String(message.type), (types.get(String(message.type)) ?? 0) + 1);
    return { messages: { ...this.#p.messages.countByStatus() }, types: Object.fromEntries(types), deliveries: { ...this.#p.deliveries.countByStatus() } };
  }

  /** Resets since start: row ids are given again from 1 after one, so a paging cursor names its generation. */
  get generation(): number {
    return this.#generation;
  }

  /** After a reset: nothing seen is kept. */
  forget(): void {
    this.#seen.clear();
    this.#generation++;
  }

  /**
   * Checks now and after each store or delivery change until `check` gives its answer (an array), or
   * rejects with `timeout(what it last saw)` — or when `signal` aborts (a client that hung up).
   * Listening starts before the first check, so nothing stored in between is missed.
   */
  #waitFor<T, S>(timeoutMs: number, signal: AbortSignal | undefined, check: () => T[] | S, timeout: (seen: S) => Error): Promise<T[]> {
    return new Promise((resolve, reject) => {
      let finished = false;
      let last: S | undefined;
      const finish = (result: T[] | Error) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        offStored();
        offChanged();
        signal?.removeEventListener('abort', aborted);
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const run = () => {
        if (finished) return;
        try {
          const result = check();
          if (Array.isArray(result)) finish(result);
          else last = result;
        } catch (error) {
          finish(error as Error);
        }
      };
      const aborted = () => finish(new Error('the wait was abandoned'));
      const offStored = this.#p.bus.on('messages.stored', run);
      const offChanged = this.#p.bus.on('deliveries.changed', run);
      signal?.addEventListener('abort', aborted);
      const timer = setTimeout(() => {
        run(); // a last look: something may have landed since the last event
        if (!finished) finish(timeout(last as S));
      }, timeoutMs);
      run();
    });
  }

  /** Every stored message with its row id, oldest first. */
  #rows(): Row[] {
    const rows: StoredMessage[] = [];
    for (let beforeId: number | undefined; ; ) {
      const page = this.#p.messages.list({ limit: 1000, ...(beforeId !== undefined ? { beforeId } : {}) });
      rows.push(...page);
      if (page.length < 1000) break;
      beforeId = page.at(-1)!.id;
    }
    const sources = this.#sourceNames();
    return rows.reverse().map((row) => ({ id: row.id, message: this.#converted(row, undefined, sources) }));
  }

  /** The message as a test sees it, converted once (`record`: its payload, read here when not given). */
  #converted(row: StoredMessage, record: MessageRecord | undefined, sources: Map<number, string>): TestMessage {
    const key = `${row.id}\n${row.receivedAt}\n${row.messageId}`;
    let message = this.#seen.get(key);
    if (!message) {
      if (this.#seen.size >= 100_000) this.#seen.clear(); // a long-running serve: converted again when asked
      message = testMessage(row, record ?? this.#p.messages.get(row.id), sourceLabel(sources.get(row.sourceId), row.sourceId));
      this.#seen.set(key, message);
    }
    return message;
  }

  #sourceNames(): Map<number, string> {
    return new Map(this.#p.sources.list().map((s) => [s.id, s.name]));
  }

  #destinationNames(): Map<number, string> {
    return new Map(this.#p.destinations.list().map((d) => [d.id, d.name]));
  }

  #deliveriesOf(rows: readonly Row[], filter: { destination?: string; status?: string }): TestDelivery[] {
    const destinations = this.#destinationNames();
    const out: TestDelivery[] = [];
    for (const { id, message } of rows) {
      for (const d of this.#p.deliveries.forMessage(id)) {
        if (filter.destination !== undefined && destinationName(destinations, d) !== filter.destination) continue;
        if (filter.status !== undefined && d.status !== filter.status) continue;
        out.push(this.#testDelivery(d, destinations, message));
      }
    }
    return out.sort((a, b) => a.id - b.id);
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
      body: d.body,
      message,
      attempts: this.#p.deliveries.attempts(d.id).map((a) => ({
        url: a.url,
        startedAt: new Date(a.startedAt).toISOString(),
        durationMs: a.durationMs,
        status: a.responseStatus,
        error: a.errorMessage,
        outcome: a.outcome,
      })),
    };
  }
}

function destinationName(destinations: Map<number, string>, d: Delivery): string {
  return destinations.get(d.destinationId) ?? `#${d.destinationId} (deleted)`;
}

function testMessage(row: StoredMessage, record: MessageRecord | undefined, source: string): TestMessage {
  const raw = record?.raw;
  let received: Record<string, unknown> = {};
  try {
    const parsed: unknown = raw === undefined ? {} : JSON.parse(raw);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) received = parsed as Record<string, unknown>;
  } catch {
    // a rejected message's text that is not JSON: only what Sluice recorded of it
  }
  return {
    ...received,
    ...(row.type !== null ? { type: row.type } : {}),
    ...(row.messageId !== null ? { messageId: row.messageId } : {}),
    receivedAt: new Date(row.receivedAt).toISOString(),
    source,
    origin: row.origin,
    status: row.status,
    rejection: row.status === 'rejected' ? { code: row.rejectCode ?? 'rejected', reason: row.rejectReason ?? '' } : null,
    violations: record?.violationList ?? [],
    blocked: row.blocked ?? null,
    warning: row.warning ?? null,
  };
}

function waitOptions(options: WaitOptions, where: string): { count: number; timeoutMs: number } {
  const count = options.count ?? 1;
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!Number.isInteger(count) || count < 1) throw new TypeError(`${where}: count must be a whole number ≥ 1`);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 2 ** 31 - 1) throw new TypeError(`${where}: timeoutMs must be a number of ms ≥ 0`);
  return { count, timeoutMs };
}

function deliveryFilter(filter: unknown, where: string): { message: MessageFilter; destination?: string; status?: string } {
  if (filter !== undefined && filter !== null && (typeof filter !== 'object' || Array.isArray(filter))) throw new TypeError(`${where}: a filter is an object`);
  const { destination, status, ...message } = (filter ?? {}) as DeliveryFilter;
  if (destination !== undefined && typeof destination !== 'string') throw new TypeError(`${where}: filter.destination must be a destination's name`);
  if (status !== undefined && !(DELIVERY_STATUSES as readonly unknown[]).includes(status)) {
    throw new TypeError(`${where}: filter.status must be one of ${DELIVERY_STATUSES.join(', ')}`);
  }
  return { message: checkFilter(message, where), ...(destination !== undefined ? { destination } : {}), ...(status !== undefined ? { status } : {}) };
}
