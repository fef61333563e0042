// The renderer's transports (WebSocket against a real server on 127.0.0.1:0, with Node's WebSocket;
// IPC against a fake preload bridge), and the browser-side helpers: HMAC-SHA1, curl quoting.
import { execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import type { ClientFrame, CoreEvent, ServerFrame } from '../../shared/contract.ts';
import { IpcTransport } from '../../renderer/src/transport/ipc.ts';
import { pickTransport } from '../../renderer/src/transport/pick.ts';
import type { ConnectionState } from '../../renderer/src/transport/relay-api.ts';
import { apiUrlFor, WebSocketTransport } from '../../renderer/src/transport/websocket.ts';
import { checkSignature, hmacSha1Hex } from '../../renderer/src/lib/hmac.ts';
import { curlCommand, shellQuote } from '../../renderer/src/lib/curl.ts';

interface TestServer {
  url: string;
  sockets: ServerSocket[];
  /** What the server does with each frame; default: answer `{echo: request}`. */
  onFrame: (ws: ServerSocket, frame: ClientFrame) => void;
  refuse: number | null;
  close(): Promise<void>;
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function startServer(port = 0): Promise<TestServer> {
  const server = http.createServer((_req, res) => res.end('ok'));
  const wss = new WebSocketServer({ noServer: true });
  const t: TestServer = {
    url: '',
    sockets: [],
    refuse: null,
    onFrame: (ws, frame) => ws.send(JSON.stringify({ kind: 'result', id: frame.id, result: { ok: true, value: { echo: frame.request } } } satisfies ServerFrame)),
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('upgrade', (req, socket, head) => {
    if (t.refuse !== null) {
      socket.end(`HTTP/1.1 ${t.refuse} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      t.sockets.push(ws);
      ws.on('message', (data) => t.onFrame(ws, JSON.parse(data.toString()) as ClientFrame));
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  t.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/api?token=t`;
  cleanup.push(() => t.close());
  return t;
}

function transport(options: ConstructorParameters<typeof WebSocketTransport>[0]) {
  const tr = new WebSocketTransport({ initialDelayMs: 20, maxDelayMs: 200, ...options });
  const states: ConnectionState[] = [];
  tr.onState((s) => states.push(s));
  cleanup.push(() => tr.close());
  return { tr, states };
}

async function until(check: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('WebSocket transport', () => {
  it('sends calls made before the socket opened, answers each by id, and hands event batches to listeners', async () => {
    const server = await startServer();
    const { tr, states } = transport({ url: server.url });
    const answers = Promise.all([tr.invoke('messages.get', { id: 1 }), tr.invoke('messages.get', { id: 2 })]);
    expect(await answers).toEqual([
      { ok: true, value: { echo: { id: 1 } } },
      { ok: true, value: { echo: { id: 2 } } },
    ]);
    expect(states.map((s) => s.kind)).toEqual(['connecting', 'open']);
    const batches: CoreEvent[][] = [];
    const off = tr.onEvents((events) => batches.push(events));
    server.sockets[0]!.send(JSON.stringify({ kind: 'events', events: [{ type: 'messages.stored', ids: [1, 2] }] } satisfies ServerFrame));
    await until(() => batches.length === 1);
    expect(batches[0]).toEqual([{ type: 'messages.stored', ids: [1, 2] }]);
    off();
    server.sockets[0]!.send(JSON.stringify({ kind: 'events', events: [{ type: 'settings.changed' }] } satisfies ServerFrame));
    await tr.invoke('app.info', {}); // a round trip: the event frame has arrived by now
    expect(batches).toHaveLength(1);
  });

  it('answers calls in flight "disconnected" when the connection drops, reconnects with backoff, and works again', async () => {
    const server = await startServer();
    server.onFrame = () => {}; // never answers
    const { tr, states } = transport({ url: server.url, probe: async () => false });
    const hanging = tr.invoke('app.info', {});
    await until(() => server.sockets.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    server.sockets[0]!.terminate();
    expect(await hanging).toMatchObject({ ok: false, error: { code: 'disconnected' } });
    await until(() => states.at(-1)?.kind === 'open' && server.sockets.length === 2);
    expect(states.map((s) => s.kind)).toEqual(['connecting', 'open', 'reconnecting', 'open']);
    server.onFrame = (ws, frame) => ws.send(JSON.stringify({ kind: 'result', id: frame.id, result: { ok: true, value: 'again' } }));
    expect(await tr.invoke('app.info', {})).toEqual({ ok: true, value: 'again' });
  });

  it('keeps trying, further apart each time, while the host is down, and connects when it is back', async () => {
    const server = await startServer();
    const port = Number(new URL(server.url).port);
    await server.close();
    const { tr, states } = transport({ url: server.url, probe: async () => false, random: () => 0.5 });
    const delays: number[] = [];
    tr.onState((s) => {
      if (s.kind === 'reconnecting') delays.push(s.retryAt - Date.now());
    });
    await until(() => delays.length >= 5);
    expect(states.flatMap((s) => (s.kind === 'reconnecting' ? [s.attempt] : [])).slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    // 20 ms doubling up to the 200 ms cap (jitter is ±20 %, zero with random() = 0.5).
    expect(delays.slice(0, 5).map((d) => Math.round(d / 10) * 10)).toEqual([20, 40, 80, 160, 200]);
    const again = await startServer(port);
    await until(() => tr.state.kind === 'open', 5000);
    expect(await tr.invoke('app.info', {})).toEqual({ ok: true, value: { echo: {} } });
    expect(again.sockets).toHaveLength(1);
  });

  it('stops and says so when the host answers but refuses the socket (wrong token)', async () => {
    const server = await startServer();
    server.refuse = 401;
    const { tr, states } = transport({ url: server.url, probe: async () => true });
    const call = tr.invoke('app.info', {});
    expect(await call).toMatchObject({ ok: false, error: { code: 'unauthorized', message: expect.stringContaining('token') } });
    expect(states.at(-1)).toMatchObject({ kind: 'unauthorized', reason: expect.stringContaining('sluice serve') });
    await new Promise((r) => setTimeout(r, 150));
    expect(states.filter((s) => s.kind === 'reconnecting')).toHaveLength(0);
    expect(await tr.invoke('app.info', {})).toMatchObject({ ok: false, error: { code: 'unauthorized' } });
  });

  it('times a call out when no answer comes', async () => {
    const server = await startServer();
    server.onFrame = () => {};
    const { tr } = transport({ url: server.url, callTimeoutMs: 100 });
    expect(await tr.invoke('app.info', {})).toMatchObject({ ok: false, error: { code: 'timeout', message: expect.stringContaining('app.info') } });
  });

  it('builds the API address from the page address, and needs the token', () => {
    expect(apiUrlFor({ protocol: 'http:', host: '127.0.0.1:8788' }, 'a+b')).toBe('ws://127.0.0.1:8788/api?token=a%2Bb');
    expect(apiUrlFor({ protocol: 'https:', host: 'x:1' }, 't')).toBe('wss://x:1/api?token=t');
    expect(apiUrlFor({ protocol: 'http:', host: 'x:1' }, null)).toBe(null);
    expect(apiUrlFor({ protocol: 'http:', host: 'x:1' }, '')).toBe(null);
  });
});

describe('IPC transport and the choice of transport', () => {
  it('uses the preload bridge when there is one; a failing bridge becomes a typed error', async () => {
    const listeners: ((events: CoreEvent[]) => void)[] = [];
    const bridge = {
      invoke: async (channel: string, request: unknown) =>
        channel === 'boom' ? Promise.reject(new Error('no handler')) : { ok: true as const, value: { channel, request } },
      onEvents: (listener: (events: CoreEvent[]) => void) => {
        listeners.push(listener);
        return () => listeners.splice(listeners.indexOf(listener), 1);
      },
    };
    const choice = pickTransport({ sluice: bridge, location: new URL('file:///app/index.html') as unknown as Location, fetch });
    expect(choice.ok && choice.api.kind).toBe('ipc');
    const api = (choice as unknown as { api: IpcTransport }).api;
    expect(await api.invoke('messages.get', { id: 3 })).toEqual({ ok: true, value: { channel: 'messages.get', request: { id: 3 } } });
    expect(await api.invoke('boom' as 'app.info', {})).toEqual({ ok: false, error: { code: 'internal_error', message: 'no handler' } });
    const got: CoreEvent[][] = [];
    const off = api.onEvents((e) => got.push(e));
    listeners[0]!([{ type: 'settings.changed' }]);
    off();
    expect(listeners).toHaveLength(0);
    expect(got).toEqual([[{ type: 'settings.changed' }]]);
    const states: string[] = [];
    api.onState((s) => states.push(s.kind));
    expect(states).toEqual(['open']);
  });

  it('uses the WebSocket with the page token otherwise, and explains a missing token', () => {
    const missing = pickTransport({ location: new URL('http://127.0.0.1:8788/') as unknown as Location, fetch });
    expect(missing).toMatchObject({ ok: false, reason: expect.stringContaining('?token=') });
    const ws = pickTransport({ location: new URL('http://127.0.0.1:1/?token=abc') as unknown as Location, fetch });
    expect(ws.ok && ws.api.kind).toBe('websocket');
    if (ws.ok) ws.api.close();
  });
});

describe('signature check in the browser', () => {
  it('computes X-Signature exactly as the core does, with WebCrypto and with the fallback', async () => {
    const bodies = ['{"a":1}', JSON.stringify({ emoji: '🎉', text: 'Ünïcödé \u2028', n: 12345678901234567890 }), '', 'x'.repeat(5000)];
    const secrets = ['s', 'abc123', '🔑 key', randomBytes(100).toString('hex')]; // the last is longer than SHA-1's block
    for (const body of bodies) {
      for (const secret of secrets) {
        const expected = createHmac('sha1', secret).update(body, 'utf8').digest('hex');
        expect(await hmacSha1Hex(secret, body)).toBe(expected);
        expect(await hmacSha1Hex(secret, body, null)).toBe(expected); // the fallback: no WebCrypto
      }
    }
  });

  it('says match, mismatch (and why), or unsigned', async () => {
    const body = '{"version":1,"type":"track"}';
    const sent = createHmac('sha1', 'right').update(body).digest('hex');
    expect(await checkSignature(body, sent, 'right')).toEqual({ kind: 'match', computed: sent });
    expect(await checkSignature(body, sent.toUpperCase(), 'right')).toMatchObject({ kind: 'match' });
    expect(await checkSignature(body, sent, 'wrong')).toMatchObject({ kind: 'mismatch', why: expect.stringContaining('different secret') });
    expect(await checkSignature(body, sent, 'right ')).toMatchObject({ kind: 'mismatch', why: expect.stringContaining('whitespace') });
    expect(await checkSignature(body, null, 'right')).toMatchObject({ kind: 'unsigned', why: expect.stringContaining('no shared secret') });
  });
});

describe('copy as curl', () => {
  it('quotes anything for a POSIX shell', () => {
    for (const value of [`it's "quoted" $HOME \`x\` \\ \n newline`, '{"a":"b\'c"}', '', '🎉']) {
      expect(execFileSync('sh', ['-c', `printf %s ${shellQuote(value)}`], { encoding: 'utf8' })).toBe(value);
    }
  });

  it('reproduces the request: method, URL, headers and the exact body', () => {
    const body = `{"event":"it's","n":1}`;
    const command = curlCommand('http://127.0.0.1:9000/hook?a=1&b=2', { 'Content-Type': 'application/json', 'X-Signature': 'abc', 'Content-Length': '9' }, body);
    // Run it with a stand-in `curl` that prints its arguments, one per line.
    const printed = execFileSync('sh', ['-c', `curl() { for a in "$@"; do printf '%s\\n' "$a"; done; }\n${command}`], { encoding: 'utf8' });
    expect(printed.split('\n').slice(0, -1)).toEqual([
      '-X',
      'POST',
      'http://127.0.0.1:9000/hook?a=1&b=2',
      '-H',
      'Content-Type: application/json',
      '-H',
      'X-Signature: abc',
      '--data-binary',
      body,
    ]);
  });
});
