// The ingestion endpoint under connections that trickle their requests, in a process allowed few
// open files (as `ulimit -n` does): slow requests are cut after their headers' timeout, connections
// are capped below the process's file limit (one log line when the cap is reached), and the store
// keeps its files — a client with a kept-alive connection goes on being answered, a new client gets
// in once the slow ones are cut, and everything acknowledged is stored. Before, 300 such connections
// under 256 open files made the store's writer fail ("unable to open database file") and every
// request fail, with nothing said.
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, startServing, type RunningCli } from '../../helpers/cli.ts';
import { tempDir } from '../../helpers/core.ts';

const OPEN_FILES = 256;
const TRICKLERS = 300;
const CAP_LINE = /^sluice: the ingestion endpoint holds 64 connections, its limit \(a quarter of the 256 files this process may open\), and refuses new ones until some close: .*ulimit -n/;

let relay: RunningCli | undefined;
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await relay?.stop();
  relay = undefined;
});

/** POST /v1/track through `agent` (false: a connection of its own); the status, or the error's code. */
function track(ingest: string, writeKey: string, agent: http.Agent | false, event: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request(`${ingest}/v1/track`, {
      method: 'POST',
      agent,
      headers: { authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`, 'content-type': 'application/json' },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(JSON.stringify({ userId: 'u_steady', event }));
  });
}

/** A connection that sends a request's first lines, then one more header line every 500 ms, and never reads. */
function trickle(ingest: string): net.Socket {
  const url = new URL(ingest);
  const socket = net.connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  socket.write(`POST /v1/track HTTP/1.1\r\nHost: ${url.host}\r\n`);
  const timer = setInterval(() => (socket.writable ? socket.write('X-Slow: 1\r\n') : clearInterval(timer)), 500);
  socket.on('close', () => clearInterval(timer));
  sockets.push(socket);
  return socket;
}

async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the ingestion endpoint under slow connections, with few open files', () => {
  it('cuts slow requests, caps its connections with one log line, and keeps answering well-behaved clients', async () => {
    const args = ['serve', '--json', '--data-dir', tempDir(), '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'];
    relay = await startServing('bash', ['-c', `ulimit -n ${OPEN_FILES} && exec "$0" "$@"`, process.execPath, CLI, ...args]);
    const { ingest, api, token } = relay.ready;
    const writeKey = relay.ready.sources[0]!.writeKey;

    // An SDK-like client with a kept-alive connection, before the flood.
    const keptAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect(await track(ingest, writeKey, keptAlive, 'Before')).toBe(200);

    // One slow client that does read its answer: 408, said in JSON.
    const reader = trickle(ingest);
    let answer = '';
    reader.on('data', (chunk: Buffer) => (answer += chunk.toString()));

    for (let i = 0; i < TRICKLERS; i++) trickle(ingest);
    const capLines = () => relay!.stderr().split('\n').filter((line) => CAP_LINE.test(line));
    await until('the cap\'s log line', 15_000, () => (capLines().length > 0 ? true : undefined));

    // The kept-alive connection is served while the cap is full.
    expect(await track(ingest, writeKey, keptAlive, 'During')).toBe(200);

    // A new client is refused while slow connections fill the cap, and gets in once their headers'
    // time is up (10 s), as an SDK retrying would.
    const refusals: (number | string)[] = [];
    await until('a new client\'s 200', 40_000, async () => {
      const status = await track(ingest, writeKey, false, 'After');
      if (status === 200) return status;
      refusals.push(status);
      return undefined;
    });
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.every((r) => r === 'ECONNRESET' || r === 'EPIPE' || r === 'ECONNREFUSED')).toBe(true);

    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      success: false,
      error: { code: 'request_timeout', message: expect.stringMatching(/^the request did not arrive in time \(its headers within 10 s/) },
    });
    // One line for the whole flood, not one per refused connection.
    expect(capLines()).toHaveLength(1);
    // Nothing else went wrong: no store trouble on stderr, and every acknowledged message is stored.
    expect(relay.stderr().split('\n').filter((line) => line && !CAP_LINE.test(line))).toEqual([]);
    const stored = (await (await fetch(`${api}/messages?userId=u_steady`, { headers: { authorization: `Bearer ${token}` } })).json()) as { messages: { event: string }[] };
    expect(stored.messages.map((m) => m.event)).toEqual(['Before', 'During', 'After']);
    keptAlive.destroy();
  }, 90_000);
});
