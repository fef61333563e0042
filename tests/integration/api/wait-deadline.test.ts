// A wait's timeoutMs over the HTTP API counts from the request's arrival, not from when its body was
// read: a client's slow body uses up its time. Told apart by order, not by a clock: the body ends after
// the wait's time, and a matching message is stored 100 ms later. Counted from the arrival the wait
// has already timed out (408); counted from the body's end it would still be open when the message is
// stored, and answer 200 with it. A match stored before the request is still found. And no wait ends
// before its time, though its timer is set after the request arrived.
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { closedAfterEach } from '../../helpers/api-host.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
let ui: UiServer | undefined;
const closing = closedAfterEach();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * POSTs `body` to the API in two writes, `pauseMs` apart: the headers and the body's first half, then
 * the rest. `paused` resolves once the second write is made; `answer` with the status and JSON.
 */
function slowPost(path: string, body: string, pauseMs: number): { paused: Promise<void>; answer: Promise<{ status: number; json: any }> } {
  const half = Math.floor(body.length / 2);
  let resumed!: () => void;
  const paused = new Promise<void>((resolve) => (resumed = resolve));
  const answer = new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = http.request(`${ui!.apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ui!.token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.flushHeaders();
    req.write(body.slice(0, half));
    setTimeout(() => (req.end(body.slice(half)), resumed()), pauseMs);
  });
  return { paused, answer };
}

async function setup(): Promise<TestCore> {
  const config = configFileSchema.parse({ sources: [{ name: 'app', writeKey: 'wk_app' }], destinations: [{ name: 'inbox', sources: ['app'], webhooks: [{ url: 'sluice://receiver/inbox' }] }] });
  core = closing.core(await startCore({ config }));
  ui = closing.ui(new UiServer({ core, host: '127.0.0.1', port: 0 }));
  await ui.listen();
  return core;
}

describe('a wait held by the HTTP API', () => {
  it('counts timeoutMs from the request\'s arrival: a body that ends after the timeout is answered 408, though a match is stored 100 ms later', async () => {
    const c = await setup();
    const messages = slowPost('/messages/wait', JSON.stringify({ filter: { event: 'Slow Body' }, timeoutMs: 200 }), 300);
    const deliveries = slowPost('/deliveries/wait', JSON.stringify({ filter: { event: 'Slow Body' }, status: 'delivered', timeoutMs: 200 }), 300);
    await Promise.all([messages.paused, deliveries.paused]);
    // Inside the 200 ms a wait would have if it counted from its body's end.
    await sleep(100);
    expect((await post(c, '/v1/track', { userId: 'u', event: 'Slow Body', messageId: 'slow-1' })).status).toBe(200);

    expect(await messages.answer).toMatchObject({ status: 408, json: { error: { code: 'timeout', message: expect.stringMatching(/^waited 200 ms for 1 accepted message/) }, matched: [] } });
    expect(await deliveries.answer).toMatchObject({ status: 408, json: { error: { code: 'timeout', message: expect.stringMatching(/^waited 200 ms for 1 delivery/) }, matched: [] } });
    // The message was stored and delivered all the same: a wait asked now finds both.
    const after = (await c.queries.waitForDeliveries({ event: 'Slow Body' }, { status: 'delivered', timeoutMs: 5_000 }))[0]!;
    expect(after.message).toMatchObject({ messageId: 'slow-1' });
  });

  it('still answers with a match stored before the request when its body ends after the timeout', async () => {
    const c = await setup();
    expect((await post(c, '/v1/track', { userId: 'u', event: 'Stored First', messageId: 'first-1' })).status).toBe(200);
    const late = slowPost('/messages/wait', JSON.stringify({ filter: { event: 'Stored First' }, timeoutMs: 200 }), 300);
    expect(await late.answer).toMatchObject({ status: 200, json: { messages: [expect.objectContaining({ messageId: 'first-1' })] } });
  });
});

describe("a wait's deadline", () => {
  it('is never early: each of 30 waits, in the process and over HTTP, times out no sooner than its timeoutMs after it was asked', async () => {
    const c = await setup();
    const took: number[] = [];
    // Timers count in whole milliseconds of the event loop's clock: one set for the time left alone
    // fires up to 1 ms before it (4 to 9 of these 30 did, without the fix).
    for (let i = 0; i < 20; i++) {
      const asked = performance.now();
      await expect(c.queries.waitForMessages({ event: 'Never' }, { timeoutMs: 20 })).rejects.toThrow(/^waited 20 ms/);
      took.push(performance.now() - asked);
    }
    for (let i = 0; i < 10; i++) {
      const sent = performance.now();
      expect((await slowPost('/messages/wait', JSON.stringify({ filter: { event: 'Never' }, timeoutMs: 20 }), 0).answer).status).toBe(408);
      took.push(performance.now() - sent);
    }
    // A lower bound only: a busy machine makes a wait later, never earlier.
    expect(took.filter((ms) => ms < 20)).toEqual([]);
  });
});
