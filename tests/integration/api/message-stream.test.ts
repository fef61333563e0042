// GET /api/v1/messages/stream (issue 31, point 1): a reader that does not keep up costs the relay a bounded
// amount of memory, and loses nothing. A real core, the real HTTP API handler on a loopback server (its
// response held so the test can read how much is waiting to be sent), a raw client socket that stops reading.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serveHttpApi } from '../../../electron/host/http-api.ts';
import { followMessages, type FollowedMessage } from '../../../electron/core/queries/message-follow.ts';
import { SMALL_STORE_ROWS } from '../../../electron/core/queries/store-reader.ts';
import type { CoreEvents } from '../../../electron/core/bus/event-bus.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  await core?.dispose();
  core = server = undefined;
});

const TOKEN = 't'.repeat(32);

/** The core's HTTP API on a loopback port (closed after each test); resolves to its base URL, …/api/v1. */
async function serveApi(c: TestCore, signal = new AbortController().signal, seen?: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<string> {
  server = http.createServer((req, res) => {
    const origin = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    seen?.(req, res);
    void serveHttpApi(c, TOKEN, origin, req, res, new URL(req.url!, origin), signal);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
}
const BATCHES = 45;
const PER_BATCH = 100;
const PAD = 'x'.repeat(4000);

describe('the message stream', () => {
  it('holds back for a reader that stops reading (a bounded buffer, however much is stored), then sends it all in order', async () => {
    core = await startCore();
    const c = core;
    const stopping = new AbortController();
    let streamed: http.ServerResponse | undefined;
    await serveApi(c, stopping.signal, (req, res) => {
      if (req.url!.includes('/messages/stream')) streamed = res;
    });
    const port = (server!.address() as AddressInfo).port;

    const socket = net.connect(port, '127.0.0.1');
    socket.write(`GET /api/v1/messages/stream?settleMs=0 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    await until(() => received.includes('\r\n\r\n'), 10_000, 'the stream\'s headers');
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    socket.pause(); // the reader stops reading: the kernel's buffers fill, then the server's

    for (let b = 0; b < BATCHES; b++) {
      const batch = Array.from({ length: PER_BATCH }, (_, i) => ({ type: 'track', event: 'Bulk', userId: `u_${b}_${i}`, properties: { pad: PAD } }));
      expect((await post(c, '/v1/batch', { batch })).status).toBe(200);
    }
    const total = BATCHES * PER_BATCH;
    await until(() => c.queries.reader.topId() >= total, 60_000, 'every message stored');
    // The stream stalls: what it wrote waits on the reader, and it writes no more until that drains.
    await until(() => streamed?.writableNeedDrain, 30_000, 'the stream to wait for its reader');
    const waiting = streamed!.writableLength;
    const storedBytes = total * PAD.length;
    expect(storedBytes).toBeGreaterThan(17_000_000);
    expect(waiting).toBeLessThan(1_000_000); // one page at most, where every message is ~18 MB
    const before = received.length;
    expect(before).toBeLessThan(storedBytes / 2); // the reader has not been sent most of it yet

    socket.resume();
    await until(() => received.split('\n').filter((line) => line.startsWith('{')).length >= total, 60_000, 'every line once the reader reads again');
    const sequences = received.split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { message: { sequence: number } }).message.sequence);
    expect(sequences).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    stopping.abort();
    await until(() => received.endsWith('0\r\n\r\n'), 10_000, 'the stream to end as Sluice stops'); // the chunked body's end
    socket.destroy();
  }, 180_000);

  it('follows on after a reset, whose row ids start from 1 again', async () => {
    core = await startCore();
    const c = core;
    const base = await serveApi(c);
    const headers = { authorization: `Bearer ${TOKEN}` };
    const res = await fetch(`${base}/messages/stream?settleMs=0`, { headers });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const line = async (n: number) => {
      while (text.split('\n').length <= n) text += (await reader.read()).value ?? '';
      return JSON.parse(text.split('\n')[n - 1]!) as { message: { messageId: string; sequence: number } };
    };
    await post(c, '/v1/track', { userId: 'u', event: 'Before', messageId: 'before-reset' });
    expect((await line(1)).message).toMatchObject({ messageId: 'before-reset', sequence: 1 });
    expect((await fetch(`${base}/reset`, { method: 'POST', headers })).status).toBe(200);
    await post(c, '/v1/track', { userId: 'u', event: 'After', messageId: 'after-reset' });
    expect((await line(2)).message).toMatchObject({ messageId: 'after-reset', sequence: 1 });
    await reader.cancel();
  });

  it('follows on after a clear, a prune or a purge removed the newest messages, whose ids are given again', async () => {
    const DAY = 86_400_000;
    let now = Date.UTC(2026, 0, 1);
    core = await startCore({ clock: { now: () => now } });
    const c = core;
    const api = await serveApi(c);
    const res = await fetch(`${api}/messages/stream?settleMs=0`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    let seen = 0;
    /** The messageIds streamed since the last call, up to and with `last` (a lost one is missing from them). */
    const upTo = async (last: string) => {
      const ids = () => text.split('\n').slice(0, -1).map((line) => (JSON.parse(line) as { message: { messageId: string } }).message.messageId);
      while (!ids().includes(last)) text += (await reader.read()).value ?? '';
      const got = ids().slice(seen);
      seen = ids().length;
      return got;
    };
    const send = async (ids: string[], event = 'E') => {
      for (const messageId of ids) expect((await post(c, '/v1/track', { userId: 'u', event, messageId })).status).toBe(200);
    };
    await send(['a1', 'a2', 'a3']);
    expect(await upTo('a3')).toEqual(['a1', 'a2', 'a3']);
    // Everything cleared: the next messages take ids 1, 2, 3 again (the follower had passed 3), then 4.
    expect(await c.operations['storage.clear']({ scope: { all: true }, dryRun: false })).toMatchObject({ messages: 3 });
    await send(['b1', 'b2']);
    await send(['b3', 'b4'], 'Late');
    expect(await upTo('b4')).toEqual(['b1', 'b2', 'b3', 'b4']);
    // A filter's clear that removes the newest two (ids 3, 4): the next take 3, 4 and 5.
    expect(await c.operations['storage.clear']({ scope: { filter: { event: 'Late' } }, dryRun: false })).toMatchObject({ messages: 2 });
    await send(['c1', 'c2', 'c3']);
    expect(await upTo('c3')).toEqual(['c1', 'c2', 'c3']);
    // Age retention prunes everything on an idle relay: ids from 1 again.
    await c.pruner.setRetention({ maxAgeDays: 30, maxMessages: null, maxBytes: null });
    now += 31 * DAY;
    expect(await c.pruner.run()).toMatchObject({ reason: 'maxAgeDays', messages: 5 });
    await send(['d1', 'd2', 'd3', 'd4', 'd5', 'd6']);
    expect(await upTo('d6')).toEqual(['d1', 'd2', 'd3', 'd4', 'd5', 'd6']);
    // A deletion request's purge of the user of the newest two (ids 7, 8): the next take 7, 8 and 9.
    for (const messageId of ['e1', 'e2']) expect((await post(c, '/v1/track', { userId: 'gone', event: 'E', messageId })).status).toBe(200);
    expect(await upTo('e2')).toEqual(['e1', 'e2']);
    expect(await c.operations['deletions.create']({ userId: 'gone', purge: true })).toMatchObject({ purgedMessages: 2 });
    await send(['f1', 'f2', 'f3']);
    expect(await upTo('f3')).toEqual(['f1', 'f2', 'f3']);
    await reader.cancel();
  });

  it('a clear and new messages between two steps: the removed ones are not handed out, the new ones are, once each', async () => {
    core = await startCore();
    const c = core;
    const stop = new AbortController();
    const follow = followMessages(c.queries, c.bus, { settleMs: 0 }, stop.signal);
    const next = async () => ((await follow.next()).value as FollowedMessage).message.messageId;
    const send = async (ids: string[]) => {
      for (const messageId of ids) expect((await post(c, '/v1/track', { userId: 'u', event: 'E', messageId })).status).toBe(200);
    };
    const first = next(); // the follower starts after what is stored now
    await send(['a1', 'a2', 'a3']);
    expect(await first).toBe('a1'); // a2 and a3 are read too, held until asked for
    // Between two steps: every message cleared, three new ones stored with ids 1 to 3.
    await c.operations['storage.clear']({ scope: { all: true }, dryRun: false });
    await send(['b1', 'b2', 'b3', 'b4']); // ids 1 to 4
    expect([await next(), await next(), await next(), await next()]).toEqual(['b1', 'b2', 'b3', 'b4']);

    // A step that reads the store after a removal committed but before it is announced: new messages
    // above the cursor are handed out then, and not again once the cursor goes back.
    const held: CoreEvents['messages.removed'][] = [];
    const emit = c.bus.emit.bind(c.bus);
    c.bus.emit = ((event, payload) => {
      if (event === 'messages.removed') held.push(payload as CoreEvents['messages.removed']);
      else emit(event, payload);
    }) as typeof c.bus.emit;
    await c.operations['storage.clear']({ scope: { all: true }, dryRun: false });
    expect(held).toEqual([{ topId: 0 }]);
    await send(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']); // ids 1 to 6: the follower, past 4, sees c5 and c6
    expect([await next(), await next()]).toEqual(['c5', 'c6']);
    c.bus.emit = emit;
    const after = next();
    emit('messages.removed', held[0]!);
    expect([await after, await next(), await next(), await next()]).toEqual(['c1', 'c2', 'c3', 'c4']);
    await send(['d1']);
    expect(await next()).toBe('d1'); // not c5 or c6 again
    stop.abort();
    await follow.return(undefined);
  });

  it(`follows a store of more than ${SMALL_STORE_ROWS.toLocaleString('en-US')} messages on the core's thread, never queued behind the counting thread`, async () => {
    core = await startCore();
    const c = core;
    const PER = 1500;
    for (let b = 0; b * PER <= SMALL_STORE_ROWS; b++) {
      const batch = Array.from({ length: PER }, (_, i) => ({ type: 'track', event: 'Bulk', userId: `u_${b}_${i}` }));
      expect((await post(c, '/v1/batch', { batch })).status).toBe(200);
    }
    await until(() => c.queries.reader.topId() > SMALL_STORE_ROWS, 60_000, 'every message stored');
    let jobs = 0;
    const ids = c.counter.ids.bind(c.counter);
    c.counter.ids = (...args) => (jobs++, ids(...args));
    const stop = new AbortController();
    const follow = followMessages(c.queries, c.bus, { settleMs: 0 }, stop.signal);
    const first = follow.next();
    for (let i = 1; i <= 5; i++) await post(c, '/v1/track', { userId: 'u', event: 'Followed', messageId: `f${i}` });
    const got = [((await first).value as FollowedMessage).message.messageId];
    while (got.length < 5) got.push(((await follow.next()).value as FollowedMessage).message.messageId);
    expect(got).toEqual(['f1', 'f2', 'f3', 'f4', 'f5']);
    expect(jobs).toBe(0);
    stop.abort();
    await follow.return(undefined);
  }, 120_000);

  it('refuses what it cannot use with a 400 and a sentence', async () => {
    core = await startCore();
    const c = core;
    const base = `${await serveApi(c)}/messages/stream`;
    for (const [query, code, words] of [['?since=soon', 'invalid_request', 'since must be'], ['?settleMs=999999', 'invalid_request', 'settleMs must be'], ['?search=event%3A', 'invalid_query', 'search:'], ['?search=', 'invalid_request', 'is empty'], ['?limit=3', 'unknown_parameter', 'search, since, settleMs']] as const) {
      const res = await fetch(`${base}${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status, query).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code, query).toBe(code);
      expect(body.error.message, query).toContain(words);
    }
  });
});
