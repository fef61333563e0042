// One stored message by its messageId over the HTTP API, whatever the id: the user's analytics client
// chooses it, so it may be "stream" or "wait" (the paths of the follow stream and of the wait under
// /messages/), hold a slash, or any other character. GET /api/v1/messages/by-id/{messageId} reaches every
// id a path segment can carry; the older GET /api/v1/messages/{messageId} keeps answering the others.
// A real Sluice (sluice/testing's startSluice: its ingestion endpoint and HTTP API on loopback ports),
// messages sent through the ingestion endpoint, requests as any HTTP client makes them.
import { afterEach, describe, expect, it } from 'vitest';
import { startSluice, type Sluice } from '../../../electron/testing/index.ts';
import { post } from '../../helpers/core.ts';

let sluice: Sluice | undefined;
afterEach(async () => {
  await sluice?.close();
  sluice = undefined;
});

async function start(): Promise<Sluice> {
  sluice = await startSluice({
    config: { sources: [{ name: 'app', writeKey: 'wk_app' }], destinations: [{ name: 'inbox', sources: ['app'], webhooks: [{ url: 'sluice://receiver/inbox' }] }] },
  });
  return sluice;
}

/** Sends one track call per messageId through the ingestion endpoint, each with `properties.ref` naming it; resolves once all are stored. */
async function track(s: Sluice, ids: string[]): Promise<void> {
  const batch = ids.map((messageId, i) => ({ type: 'track', event: 'Id Tried', userId: 'u_1', messageId, properties: { ref: i } }));
  expect((await post(s, '/v1/batch', { batch })).status).toBe(200);
  await s.waitForMessages({ event: 'Id Tried' }, { count: ids.length });
}

async function api(s: Sluice, path: string, method = 'GET', body?: unknown) {
  const res = await fetch(`${s.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${s.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const byId = (id: string) => `/messages/by-id/${encodeURIComponent(id)}`;

describe('GET /api/v1/messages/by-id/{messageId}', () => {
  it('fetches the messages whose messageId is "stream" or "wait" (other endpoints\' paths under /messages/), with their deliveries', async () => {
    const s = await start();
    await track(s, ['stream', 'wait']);
    await s.waitForDeliveries({ event: 'Id Tried' }, { status: 'delivered', count: 2 });
    for (const [ref, id] of ['stream', 'wait'].entries()) {
      const one = await api(s, byId(id));
      expect(one.status).toBe(200);
      expect(one.json.message).toMatchObject({ messageId: id, event: 'Id Tried', properties: { ref }, status: 'accepted' });
      expect(one.json.deliveries).toEqual([expect.objectContaining({ status: 'delivered', attempts: [expect.objectContaining({ status: 200 })] })]);
    }
    // The older path cannot be them: it is the wait (POST only) — the reason for the route above.
    expect((await api(s, '/messages/wait')).json.error.code).toBe('method_not_allowed');
  });

  it('round-trips a percent-encoded id with a slash, reserved characters or non-ASCII, on the new path and on the older one', async () => {
    const s = await start();
    const ids = ['a/b', 'by-id', 'by-id/x', 'q?x=1&y=2#frag', '100%', '%2F', 'sp ace+plus', 'ünï/çødé 😀', '..x', 'messages/stream', "'\";\\"];
    await track(s, ids);
    for (const [ref, id] of ids.entries()) {
      const one = await api(s, byId(id));
      expect(one.status, id).toBe(200);
      expect(one.json.message, id).toMatchObject({ messageId: id, properties: { ref } });
      // Every URL of the older path keeps answering, "by-id" itself too (one segment fewer than the new path).
      const old = await api(s, `/messages/${encodeURIComponent(id)}`);
      expect(old.status, id).toBe(200);
      expect(old.json.message, id).toMatchObject({ messageId: id, properties: { ref } });
    }
    expect(await api(s, byId('no-such-id'))).toMatchObject({ status: 404, json: { error: { code: 'not_found', message: 'no stored message has messageId "no-such-id"' } } });
    expect(await api(s, '/messages/by-id/%E0')).toMatchObject({ status: 400, json: { error: { code: 'invalid_request' } } });
    expect(await api(s, '/messages/by-id/x?messageId=x')).toMatchObject({ status: 400, json: { error: { code: 'unknown_parameter' } } });
    expect(await api(s, byId('a/b'), 'POST', {})).toMatchObject({ status: 405, json: { error: { code: 'method_not_allowed' } } });
  });

  it('"." and "..", which no URL path can carry (parsers resolve them, even percent-encoded), answer 404 naming the list\'s exact filter, which finds them', async () => {
    const s = await start();
    await track(s, ['.', '..']);
    for (const id of ['.', '..']) {
      const refused = await api(s, byId(id));
      expect(refused.status, id).toBe(404);
      expect(refused.json.error.message, id).toMatch(/names no messageId: .*"\." and "\.\." cannot be a path segment, read them with \/api\/v1\/messages\?messageId=/);
      const listed = await api(s, `/messages?messageId=${encodeURIComponent(id)}`);
      expect(listed.json.messages.map((m: { messageId: string }) => m.messageId)).toEqual([id]);
    }
  });

  it('leaves the follow stream and the wait where they were: GET /messages/stream streams, POST /messages/wait waits', async () => {
    const s = await start();
    const stop = new AbortController();
    const stream = await fetch(`${s.apiUrl}/messages/stream?settleMs=0`, { headers: { authorization: `Bearer ${s.token}` }, signal: stop.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const waited = api(s, '/messages/wait', 'POST', { filter: { messageId: 'wait' }, timeoutMs: 10_000 });
    await track(s, ['stream', 'wait']);
    expect((await waited).json.messages).toEqual([expect.objectContaining({ messageId: 'wait', properties: { ref: 1 } })]);
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (text.split('\n').length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    stop.abort();
    expect(text.split('\n').slice(0, 2).map((line) => JSON.parse(line).message.messageId)).toEqual(['stream', 'wait']);
  });
});
