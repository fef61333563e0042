// Failure handling against real local servers: what is retried (network errors, timeouts, 5xx,
// 408, 429 with Retry-After) and what is not (other 4xx); results reach the hooks, never an
// unhandled rejection.
import http from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client, type BatchResult, type ClientError } from '../../../electron/client/index.ts';
import { startCore, storedMessages } from '../../helpers/core.ts';
import { startScriptedServer, type ScriptedServer, type Script } from '../../helpers/client-helpers.ts';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(script: Script, options: ConstructorParameters<typeof Client>[1] = {}, messages = 2) {
  server = await startScriptedServer(script);
  const results: BatchResult[] = [];
  const errors: ClientError[] = [];
  const client = new Client('wk', {
    endpoint: server.url,
    flushAt: 100,
    retryDelayMs: 20,
    onSuccess: (r) => results.push(r),
    onError: (e) => errors.push(e),
    ...options,
  });
  for (let i = 0; i < messages; i++) client.track({ userId: 'u', event: `E${i}`, messageId: `m${i}` });
  const started = Date.now();
  await client.flush();
  const elapsed = Date.now() - started;
  await client.close();
  return { results, errors, elapsed, requests: server.requests, state: client.state };
}

describe('retried', () => {
  it('a 500, then success: the same messages again, with a fresh sentAt', async () => {
    const { results, errors, requests } = await run((n) => (n === 1 ? { status: 500 } : { status: 200 }));
    expect(errors).toEqual([]);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ attempts: 2, status: 200, count: 2, messageIds: ['m0', 'm1'] });
    expect(requests).toHaveLength(2);
    expect(requests[1]!.body.batch).toEqual(requests[0]!.body.batch);
    expect(Date.parse(requests[1]!.body.sentAt)).toBeGreaterThan(Date.parse(requests[0]!.body.sentAt));
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(9); // backoff: at least half of 20 ms
  });

  it('5xx until the retries run out: one http_error with the status, the attempts and the message ids', async () => {
    const { results, errors, requests, state } = await run(() => ({ status: 503 }), { maxRetries: 2 });
    expect(results).toEqual([]);
    expect(requests).toHaveLength(3);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'http_error', status: 503, attempts: 3, messageIds: ['m0', 'm1'] });
    expect(errors[0]!.message).toMatch(/after 3 attempts: the endpoint answered 503: scripted 503/);
    expect(state).toMatchObject({ sent: 0, failed: 2, lastResult: { ok: false, status: 503, attempts: 3 } });
  });

  it('exponential backoff: the waits grow', async () => {
    const { requests } = await run(() => ({ status: 500 }), { maxRetries: 3, retryDelayMs: 100 });
    const gaps = requests.slice(1).map((r, i) => r.at - requests[i]!.at);
    expect(gaps).toHaveLength(3);
    // Ceilings 100, 200, 400 ms; each wait is in the upper half of its ceiling.
    expect(gaps[0]).toBeGreaterThanOrEqual(45);
    expect(gaps[1]).toBeGreaterThanOrEqual(95);
    expect(gaps[2]).toBeGreaterThanOrEqual(195);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
  });

  it('429 honours Retry-After (1 s here, although the backoff would be 20 ms)', async () => {
    const { results, requests } = await run((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    expect(results[0]).toMatchObject({ attempts: 2 });
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it('408 is retried', async () => {
    const { results, requests } = await run((n) => (n === 1 ? { status: 408 } : { status: 200 }));
    expect(requests).toHaveLength(2);
    expect(results[0]).toMatchObject({ attempts: 2 });
  });

  it('a request that hangs past timeoutMs is cut and retried, then reported as timeout', async () => {
    const { errors, requests, elapsed } = await run(() => 'hang', { timeoutMs: 200, maxRetries: 1 });
    expect(requests).toHaveLength(2);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'timeout', attempts: 2, messageIds: ['m0', 'm1'] });
    expect(errors[0]!.status).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('a dropped connection is retried', async () => {
    const { results, requests } = await run((n) => (n === 1 ? 'reset' : { status: 200 }));
    expect(requests).toHaveLength(2);
    expect(results[0]).toMatchObject({ attempts: 2 });
  });

  it('a keep-alive connection the endpoint closed as the next batch went out: sent again on a new one, not counted as an attempt', async () => {
    // The endpoint answers the first request of each connection and drops the connection on the next
    // one (as a server does whose idle timeout fires just as a request arrives, without a hint).
    const seen = new WeakMap<net.Socket, number>();
    let answered = 0;
    let dropped = 0;
    const endpoint = http.createServer((req, res) => {
      const n = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, n);
      if (n > 1) {
        dropped++;
        req.socket.destroy();
        return;
      }
      req.resume().on('end', () => {
        answered++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
      });
    });
    endpoint.keepAliveTimeout = 60_000; // the connection stays open: the client reuses it
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    try {
      const results: BatchResult[] = [];
      const errors: ClientError[] = [];
      const client = new Client('wk', {
        endpoint: `http://127.0.0.1:${(endpoint.address() as net.AddressInfo).port}`,
        flushAt: 1,
        maxInFlight: 1,
        onSuccess: (r) => results.push(r),
        onError: (e) => errors.push(e),
      });
      for (let i = 0; i < 4; i++) {
        client.track({ userId: 'u', event: `E${i}` });
        await client.flush(); // one batch at a time, each on the connection the last one used
      }
      await client.close();
      expect(errors).toEqual([]);
      expect(results.map((r) => r.attempts)).toEqual([1, 1, 1, 1]);
      expect({ answered, dropped }).toEqual({ answered: 4, dropped: 3 });
    } finally {
      endpoint.closeAllConnections();
      await new Promise((resolve) => endpoint.close(resolve));
    }
  });

  it('connection refused: retried, then a network_error', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const errors: ClientError[] = [];
    const client = new Client('wk', { endpoint: `http://127.0.0.1:${port}`, maxRetries: 2, retryDelayMs: 10, onError: (e) => errors.push(e) });
    client.track({ userId: 'u', event: 'E' });
    await client.close();
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'network_error', attempts: 3 });
    expect(errors[0]!.message).toMatch(/ECONNREFUSED/);
  });
});

describe('not retried', () => {
  it('400: one attempt, reported with the endpoint’s own error message', async () => {
    const { errors, requests } = await run(() => ({ status: 400, body: '{"success":false,"error":{"code":"invalid_batch","message":"bad batch"}}' }));
    expect(requests).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'http_error', status: 400, attempts: 1 });
    expect(errors[0]!.message).toContain('the endpoint answered 400: bad batch');
  });

  it('401 from the real endpoint (unknown write key): one attempt', async () => {
    const core = await startCore();
    try {
      const errors: ClientError[] = [];
      const client = new Client('wk_unknown', { endpoint: core.ingestUrl, onError: (e) => errors.push(e) });
      client.track({ userId: 'u', event: 'E' });
      await client.close();
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'http_error', status: 401, attempts: 1 });
      // Nothing accepted; the one refused request is stored as an entry that says why (refused-requests.ts).
      expect(storedMessages(core, 'all').map((m) => [m.status, m.rejectCode])).toEqual([['rejected', 'invalid_write_key']]);
    } finally {
      await core.dispose();
    }
  });

  it('messages the real endpoint rejects inside an accepted batch are reported by id as rejected', async () => {
    const core = await startCore();
    try {
      const results: BatchResult[] = [];
      const errors: ClientError[] = [];
      const client = new Client(core.writeKey, { endpoint: core.ingestUrl, onError: (e) => errors.push(e), onSuccess: (r) => results.push(r) });
      let deep: Record<string, unknown> = {};
      for (let i = 0; i < 150; i++) deep = { deep }; // valid for the client, too deep for the endpoint (100 levels)
      client.track({ userId: 'u', event: 'ok-1', messageId: 'ok-1' });
      client.track({ userId: 'u', event: 'deep', messageId: 'too-deep', properties: deep });
      client.track({ userId: 'u', event: 'ok-2', messageId: 'ok-2' });
      await client.close();
      expect(results).toHaveLength(1);
      expect(results[0]!.rejected).toEqual([expect.objectContaining({ index: 1, messageId: 'too-deep' })]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ code: 'rejected', messageIds: ['too-deep'], status: 200 });
      expect(client.state).toMatchObject({ sent: 2, failed: 1 });
      expect(storedMessages(core).map((r) => r.messageId)).toEqual(['ok-1', 'ok-2']);
    } finally {
      await core.dispose();
    }
  });

  it('reads a long answer to the end: 999 rejections (over 64 KB of answer) are all reported', async () => {
    const core = await startCore();
    try {
      const results: BatchResult[] = [];
      const errors: ClientError[] = [];
      const client = new Client(core.writeKey, { endpoint: core.ingestUrl, flushAt: 1000, onError: (e) => errors.push(e), onSuccess: (r) => results.push(r) });
      let deep: unknown[] = []; // arrays: small enough for all 1,000 to fit one request
      for (let i = 0; i < 110; i++) deep = [deep];
      client.track({ userId: 'u', event: 'ok', messageId: 'ok' });
      for (let i = 0; i < 999; i++) client.track({ userId: 'u', event: 'deep', messageId: `deep-${i}`, properties: { deep } });
      await client.close();
      expect(results).toHaveLength(1);
      expect(results[0]!.rejected).toHaveLength(999);
      expect(errors.flatMap((e) => e.messageIds)).toHaveLength(999);
      expect(errors.every((e) => e.code === 'rejected')).toBe(true);
      expect(client.state).toMatchObject({ sent: 1, failed: 999 });
      expect(storedMessages(core).map((r) => r.messageId)).toEqual(['ok']);
    } finally {
      await core.dispose();
    }
  });
});

describe('without an onError hook', () => {
  it('failures become process warnings, not exceptions or rejections', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      server = await startScriptedServer(() => ({ status: 400 }));
      const client = new Client('wk', { endpoint: server.url, flushAt: 1 });
      client.track({ userId: 'u', event: 'E' });
      await client.close();
      await new Promise((r) => setImmediate(r));
      expect(warnings.map((w) => [w.name, w.message])).toEqual([['SluiceClientWarning', expect.stringContaining('answered 400')]]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a throwing hook is reported as a warning and the client carries on', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      server = await startScriptedServer(() => ({ status: 200 }));
      const client = new Client('wk', {
        endpoint: server.url,
        flushAt: 1,
        onSuccess: () => {
          throw new Error('hook bug');
        },
      });
      client.track({ userId: 'u', event: 'A' });
      client.track({ userId: 'u', event: 'B' });
      await client.close();
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => /onSuccess hook threw: hook bug/.test(w.message))).toHaveLength(2);
      expect(client.state.sent).toBe(2);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
