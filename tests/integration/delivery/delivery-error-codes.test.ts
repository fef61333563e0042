// A failed or retrying delivery is listed with its last attempt's error code (and the HTTP status for
// `http`), in messages.list / messages.byIds / messages.get and in deliveries.changed, so the inspector
// names the error without reading the sentence. Real ingestion, SQLite, receivers and a closed port.
import { afterEach, describe, expect, it } from 'vitest';
import type { MessageSummary, Result } from '../../../shared/contract.ts';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import type { DeliveryChange } from '../../../electron/core/bus/event-bus.ts';
import { lastErrorOf } from '../../../electron/core/store/deliveries-repo.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { closedPort } from '../../helpers/ports.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
let now = T0;
const clock = { now: () => now };
const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
  now = T0;
});

/** One source per destination, so each message has exactly one delivery: the one its row shows. */
async function coreWithDestinations(webhooks: Record<string, string[]>): Promise<TestCore> {
  const names = Object.keys(webhooks);
  core = await startCore({
    config: {
      sources: names.map((name) => ({ name, writeKey: `wk_${name}`, kind: 'server' as const })),
      destinations: names.map((name) => ({
        name: `to ${name}`,
        enabled: true,
        sources: [name],
        webhooks: webhooks[name]!.map((url) => ({ url, headers: {} })),
        options: { bodyShape: 'seed' as const, concurrency: 8 },
      })),
    },
    clock,
    random: () => 0.5,
    // Short, for the hanging receiver; long enough that the answering ones never time out on a
    // loaded machine (300 ms once made the 503 receiver's answer a timeout while other suites ran).
    webhookTimeoutMs: 1_500,
  });
  return core;
}

async function track(c: TestCore, source: string): Promise<void> {
  const res = await post({ ingestUrl: c.ingestUrl, writeKey: `wk_${source}` }, '/v1/track', { userId: 'u_1', event: `from ${source}` });
  expect(res.status).toBe(200);
}

function value<T>(result: Result<unknown>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

/** Polls an async read until it returns something other than undefined. */
async function poll<T>(read: () => Promise<T | undefined>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const found = await read();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const byEvent = (messages: MessageSummary[]) => new Map(messages.map((m) => [m.event, m.delivery]));

describe('delivery error codes', () => {
  it('lists a timeout, a refused connection and HTTP answers with their codes and statuses, in lists, details and live changes', async () => {
    const hanging = await receiver();
    hanging.fallback = { hang: true };
    const busy = await receiver();
    busy.fallback = { status: 503, body: 'busy' };
    const missing = await receiver();
    missing.fallback = { status: 404, body: 'no such hook' };
    const port = await closedPort();
    const c = await coreWithDestinations({
      slow: [hanging.url],
      down: [`http://127.0.0.1:${port}/hook`],
      busy: [busy.url],
      missing: [missing.url],
      // Two webhooks: the row names the last attempt's error, the same one its sentence tells.
      mixed: [busy.url, `http://127.0.0.1:${port}/second`],
    });
    const changes: DeliveryChange[] = [];
    c.bus.on('deliveries.changed', (batch) => changes.push(...batch));
    for (const source of ['slow', 'down', 'busy', 'missing', 'mixed']) await track(c, source);

    const handlers = createHandlers(c);
    const settled = (m: MessageSummary) => m.delivery !== null && m.delivery.attemptCount >= 1;
    const list = await poll(async () => {
      const { messages } = value<{ messages: MessageSummary[] }>(await invoke(handlers, 'messages.list', {}));
      return messages.length === 5 && messages.every(settled) ? messages : undefined;
    }, 'five deliveries with one round each');

    const rows = byEvent(list);
    expect(rows.get('from slow')).toMatchObject({ status: 'retrying', lastErrorCode: 'timeout', lastHttpStatus: null });
    expect(rows.get('from down')).toMatchObject({ status: 'retrying', lastErrorCode: 'connect', lastHttpStatus: null });
    expect(rows.get('from busy')).toMatchObject({ status: 'retrying', lastErrorCode: 'http', lastHttpStatus: 503 });
    expect(rows.get('from missing')).toMatchObject({ status: 'failed', lastErrorCode: 'http', lastHttpStatus: 404 });
    const mixed = rows.get('from mixed')!;
    expect(mixed).toMatchObject({ status: 'retrying', lastErrorCode: 'connect', lastHttpStatus: null });
    expect(mixed.lastError).toMatch(/refused the connection/);

    // The same codes in byIds (live rows) and in a message's detail.
    const ids = list.map((m) => m.id);
    const again = byEvent(value<{ messages: MessageSummary[] }>(await invoke(handlers, 'messages.byIds', { ids })).messages);
    expect(again).toEqual(rows);
    const missingId = list.find((m) => m.event === 'from missing')!.id;
    const detail = value<{ delivery: unknown; deliveries: unknown[] }>(await invoke(handlers, 'messages.get', { id: missingId }));
    expect(detail.delivery).toMatchObject({ lastErrorCode: 'http', lastHttpStatus: 404 });
    expect(detail.deliveries[0]).toMatchObject({ lastErrorCode: 'http', lastHttpStatus: 404 });

    // And in the changes announced when each round was stored. A round is announced once the main thread
    // hears that its results committed, which can come after a read of the store already shows them.
    const announced = await poll(async () => {
      const last = new Map(changes.map((change) => [change.deliveryId, change]));
      return list.every((m) => last.get(m.delivery!.id)?.status === m.delivery!.status) ? last : undefined;
    }, 'each round announced');
    for (const m of list) {
      const change = announced.get(m.delivery!.id)!;
      expect({ code: change.lastErrorCode, status: change.lastHttpStatus }).toEqual({ code: m.delivery!.lastErrorCode, status: m.delivery!.lastHttpStatus });
    }

    // The busy receiver recovers: the next round delivers, and the code goes with the error.
    busy.fallback = { status: 200, body: 'ok' };
    now += 5_000;
    c.delivery.kick();
    const delivered = await poll(async () => {
      const { messages } = value<{ messages: MessageSummary[] }>(await invoke(handlers, 'messages.byIds', { ids }));
      const row = messages.find((m) => m.event === 'from busy')!;
      return row.delivery!.status === 'delivered' ? row.delivery : undefined;
    }, 'the busy destination to deliver');
    expect(delivered).toMatchObject({ lastError: null, lastErrorCode: null, lastHttpStatus: null });
    expect(changes.findLast((change) => change.deliveryId === delivered!.id)).toMatchObject({ status: 'delivered', lastErrorCode: null, lastHttpStatus: null });
  });

  it('pairs a code only with the round that put the delivery where it is', () => {
    const timeout = { errorCode: 'timeout' as const, responseStatus: null, outcome: 'retry' };
    expect(lastErrorOf({ status: 'retrying' }, timeout)).toEqual({ lastErrorCode: 'timeout', lastHttpStatus: null });
    expect(lastErrorOf({ status: 'failed' }, { errorCode: 'http', responseStatus: 410, outcome: 'final' })).toEqual({ lastErrorCode: 'http', lastHttpStatus: 410 });
    // Failed without sending (its message was purged): the older retry attempt is not its error.
    expect(lastErrorOf({ status: 'failed' }, timeout)).toEqual({ lastErrorCode: null, lastHttpStatus: null });
    expect(lastErrorOf({ status: 'cancelled' }, timeout)).toEqual({ lastErrorCode: null, lastHttpStatus: null });
    expect(lastErrorOf({ status: 'delivered' }, { errorCode: null, responseStatus: 200, outcome: 'success' })).toEqual({ lastErrorCode: null, lastHttpStatus: null });
    expect(lastErrorOf({ status: 'retrying' }, undefined)).toEqual({ lastErrorCode: null, lastHttpStatus: null });
  });
});
