// When the client sends: by count, by time (manual clock), by bytes, flushAt 1, flush(), close();
// the 32 KB limit; a full queue; the observable state. Against the real endpoint unless a scripted
// one is needed to hold requests.
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client, ClientError, type BatchResult, type ClientState } from '../../../electron/client/index.ts';
import { SEGMENT_MAX_MESSAGE_BYTES, SEGMENT_MAX_REQUEST_BYTES } from '../../../shared/limits.ts';
import { startCore, storedMessages, waitForStored, type TestCore } from '../../helpers/core.ts';
import { ManualClock, startScriptedServer, until, type Answer } from '../../helpers/client-helpers.ts';

let core: TestCore;
beforeEach(async () => {
  core = await startCore();
});
afterEach(async () => {
  await core.dispose();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const collect = () => {
  const results: BatchResult[] = [];
  const errors: ClientError[] = [];
  return { results, errors, onSuccess: (r: BatchResult) => results.push(r), onError: (e: ClientError) => errors.push(e) };
};
/** A gate: requests wait on it until opened. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

describe('flush triggers', () => {
  it('by count: a batch goes as soon as flushAt messages are queued, without flush()', async () => {
    const seen = collect();
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: 5, ...seen });
    const stored = waitForStored(core, 10);
    for (let i = 0; i < 12; i++) client.track({ userId: 'u', event: `E${i}` });
    await stored;
    await until(() => seen.results.length === 2); // the answer comes after the commit
    expect(seen.results.map((r) => r.count)).toEqual([5, 5]);
    expect(client.state.queued).toBe(2);
    await client.close();
    expect(seen.results.map((r) => r.count)).toEqual([5, 5, 2]);
    expect(storedMessages(core).map((r) => r.event)).toEqual(Array.from({ length: 12 }, (_, i) => `E${i}`));
    expect(seen.errors).toEqual([]);
  });

  it('flushAt 1 (or size 1) sends each message at once, in its own request', async () => {
    const seen = collect();
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, size: 1, ...seen });
    const stored = waitForStored(core, 3);
    client.identify({ userId: 'u' });
    client.track({ userId: 'u', event: 'E' });
    client.page({ userId: 'u', name: 'Home' });
    await stored;
    await until(() => seen.results.length === 3);
    expect(seen.results.map((r) => r.count)).toEqual([1, 1, 1]);
    await client.close();
  });

  it('by time: flushAfter (manual clock) since the last flush; a count flush restarts the timer', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const seen = collect();
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: 3, flushAfter: 5000, clock, ...seen });
    expect(client.state.nextFlushAt).toBeNull(); // no timer while nothing is queued
    client.track({ userId: 'u', event: 'first' });
    expect(client.state).toMatchObject({ queued: 1, nextFlushAt: t0 + 5000, nextFlushInMs: 5000 });
    clock.advance(4999);
    await sleep(100);
    expect(storedMessages(core)).toHaveLength(0);
    expect(client.state.nextFlushInMs).toBe(1);
    let stored = waitForStored(core, 1);
    clock.advance(1);
    await stored;
    await until(() => seen.results.length === 1);
    expect(seen.results.map((r) => r.count)).toEqual([1]);
    expect(client.state.nextFlushAt).toBeNull();

    // A count flush is a flush: the next timer starts from the first message after it.
    client.track({ userId: 'u', event: 'a' });
    expect(client.state.nextFlushAt).toBe(t0 + 10_000);
    clock.advance(3000);
    stored = waitForStored(core, 3);
    client.track({ userId: 'u', event: 'b' });
    client.track({ userId: 'u', event: 'c' }); // third message: flushAt reached
    await stored;
    await until(() => seen.results.length === 2);
    expect(client.state.nextFlushAt).toBeNull();
    client.track({ userId: 'u', event: 'd' });
    expect(client.state.nextFlushAt).toBe(t0 + 8000 + 5000);
    stored = waitForStored(core, 1);
    clock.advance(5000);
    await stored;
    await until(() => seen.results.length === 3);
    expect(seen.results.map((r) => r.count)).toEqual([1, 3, 1]);
    await client.close();
    expect(clock.pending()).toEqual([]);
  });

  it('by time, for messages a full batch leaves queued: they keep the timer they started, not one from that batch', async () => {
    const clock = new ManualClock();
    const t0 = clock.now();
    const held = gate();
    const ok: Answer = { status: 200, body: '{"success":true}' };
    const server = await startScriptedServer((n) => (n === 1 ? held.wait.then(() => ok) : ok));
    try {
      const seen = collect();
      const client = new Client('wk', { endpoint: server.url, flushAt: 4, flushAfter: 5000, maxInFlight: 1, clock, ...seen });
      for (let i = 0; i < 4; i++) client.track({ userId: 'u', event: `a${i}` }); // full: batch A goes, and is held
      await until(() => server.requests.length === 1);
      clock.advance(1000);
      for (let i = 0; i < 6; i++) client.track({ userId: 'u', event: `b${i}` }); // b0–b3 full but no slot; b4, b5 wait
      expect(client.state.nextFlushAt).toBe(t0 + 6000);
      clock.advance(1000);
      held.open(); // A answered at t0 + 2 s: B (b0–b3) takes the slot; b4 and b5 keep their timer
      await until(() => server.requests.length === 2);
      expect(client.state.nextFlushAt).toBe(t0 + 6000);
      clock.advance(4000);
      await until(() => server.requests.length === 3);
      expect(server.requests.map((r) => r.body.batch.map((m) => m.event))).toEqual([
        ['a0', 'a1', 'a2', 'a3'],
        ['b0', 'b1', 'b2', 'b3'],
        ['b4', 'b5'],
      ]);
      await client.close();
    } finally {
      await server.close();
    }
  });

  it('by bytes: batches are split so that no request exceeds 500 KB, and a full one goes without waiting', async () => {
    const seen = collect();
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: 100, ...seen });
    const pad = 'x'.repeat(30_000);
    const stored = waitForStored(core, 40);
    for (let i = 0; i < 40; i++) client.track({ userId: 'u', event: `E${i}`, properties: { i, pad } }); // ~1.2 MB
    // 40 < flushAt, yet 500 KB worth of messages makes a full batch: sent before any flush().
    await until(() => seen.results.length >= 2, 10_000, 'batches full by bytes');
    await client.flush();
    await stored;
    expect(seen.errors).toEqual([]);
    expect(seen.results.reduce((n, r) => n + r.count, 0)).toBe(40);
    for (const r of seen.results) expect(r.bytes).toBeLessThanOrEqual(SEGMENT_MAX_REQUEST_BYTES);
    // Tight packing: each request but the last is within one message of the limit.
    for (const r of seen.results.slice(0, -1)) expect(r.bytes).toBeGreaterThan(SEGMENT_MAX_REQUEST_BYTES - 31_000);
    expect(storedMessages(core)).toHaveLength(40);
    await client.close();
  });
});

describe('flush()', () => {
  it('resolves once everything queued before it is stored by the endpoint', async () => {
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: 100, flushAfter: 60_000 });
    for (let i = 0; i < 7; i++) client.track({ userId: 'u', event: `E${i}` });
    await client.flush();
    // The endpoint answers after its commit: what flush() waited for is already readable.
    expect(storedMessages(core)).toHaveLength(7);
    await client.flush(); // nothing queued: resolves at once
    await client.close();
  });

  it('does not wait for messages queued after the call, and resolves when a batch finally fails', async () => {
    const held = gate();
    const server = await startScriptedServer(async (n): Promise<Answer> => {
      if (n === 1) return { status: 200 };
      if (n === 2) return { status: 400 };
      await held.wait;
      return { status: 200 };
    });
    try {
      const seen = collect();
      const client = new Client('wk', { endpoint: server.url, flushAt: 100, maxInFlight: 4, ...seen });
      client.track({ userId: 'u', event: 'first' });
      const first = client.flush();
      client.track({ userId: 'u', event: 'later' }); // after the call: not waited for
      await first;
      expect(seen.results.map((r) => r.count)).toEqual([1]);
      const failing = client.flush(); // 'later' goes in request 2, answered 400: final, not retried
      await failing;
      expect(seen.errors.map((e) => [e.code, e.status, e.attempts])).toEqual([['http_error', 400, 1]]);
      client.track({ userId: 'u', event: 'held' });
      let resolved = false;
      void client.flush().then(() => (resolved = true));
      await until(() => server.requests.length === 3);
      await sleep(50);
      expect(resolved).toBe(false);
      held.open();
      await until(() => resolved);
      await client.close();
    } finally {
      await server.close();
    }
  });
});

describe('close()', () => {
  it('flushes, stops the timers, and refuses later calls with client_closed', async () => {
    const clock = new ManualClock();
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: 100, clock });
    client.track({ userId: 'u', event: 'A' });
    client.identify({ userId: 'u', traits: { a: 1 } });
    expect(clock.pending()).toEqual([5000]);
    const closing = client.close();
    expect(client.close()).toBe(closing); // same promise
    expect(client.state.closed).toBe(true);
    await closing;
    expect(storedMessages(core)).toHaveLength(2); // answered after commit
    expect(clock.pending()).toEqual([]);
    expect(client.state).toMatchObject({ queued: 0, inFlightBatches: 0, nextFlushAt: null, sent: 2 });
    expect(() => client.track({ userId: 'u', event: 'late' })).toThrow(ClientError);
    try {
      client.page({ userId: 'u' });
    } catch (error) {
      expect((error as ClientError).code).toBe('client_closed');
    }
    await expect(client.flush()).rejects.toMatchObject({ code: 'client_closed' });
    await client.close();
    await sleep(50);
    expect(storedMessages(core)).toHaveLength(2);
  });

  it('with a timeout, gives up on what is not accepted in time and reports it as aborted', async () => {
    const server = await startScriptedServer(() => 'hang');
    try {
      const seen = collect();
      const client = new Client('wk', { endpoint: server.url, flushAt: 2, maxInFlight: 1, ...seen });
      for (let i = 0; i < 5; i++) client.track({ userId: 'u', event: `E${i}` }); // 2 in flight, 3 queued
      await until(() => server.requests.length === 1);
      const started = Date.now();
      await client.close({ timeoutMs: 300 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(seen.errors.map((e) => e.code).sort()).toEqual(['aborted', 'aborted']);
      expect(seen.errors.flatMap((e) => e.messageIds)).toHaveLength(5);
      expect(client.state).toMatchObject({ queued: 0, inFlightBatches: 0, failed: 5, sent: 0 });
    } finally {
      await server.close();
    }
  });
});

describe('close({ timeoutMs })', () => {
  it('Infinity (and more than a timer holds) means no deadline: everything is sent', async () => {
    for (const timeoutMs of [Infinity, 2 ** 31, 30 * 24 * 3600 * 1000]) {
      const server = await startScriptedServer(() => new Promise<Answer>((resolve) => setTimeout(() => resolve({ status: 200, body: '{"success":true}' }), 50)));
      try {
        const seen = collect();
        const client = new Client('wk', { endpoint: server.url, flushAt: 2, ...seen });
        for (let i = 0; i < 5; i++) client.track({ userId: 'u', event: `E${i}` });
        await client.close({ timeoutMs });
        expect(seen.errors, String(timeoutMs)).toEqual([]);
        expect(client.state, String(timeoutMs)).toMatchObject({ sent: 5, failed: 0 });
      } finally {
        await server.close();
      }
    }
  });

  it('refuses a timeout that is not a number ≥ 0, and stays open', async () => {
    const client = new Client('wk', { endpoint: 'http://127.0.0.1:9' });
    for (const timeoutMs of [Number.NaN, -1, '500' as unknown as number]) {
      expect(() => client.close({ timeoutMs }), String(timeoutMs)).toThrow(expect.objectContaining({ code: 'invalid_option' }) as Error);
    }
    expect(client.track({ userId: 'u', event: 'E' })).toBe(true); // not closed by the refused calls
    await client.close({ timeoutMs: 0 });
  });

  it('keeps its deadline while a connection is still being set up (a TLS endpoint that never answers the handshake)', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket)); // accepts, never speaks
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const seen = collect();
      const client = new Client('wk', { endpoint: `https://127.0.0.1:${(silent.address() as net.AddressInfo).port}`, flushAt: 1, timeoutMs: 30_000, ...seen });
      client.track({ userId: 'u', event: 'E' });
      await until(() => sockets.length === 1);
      const started = Date.now();
      await client.close({ timeoutMs: 300 });
      expect(Date.now() - started).toBeLessThan(3_000); // undici's own connect timeout is 10 s
      expect(seen.errors.map((e) => e.code)).toEqual(['aborted']);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe('limits', () => {
  it('refuses a message over 32 KB with an error; one of exactly 32 KB is accepted by the endpoint', async () => {
    const seen = collect();
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, ...seen });
    const probe = JSON.stringify({ type: 'track', messageId: 'exact', timestamp: '2026-11-20T08:30:00.000Z', userId: 'u', event: 'E', properties: { pad: '' }, context: { library: { name: 'sluice-client', version: '0.1.0' } } });
    const pad = 'x'.repeat(SEGMENT_MAX_MESSAGE_BYTES - Buffer.byteLength(probe));
    expect(() => client.track({ userId: 'u', event: 'E', properties: { pad: `${pad}x` }, messageId: 'exact', timestamp: '2026-11-20T08:30:00.000Z' })).toThrow(
      expect.objectContaining({ code: 'message_too_large' }),
    );
    expect(client.state.queued).toBe(0);
    client.track({ userId: 'u', event: 'E', properties: { pad }, messageId: 'exact', timestamp: '2026-11-20T08:30:00.000Z' });
    expect(client.state.queuedBytes).toBe(SEGMENT_MAX_MESSAGE_BYTES);
    await client.close();
    expect(seen.errors).toEqual([]);
    expect(storedMessages(core, 'all').map((r) => [r.messageId, r.status])).toEqual([['exact', 'accepted']]);
  });

  it('when the queue is full, drops new messages (false + queue_full error, counted) until there is room', async () => {
    const held = gate();
    const server = await startScriptedServer(async () => {
      await held.wait;
      return { status: 200 };
    });
    try {
      const seen = collect();
      const client = new Client('wk', { endpoint: server.url, flushAt: 10, maxQueueSize: 20, maxInFlight: 1, ...seen });
      const queued: boolean[] = [];
      for (let i = 0; i < 35; i++) queued.push(client.track({ userId: 'u', event: `E${i}` }));
      // 10 went into the request (held), 20 wait in the queue, 5 were dropped.
      expect(queued.filter(Boolean)).toHaveLength(30);
      expect(queued.slice(30)).toEqual([false, false, false, false, false]);
      expect(seen.errors.map((e) => e.code)).toEqual(Array(5).fill('queue_full'));
      expect(seen.errors.every((e) => e.messageIds.length === 1)).toBe(true);
      expect(client.state).toMatchObject({ queued: 20, inFlightBatches: 1, inFlightMessages: 10, dropped: 5 });
      expect(client.hasRoom).toBe(false);

      let roomy = false;
      const room = client.waitForRoom().then(() => (roomy = true));
      await sleep(50);
      expect(roomy).toBe(false);
      held.open();
      await room; // the queue drained to half its size
      expect(client.state.queued).toBeLessThanOrEqual(10);
      expect(client.hasRoom).toBe(true);
      expect(client.track({ userId: 'u', event: 'after' })).toBe(true);
      await client.close();
      expect(client.state).toMatchObject({ sent: 31, dropped: 5, failed: 0 });
      expect(server.requests.flatMap((r) => r.body.batch.map((m) => m.event))).toHaveLength(31);
    } finally {
      await server.close();
    }
  });
});

describe('observable state', () => {
  it('subscribe() gets the state now and after changes; the snapshot has counts, bytes, timer, in-flight and last result', async () => {
    const clock = new ManualClock();
    const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: 100, flushAfter: 2000, clock });
    const states: ClientState[] = [];
    const unsubscribe = client.subscribe((s) => states.push(s));
    expect(states).toHaveLength(1);
    expect(states[0]).toMatchObject({ queued: 0, queuedBytes: 0, nextFlushAt: null, inFlightBatches: 0, sent: 0, lastResult: null, closed: false });
    for (let i = 0; i < 3; i++) client.track({ userId: 'u', event: `E${i}` });
    await sleep(20);
    expect(states).toHaveLength(2); // one notification for the burst
    expect(states[1]).toMatchObject({ queued: 3, nextFlushInMs: 2000 });
    expect(states[1]!.queuedBytes).toBeGreaterThan(300);
    await client.flush();
    await sleep(20);
    const last = states.at(-1)!;
    expect(last).toMatchObject({ queued: 0, queuedBytes: 0, inFlightBatches: 0, sent: 3, nextFlushAt: null });
    expect(last.lastResult).toMatchObject({ ok: true, messages: 3, status: 200, attempts: 1, error: null });
    expect(states.some((s) => s.inFlightBatches === 1 && s.inFlightMessages === 3)).toBe(true);
    unsubscribe();
    const count = states.length;
    client.track({ userId: 'u', event: 'x' });
    await sleep(20);
    expect(states).toHaveLength(count);
    await client.close();
  });
});
