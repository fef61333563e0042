/**
 * The relay a matcher asks (index.ts): the Sluice of startSluice() in this process — its core's test
 * queries, waits pushed by each commit (core/queries/waits.ts) — or a relay in another process by its
 * HTTP API (`{ apiUrl, token }`, or `sluice serve --json`'s `{ api, token }`), whose wait
 * (`POST /api/v1/messages/wait`, `/deliveries/wait`) is the same wait held open over HTTP, and whose
 * messages carry their `sequence` (the stored order) for toHaveReceivedInOrder. Nothing here polls.
 */
import { checkFilter, matches, type MessageFilter, type TestMessage } from '../../core/queries/filters.ts';
import type { DeliveryFilter, TestDelivery, TestQueries } from '../../core/queries/test-queries.ts';
import { SluiceTimeoutError } from '../../core/queries/timeout-error.ts';
import { queriesOf } from '../handle.ts';
import type { CoverageReport } from '../../../shared/plan-coverage.ts';

/** A relay in another process, by its HTTP API: `apiUrl` (or `api`, as `sluice serve --json` prints it) and the token. */
export interface RemoteSluice {
  apiUrl?: string;
  api?: string;
  token: string;
}

/** A wait's outcome: the matches, or what came closest in words (core/queries/filters.ts explainShortfall). */
export type Waited<T> = { ok: true; items: T[] } | { ok: false; explanation: string; matched: T[] };

/** Messages that break a plan toHaveNoViolations reads at most: a failure lists some and says "at least" past this. */
export const VIOLATIONS_READ = 100;

export interface MatcherRelay {
  /** `afterSequence`: only messages stored after that one count. */
  waitForMessages(filter: MessageFilter | undefined, count: number, timeoutMs: number, afterSequence?: number): Promise<Waited<TestMessage>>;
  waitForDeliveries(filter: DeliveryFilter, status: TestDelivery['status'] | undefined, count: number, timeoutMs: number): Promise<Waited<TestDelivery>>;
  /**
   * The first `limit` stored matches after the row id `after`, with their row ids (stored order),
   * accepted ones unless the filter names a status: a bounded read, however many messages match.
   */
  firstAfter(filter: MessageFilter | undefined, after: number, limit: number, where: string): Promise<{ id: number; message: TestMessage }[]>;
  /** The first VIOLATIONS_READ stored messages that match and break a tracking plan (never all of them). */
  violating(filter: MessageFilter | undefined, where: string): Promise<TestMessage[]>;
  /** Coverage of the plans in use, or of the one named (kept counts: never a read of every message). */
  coverage(plan: string | undefined): Promise<CoverageReport>;
}

/** The received value is not a Sluice a matcher can ask. */
export class SluiceMatcherError extends TypeError {
  readonly code = 'not_a_sluice';
  constructor(message: string) {
    super(message);
    this.name = 'SluiceMatcherError';
  }
}

/** The relay `received` names; a SluiceMatcherError when it names none. */
export function relayOf(received: unknown, matcher: string): MatcherRelay {
  const queries = queriesOf(received);
  if (queries) return localRelay(queries, received as { coverage(options: { plan?: string }): Promise<CoverageReport> });
  const remote = received as Partial<RemoteSluice> | null;
  const apiUrl = typeof remote === 'object' && remote !== null ? (remote.apiUrl ?? remote.api) : undefined;
  if (typeof apiUrl === 'string' && typeof remote?.token === 'string') return remoteRelay(apiUrl.replace(/\/+$/, ''), remote.token);
  throw new SluiceMatcherError(
    `expect(received).${matcher}(): received is ${describe(received)}, not a Sluice: pass the Sluice that startSluice() (sluice/testing) gives, or { apiUrl, token } of a relay in another process (the "api" and "token" that sluice serve --json prints)`,
  );
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return `an object with ${Object.keys(value).slice(0, 6).join(', ') || 'no keys'}`;
  return `a ${typeof value}`;
}

function localRelay(queries: TestQueries, sluice: { coverage(options: { plan?: string }): Promise<CoverageReport> }): MatcherRelay {
  return {
    coverage: (plan) => sluice.coverage(plan !== undefined ? { plan } : {}),
    waitForMessages: (filter, count, timeoutMs, afterSequence) => waited(queries.waitForMessages(filter, { count, timeoutMs, ...(afterSequence ? { afterSequence } : {}) })),
    waitForDeliveries: (filter, status, count, timeoutMs) => waited(queries.waitForDeliveries(filter, { count, timeoutMs, ...(status ? { status } : {}) })),
    firstAfter: async (filter, after, limit, where) => (await queries.page(acceptedUnlessNamed(checkFilter(filter, where)), undefined, after, limit, where)).rows,
    violating: async (filter, where) => (await queries.page({ ...checkFilter(filter, where), violations: true }, undefined, 0, VIOLATIONS_READ, where)).rows.map((row) => row.message),
  };
}

async function waited<T>(wait: Promise<T[]>): Promise<Waited<T>> {
  try {
    return { ok: true, items: await wait };
  } catch (error) {
    if (error instanceof SluiceTimeoutError) return { ok: false, explanation: error.message, matched: error.matched as T[] };
    throw error;
  }
}

/** As a wait counts: without a status, only accepted messages (a duplicate or refused copy must not make a test pass). */
function acceptedUnlessNamed(filter: MessageFilter): MessageFilter {
  return filter.status === undefined ? { ...filter, status: 'accepted' } : filter;
}

/**
 * The longest wait the HTTP API holds (5 minutes; it refuses more): a matcher configured to wait longer
 * against a relay reached over HTTP waits that long.
 */
const heldAtMost = (timeoutMs: number) => Math.min(timeoutMs, 300_000);

function remoteRelay(apiUrl: string, token: string): MatcherRelay {
  const call = async (method: string, route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    let response: Response;
    try {
      response = await fetch(`${apiUrl}/${route}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      throw new Error(`Sluice's HTTP API at ${apiUrl} did not answer (${(error as Error).cause ?? (error as Error).message}): is the relay running, and apiUrl its "api"?`);
    }
    const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.status >= 400 && response.status !== 408) {
      const { code, message } = (json.error ?? {}) as { code?: string; message?: string };
      const text = `Sluice's HTTP API answered ${response.status}${code ? ` ${code}` : ''}: ${message ?? 'no explanation'}`;
      throw response.status === 400 ? new TypeError(text) : new Error(text);
    }
    return { status: response.status, json };
  };
  /**
   * Stored messages that `wanted` picks, oldest first, page by page of GET /messages from after the
   * message whose `sequence` is `afterSequence` (0: from the first): its plain fields as the list's
   * parameters, the rest (properties, traits, context) matched here; until `enough` of them, or none are left.
   */
  const list = async (wanted: MessageFilter, afterSequence: number, enough: number): Promise<TestMessage[]> => {
    // A page of `enough` when the list's parameters are the whole filter; more when some is matched here.
    const partly = wanted.properties !== undefined || wanted.traits !== undefined || wanted.context !== undefined;
    const params = new URLSearchParams({ limit: String(partly ? Math.max(enough, 100) : enough) });
    for (const key of ['type', 'event', 'userId', 'anonymousId', 'source', 'messageId', 'status', 'origin', 'violations'] as const) {
      if (wanted[key] !== undefined) params.set(key, String(wanted[key]));
    }
    const out: TestMessage[] = [];
    if (afterSequence > 0) params.set('afterSequence', String(afterSequence));
    for (;;) {
      const { json } = await call('GET', `messages?${params}`);
      out.push(...(json.messages as TestMessage[]).filter((message) => matches(message, wanted)));
      const next = json.next as string | null;
      if (next === null || out.length >= enough) return out.slice(0, enough);
      params.delete('afterSequence');
      params.set('after', next);
    }
  };
  return {
    async waitForMessages(filter, count, timeoutMs, afterSequence) {
      const { status, json } = await call('POST', 'messages/wait', { filter: filter ?? {}, count, timeoutMs: heldAtMost(timeoutMs), ...(afterSequence ? { afterSequence } : {}) });
      if (status === 200) return { ok: true, items: json.messages as TestMessage[] };
      return { ok: false, explanation: (json.error as { message: string }).message, matched: (json.matched ?? []) as TestMessage[] };
    },
    async waitForDeliveries(filter, status, count, timeoutMs) {
      const { status: answered, json } = await call('POST', 'deliveries/wait', { filter, ...(status ? { status } : {}), count, timeoutMs: heldAtMost(timeoutMs) });
      if (answered === 200) return { ok: true, items: json.deliveries as TestDelivery[] };
      return { ok: false, explanation: (json.error as { message: string }).message, matched: (json.matched ?? []) as TestDelivery[] };
    },
    async firstAfter(filter, after, limit, where) {
      const wanted = acceptedUnlessNamed(checkFilter(filter, where));
      const found = await list(wanted, after, limit);
      if (found.some((message) => typeof message.sequence !== 'number')) {
        throw new SluiceMatcherError(`toHaveReceivedInOrder(): the relay at ${apiUrl} gives its messages no "sequence" (a Sluice older than this sluice/matchers): run the version of Sluice the tests import`);
      }
      return found.map((message) => ({ id: message.sequence, message }));
    },
    violating: (filter, where) => list({ ...checkFilter(filter, where), violations: true }, 0, VIOLATIONS_READ),
    coverage: async (plan) => (await call('GET', `plans/coverage${plan !== undefined ? `?${new URLSearchParams({ plan })}` : ''}`)).json as unknown as CoverageReport,
  };
}
