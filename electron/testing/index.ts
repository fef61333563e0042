/**
 * Sluice in a test suite (issue 15): a relay started in the test's own process on free loopback ports,
 * with a temporary data folder, and the questions a test asks of it (core/queries/test-queries.ts) —
 * what was stored, wait until it is, what was delivered. A thin host over the core, as `sluice serve` is.
 *
 *   const sluice = await startSluice({ config });
 *   // point the client at sluice.ingestUrl with sluice.writeKey, send, flush
 *   const [order] = await sluice.waitForMessages({ event: 'Order Completed', properties: { total: 42 } });
 *   await sluice.close();
 */
// First: on a Node.js too old for the relay, importing sluice/testing throws one sentence saying so
// (before the store's modules, which would fail on node:sqlite with a message that says nothing).
import './node-floor.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFileSchema, describeIssues, type ConfigFile } from '../../shared/settings.ts';
import { ConfigError, loadConfigFile, resolveTransformFiles } from '../core/config/load-config.ts';
import { createCore, type Core } from '../core/index.ts';
import { UiServer } from '../host/ui-server.ts';
import { checkOptions, type MessageFilter, type TestMessage } from '../core/queries/filters.ts';
import type { SignatureVerdict } from '../../shared/receiver.ts';
import type { DeliveryFilter, MessageWaitOptions, TestDelivery, WaitOptions } from '../core/queries/test-queries.ts';
import { withCallerStack } from './caller-stack.ts';
import { invoke } from '../core/api/contract-handlers.ts';
import type { Channel, Responses } from '../../shared/contract.ts';
import type { FaultsView, FaultView, IngestFault } from '../../shared/channels/faults.ts';
import { withQueries } from './handle.ts';
import type { CoverageReport } from '../../shared/plan-coverage.ts';

export type { MessageFilter, TestMessage } from '../core/queries/filters.ts';
export { SluiceClosedError, SluiceTimeoutError, type DeliveryFilter, type MessageWaitOptions, type TestDelivery, type WaitOptions } from '../core/queries/test-queries.ts';
export type { FaultedRequest, FaultsView, FaultView, IngestFault } from '../../shared/channels/faults.ts';
export type { CoverageEvent, CoverageReport, CoverageState, PlanCoverage } from '../../shared/plan-coverage.ts';

/** A request Sluice refused: `code` is stable (`invalid_request`, `too_many_faults`), the message says what is wrong and the fix. */
export class SluiceRequestError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'SluiceRequestError';
    this.code = code;
  }
}

/**
 * Faults the ingestion endpoint answers with, to test a client's retry and offline paths (docs/testing.md,
 * "Fault injection"). Faults apply in the order they were added, to the Tracking API endpoints only;
 * a faulted request is never stored; reset() and close() end them.
 */
export interface SluiceFaults {
  /**
   * Adds a fault: `{ status: 503 | 429 | 500, retryAfter? }` answers that status (with a Retry-After
   * header), `{ drop: true }` closes the connection unanswered, `{ delayMs }` holds the request first
   * (alone: then it is handled as usual); `times` (requests) and `forMs` (on the relay's clock) end it,
   * else it stays until clear(); `path` limits it to one endpoint (e.g. '/v1/batch').
   */
  ingest(fault: IngestFault): Promise<FaultView>;
  /** Ends every fault; requests a delay holds are let go at once. The record of faulted requests stays. */
  clear(): Promise<{ cleared: number }>;
  /** The active faults and the recent faulted requests (time, path, source, what was done, body size). */
  list(): Promise<FaultsView>;
}

export interface StartOptions {
  /** Sources, destinations and audiences: an object in the config file's shape, or a config file's path. */
  config?: unknown;
  /** Where to store; default: a new temporary folder, removed by close(). */
  dataDir?: string;
}

export interface Sluice {
  /** Sluice's Segment-compatible endpoint (http://127.0.0.1:PORT): point a client here. */
  readonly ingestUrl: string;
  /** The first source's write key. */
  readonly writeKey: string;
  /**
   * The built-in webhook receiver (POST /hooks/<name>), for a program outside Sluice. A destination
   * names it `sluice://receiver/<name>` instead: that reaches it whatever port it has.
   */
  readonly receiverUrl: string;
  /** The HTTP API (/api/v1, docs/http-api.openapi.json), for a browser test or another process; with `token`. */
  readonly apiUrl: string;
  /** `Authorization: Bearer <token>` for the HTTP API. */
  readonly token: string;
  readonly dataDir: string;
  /** Stored messages that match, oldest first (all of them without a filter). */
  messages(filter?: MessageFilter): Promise<TestMessage[]>;
  /**
   * Resolves with the matches once `count` are stored (those stored before the call count too, or with
   * `afterSequence` only those stored after that message); rejects with a SluiceTimeoutError, or a
   * SluiceClosedError when the relay is closed first.
   */
  waitForMessages(filter?: MessageFilter, options?: MessageWaitOptions): Promise<TestMessage[]>;
  /** Deliveries that match, oldest first, with their attempts. */
  deliveries(filter?: DeliveryFilter): Promise<TestDelivery[]>;
  /** Resolves once `count` deliveries match (with `status`, e.g. 'delivered', in the filter or the options); rejects with a SluiceTimeoutError, or a SluiceClosedError when the relay is closed first. */
  waitForDeliveries(filter?: DeliveryFilter, options?: WaitOptions & { status?: TestDelivery['status'] }): Promise<TestDelivery[]>;
  /**
   * The requests the built-in receiver got (of one hook, or all), oldest first, each with its signature
   * verdict checked against the destinations' secrets: `valid` is a signed delivery that checks.
   */
  received(hook?: string): Promise<ReceivedRequest[]>;
  /**
   * Coverage of the tracking plans in use (the config's `trackingPlans`; `plan`: only that one): each
   * planned event seen, seen with violations or never seen, with counts, and the unplanned events seen.
   * From the counts the store keeps; `missing` counts the planned events never seen. sluice/matchers'
   * toCoverPlan() asserts on it.
   */
  coverage(options?: { plan?: string }): Promise<CoverageReport>;
  /** Fault injection into the ingestion endpoint: a 503, a 429, a slow answer, a dropped connection. */
  readonly faults: SluiceFaults;
  /**
   * Forgets every message, delivery and the built-in receiver's inbox, and ends every fault (a request
   * a delay holds is answered 503 `reset`, not stored); keeps sources, destinations and audiences. Deliveries in flight end first; nothing of what was forgotten
   * is sent afterwards.
   */
  reset(): Promise<void>;
  /** Stops it; a data folder it made is removed. */
  close(): Promise<void>;
}

/** A request the built-in receiver got. */
export interface ReceivedRequest {
  hook: string;
  receivedAt: string;
  headers: Record<string, string | string[] | undefined>;
  /** As received (its first 64 KB when bigger). */
  body: string;
  /** `valid`: signed, and the signature checks; `invalid`, `missing` (a secret was expected), `unsigned`, `unverifiable`. */
  signature: SignatureVerdict;
  /** What the receiver answered; null when the hook was told to hang. */
  status: number | null;
}

/**
 * Starts a Sluice for a test: its own ports and (unless given) its own temporary data folder. It, and
 * every function of the Sluice it gives, throws errors whose stack is the caller's (the test's line).
 */
export const startSluice: (options?: StartOptions) => Promise<Sluice> = withCallerStack(start);

async function start(options: StartOptions = {}): Promise<Sluice> {
  // A misspelt option (`confg`) would start a relay without the config: its plans unchecked, its tests passing.
  checkOptions(options, ['config', 'dataDir'], 'startSluice()');
  const config = configOf(options.config);
  const made = options.dataDir === undefined ? fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-test-')) : undefined;
  const dataDir = options.dataDir ?? made!;
  let core: Core | undefined;
  let api: UiServer;
  try {
    // A folder made here is removed by close(): its store is not synced to disk (store/connection.ts Durability).
    // A test suite starts relay after relay: a spare writer thread is kept loaded for the next one.
    core = await createCore({ dataDir, ingestPort: 0, receiverPort: 0, host: '127.0.0.1', durable: made === undefined, spareWriter: true, ...(config ? { config } : {}) });
    // The HTTP API, as `sluice serve` has it (no inspector page: a test that wants one runs sluice serve).
    api = new UiServer({ core, host: '127.0.0.1', port: 0 });
    await api.listen();
  } catch (error) {
    await core?.close();
    if (made) fs.rmSync(made, { recursive: true, force: true });
    throw error;
  }
  const started = core;
  let closed: Promise<void> | undefined;
  // The core's queries ride along for sluice/matchers (handle.ts), which waits on them directly.
  return withQueries({
    ingestUrl: started.ingestUrl,
    writeKey: started.sources.list()[0]!.writeKey,
    receiverUrl: started.receiver.url,
    apiUrl: api.apiUrl,
    token: api.token,
    dataDir,
    messages: withCallerStack(async (filter?: MessageFilter) => started.queries.messages(filter)),
    waitForMessages: withCallerStack((filter?: MessageFilter, wait?: MessageWaitOptions) => started.queries.waitForMessages(filter, wait)),
    deliveries: withCallerStack(async (filter?: DeliveryFilter) => started.queries.deliveries(filter)),
    waitForDeliveries: withCallerStack((filter?: DeliveryFilter, wait?: WaitOptions & { status?: TestDelivery['status'] }) =>
      started.queries.waitForDeliveries(filter, wait),
    ),
    received: withCallerStack(async (hook?: string) =>
      started.receiver.inbox(hook).map((entry) => ({
        hook: entry.hook,
        receivedAt: new Date(entry.receivedAt).toISOString(),
        headers: entry.headers,
        body: entry.body,
        signature: entry.signature,
        status: entry.answeredStatus,
      })),
    ),
    coverage: withCallerStack(async (options: { plan?: string } = {}) => {
      checkOptions(options, ['plan'], 'coverage()');
      return operation(started, 'plans.coverage', options.plan !== undefined ? { name: options.plan } : {});
    }),
    faults: {
      ingest: withCallerStack((fault: IngestFault) => operation(started, 'faults.ingest', fault)),
      clear: withCallerStack(() => operation(started, 'faults.clear', {})),
      list: withCallerStack(() => operation(started, 'faults.list', {})),
    },
    reset: withCallerStack(async () => {
      await started.reset();
    }),
    close: withCallerStack(
      () =>
        (closed ??= Promise.allSettled([api.close(), started.close()]).then((results) => {
          // The folder goes only once both let go of it.
          if (made) fs.rmSync(made, { recursive: true, force: true });
          const failed = results.find((result) => result.status === 'rejected');
          if (failed) throw failed.reason;
        })),
    ),
  }, started.queries);
}

/** A channel's operation, validated as the contract validates it; a refusal throws a SluiceRequestError naming the call. */
async function operation<C extends Channel>(core: Core, channel: C, request: unknown): Promise<Responses[C]> {
  const result = await invoke(core.operations, channel, request);
  if (!result.ok) throw new SluiceRequestError(result.error.code, `${channel}(): ${result.error.message}`);
  return result.value as Responses[C];
}

function configOf(config: unknown): ConfigFile | undefined {
  if (config === undefined) return undefined;
  if (typeof config === 'string') return loadConfigFile(path.resolve(config));
  const parsed = configFileSchema.safeParse(config);
  if (!parsed.success) throw new ConfigError('startSluice({ config })', describeIssues(parsed.error));
  resolveTransformFiles(parsed.data, process.cwd(), 'startSluice({ config })', 'the working directory');
  return parsed.data;
}
