/**
 * Sluice in a test suite (issue 15): a relay started in the test's own process on free loopback ports,
 * with a temporary data folder, and the questions a test asks of it — what was stored, wait until it
 * is, what was delivered. A thin host over the core, as `sluice serve` is.
 *
 *   const sluice = await startSluice({ config });
 *   // point the client at sluice.ingestUrl with sluice.writeKey, send, flush
 *   const [order] = await sluice.waitForMessages({ event: 'Order Completed', properties: { total: 42 } });
 *   await sluice.close();
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFileSchema, describeIssues, type ConfigFile } from '../../shared/settings.ts';
import { ConfigError, loadConfigFile } from '../core/config/load-config.ts';
import { createCore, type Core } from '../core/index.ts';
import type { Delivery } from '../core/store/deliveries-repo.ts';
import type { StoredMessage } from '../core/store/messages-repo.ts';
import { checkFilter, explainShortfall, matches, type MessageFilter, type TestMessage } from './filters.ts';

export type { MessageFilter, TestMessage } from './filters.ts';

export interface StartOptions {
  /** Sources, destinations and audiences: an object in the config file's shape, or a config file's path. */
  config?: unknown;
  /** Where to store; default: a new temporary folder, removed by close(). */
  dataDir?: string;
}

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

export interface Sluice {
  /** Sluice's Segment-compatible endpoint (http://127.0.0.1:PORT): point a client here. */
  readonly ingestUrl: string;
  /** The first source's write key. */
  readonly writeKey: string;
  /** The built-in webhook receiver (POST /hooks/<name>). */
  readonly receiverUrl: string;
  readonly dataDir: string;
  /** Stored messages that match, oldest first (all of them without a filter). */
  messages(filter?: MessageFilter): Promise<TestMessage[]>;
  /** Resolves with the matches once `count` are stored (those stored before the call count too); rejects with a SluiceTimeoutError. */
  waitForMessages(filter?: MessageFilter, options?: WaitOptions): Promise<TestMessage[]>;
  /** Deliveries that match, oldest first, with their attempts. */
  deliveries(filter?: DeliveryFilter): Promise<TestDelivery[]>;
  /** Resolves once `count` deliveries match (with `status`, e.g. 'delivered', in the filter or the options); rejects with a SluiceTimeoutError. */
  waitForDeliveries(filter?: DeliveryFilter, options?: WaitOptions & { status?: Delivery['status'] }): Promise<TestDelivery[]>;
  /**
   * Forgets every message, delivery and the built-in receiver's inbox; keeps sources, destinations and
   * audiences. Deliveries in flight end first; nothing of what was forgotten is sent afterwards.
   */
  reset(): Promise<void>;
  /** Stops it; a data folder it made is removed. */
  close(): Promise<void>;
}

/** Starts a Sluice for a test: its own ports and (unless given) its own temporary data folder. */
export async function startSluice(options: StartOptions = {}): Promise<Sluice> {
  const config = configOf(options.config);
  const made = options.dataDir === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-test-')) : undefined;
  const dataDir = options.dataDir ?? made!;
  let core: Core;
  try {
    core = await createCore({ dataDir, ingestPort: 0, receiverPort: 0, host: '127.0.0.1', ...(config ? { config } : {}) });
  } catch (error) {
    if (made) fs.rmSync(made, { recursive: true, force: true });
    throw error;
  }
  return new TestSluice(core, dataDir, made !== undefined);
}

function configOf(config: unknown): ConfigFile | undefined {
  if (config === undefined) return undefined;
  if (typeof config === 'string') return loadConfigFile(path.resolve(config));
  const parsed = configFileSchema.safeParse(config);
  if (!parsed.success) throw new ConfigError('startSluice({ config })', describeIssues(parsed.error));
  return parsed.data;
}

class TestSluice implements Sluice {
  readonly ingestUrl: string;
  readonly writeKey: string;
  readonly receiverUrl: string;
  readonly dataDir: string;
  readonly #core: Core;
  readonly #removeDataDir: boolean;
  /**
   * Converted messages: a stored message does not change. Keyed by more than the row id, which SQLite
   * gives again once the newest rows are gone (a purge, a reset).
   */
  readonly #seen = new Map<string, TestMessage>();
  #closed: Promise<void> | undefined;

  constructor(core: Core, dataDir: string, removeDataDir: boolean) {
    this.#core = core;
    this.dataDir = dataDir;
    this.#removeDataDir = removeDataDir;
    this.ingestUrl = core.ingestUrl;
    this.writeKey = core.sources.list()[0]!.writeKey;
    this.receiverUrl = core.receiver.url;
  }

  async messages(filter?: MessageFilter): Promise<TestMessage[]> {
    const wanted = checkFilter(filter, 'messages()');
    return this.#all().filter((message) => matches(message, wanted));
  }

  async waitForMessages(filter?: MessageFilter, options: WaitOptions = {}): Promise<TestMessage[]> {
    const wanted = checkFilter(filter, 'waitForMessages()');
    const { count, timeoutMs } = waitOptions(options, 'waitForMessages()');
    return this.#waitFor(timeoutMs, () => {
      const all = this.#all();
      const found = all.filter((message) => matches(message, wanted));
      return found.length >= count ? found.slice(0, count) : { found, all };
    }, ({ found, all }) => new SluiceTimeoutError(explainShortfall(wanted, count, found.length, all, timeoutMs), found));
  }

  async deliveries(filter?: DeliveryFilter): Promise<TestDelivery[]> {
    return this.#deliveries(deliveryFilter(filter, 'deliveries()'));
  }

  async waitForDeliveries(filter?: DeliveryFilter, options: WaitOptions & { status?: Delivery['status'] } = {}): Promise<TestDelivery[]> {
    const wanted = deliveryFilter(options.status !== undefined ? { ...filter, status: options.status } : filter, 'waitForDeliveries()');
    const { count, timeoutMs } = waitOptions(options, 'waitForDeliveries()');
    return this.#waitFor(timeoutMs, () => {
      const found = this.#deliveries(wanted);
      return found.length >= count ? found.slice(0, count) : { found, all: [] };
    }, ({ found }) => {
      const all = this.#deliveries({ message: {} });
      const states = [...new Set(all.map((d) => `${d.destination}: ${d.status}${d.lastError ? ` (${d.lastError})` : ''}`))].slice(0, 5);
      return new SluiceTimeoutError(
        `waited ${timeoutMs} ms for ${count} deliver${count === 1 ? 'y' : 'ies'} matching ${JSON.stringify(filter ?? {})}; ${found.length} matched (${all.length} in all${states.length ? `: ${states.join('; ')}` : ''})`,
        found,
      );
    });
  }

  async reset(): Promise<void> {
    await this.#core.reset();
    this.#seen.clear();
  }

  close(): Promise<void> {
    this.#closed ??= this.#core.close().finally(() => {
      if (this.#removeDataDir) fs.rmSync(this.dataDir, { recursive: true, force: true });
    });
    return this.#closed;
  }

  /**
   * Checks now and after each store or delivery change until `check` gives its answer (an array), or
   * rejects with `timeout(what it last saw)`. Listening starts before the first check, so nothing
   * stored in between is missed.
   */
  #waitFor<T, S>(timeoutMs: number, check: () => T[] | S, timeout: (seen: S) => Error): Promise<T[]> {
    return new Promise((resolve, reject) => {
      let finished = false;
      let last: S | undefined;
      const finish = (result: T[] | Error) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        offStored();
        offChanged();
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
      const offStored = this.#core.bus.on('messages.stored', run);
      const offChanged = this.#core.bus.on('deliveries.changed', run);
      const timer = setTimeout(() => {
        run(); // a last look: something may have landed since the last event
        if (!finished) finish(timeout(last as S));
      }, timeoutMs);
      run();
    });
  }

  /** Every stored message, oldest first. */
  #all(): TestMessage[] {
    return this.#rows().map(({ message }) => message);
  }

  /** Every stored message with its row id, oldest first. */
  #rows(): { id: number; message: TestMessage }[] {
    const rows: StoredMessage[] = [];
    for (let beforeId: number | undefined; ; ) {
      const page = this.#core.messages.list({ limit: 1000, ...(beforeId !== undefined ? { beforeId } : {}) });
      rows.push(...page);
      if (page.length < 1000) break;
      beforeId = page.at(-1)!.id;
    }
    const sources = new Map(this.#core.sources.list().map((s) => [s.id, s.name]));
    return rows.reverse().map((row) => {
      const key = `${row.id}\n${row.receivedAt}\n${row.messageId}`;
      let message = this.#seen.get(key);
      if (!message) {
        message = testMessage(row, this.#core.messages.get(row.id)?.raw, sources.get(row.sourceId) ?? String(row.sourceId));
        this.#seen.set(key, message);
      }
      return { id: row.id, message };
    });
  }

  #deliveries(filter: { message: MessageFilter; destination?: string; status?: string }): TestDelivery[] {
    const destinations = new Map(this.#core.destinations.list().map((d) => [d.id, d.name]));
    const out: TestDelivery[] = [];
    for (const { id, message } of this.#rows()) {
      if (!matches(message, filter.message)) continue;
      for (const d of this.#core.deliveries.forMessage(id)) {
        const destination = destinations.get(d.destinationId) ?? `#${d.destinationId} (deleted)`;
        if (filter.destination !== undefined && destination !== filter.destination) continue;
        if (filter.status !== undefined && d.status !== filter.status) continue;
        out.push({
          id: d.id,
          destination,
          status: d.status,
          trigger: d.trigger,
          attemptCount: d.attemptCount,
          lastError: d.lastError,
          body: d.body,
          message,
          attempts: this.#core.deliveries.attempts(d.id).map((a) => ({
            url: a.url,
            startedAt: new Date(a.startedAt).toISOString(),
            durationMs: a.durationMs,
            status: a.responseStatus,
            error: a.errorMessage,
            outcome: a.outcome,
          })),
        });
      }
    }
    return out.sort((a, b) => a.id - b.id);
  }
}

function testMessage(row: StoredMessage, raw: string | undefined, source: string): TestMessage {
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
    status: row.status,
    rejection: row.status === 'rejected' ? { code: row.rejectCode ?? 'rejected', reason: row.rejectReason ?? '' } : null,
  };
}

function waitOptions(options: WaitOptions, where: string): { count: number; timeoutMs: number } {
  const count = options.count ?? 1;
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!Number.isInteger(count) || count < 1) throw new TypeError(`${where}: count must be a whole number ≥ 1`);
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > 2 ** 31 - 1) throw new TypeError(`${where}: timeoutMs must be a number of ms ≥ 0`);
  return { count, timeoutMs };
}

function deliveryFilter(filter: DeliveryFilter | undefined, where: string): { message: MessageFilter; destination?: string; status?: string } {
  const { destination, status, ...message } = (filter ?? {}) as DeliveryFilter;
  if (destination !== undefined && typeof destination !== 'string') throw new TypeError(`${where}: filter.destination must be a destination's name`);
  if (status !== undefined && typeof status !== 'string') throw new TypeError(`${where}: filter.status must be a delivery status`);
  return { message: checkFilter(message, where), ...(destination !== undefined ? { destination } : {}), ...(status !== undefined ? { status } : {}) };
}
