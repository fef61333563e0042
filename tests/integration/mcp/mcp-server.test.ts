// `sluice mcp` driven by the Model Context Protocol SDK's own client over stdio, against a real relay
// (`sluice serve` in its own process, found through its data folder) with a real loopback receiver.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, startServing, type RunningCli } from '../../helpers/cli.ts';
import { connectMcp, type McpSession } from '../../helpers/mcp-client.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { tempDir } from '../../helpers/temp-dirs.ts';

const READ_TOOLS = ['check_event', 'explain_violation', 'get_message', 'list_deliveries', 'search_messages', 'stats', 'wait_for_message'];
const WRITE_TOOLS = ['replay', 'reset', 'send_test_event'];
const WRITE_KEY = 'wk_mcp_tests';

let dir: string;
let receiver: Receiver;
let relay: RunningCli;
let reader: McpSession;
let writer: McpSession;

beforeAll(async () => {
  dir = tempDir('sluice-mcp-');
  receiver = await startReceiver();
  const config = path.join(dir, 'sluice.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      sources: [{ name: 'web', writeKey: WRITE_KEY, kind: 'web' }],
      destinations: [{ name: 'hooks', sources: ['web'], webhooks: [{ url: `${receiver.url}/hook` }] }],
      trackingPlans: [{ name: 'shop', sources: ['web'], plan: { events: { 'Order Completed': { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] } } } }],
    }),
  );
  const data = path.join(dir, 'data');
  relay = await startServing(process.execPath, [CLI, 'serve', '--json', '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0', '--data-dir', data, '--config', config]);
  // Found through the data folder: relay.json (where it listens) and inspector-token.
  reader = await connectMcp(process.execPath, [CLI, 'mcp', '--data-dir', data]);
  writer = await connectMcp(process.execPath, [CLI, 'mcp', '--data-dir', data, '--allow-write']);
}, 60_000);

afterAll(async () => {
  await reader?.close();
  await writer?.close();
  await relay?.stop();
  await receiver?.close();
});

/** Whether the process runs (a zombie, ended but not yet reaped by whoever adopted it, does not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

async function track(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${relay.ready.ingest}/v1/track`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}` },
    body: JSON.stringify({ userId: 'u-mcp', ...body }),
  });
  expect(res.status).toBe(200);
}

/** The `n`th request the receiver got for the message whose properties.ref is `ref` (webhook bodies carry no messageId), once it has come (10 s at most). */
async function receivedWith(ref: string, n: number): Promise<Receiver['received'][number]> {
  for (let i = 0; i < 100; i++) {
    const matching = receiver.received.filter((r) => (JSON.parse(r.body) as { properties?: { ref?: string } }).properties?.ref === ref);
    if (matching.length >= n) return matching[n - 1]!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the receiver got fewer than ${n} requests for ${ref} in 10 s`);
}

describe('sluice mcp over stdio', () => {
  it('lists the read tools, with descriptions and input schemas; the write tools only with --allow-write', async () => {
    const listed = (await reader.client.listTools()).tools;
    expect(listed.map((t) => t.name).sort()).toEqual(READ_TOOLS);
    expect((await writer.client.listTools()).tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const search = listed.find((t) => t.name === 'search_messages')!;
    // The query language is summarized where the agent reads it.
    expect(search.description).toContain('properties.price:>=10');
    expect(search.inputSchema.properties).toHaveProperty('limit.maximum', 100);
    const wait = listed.find((t) => t.name === 'wait_for_message')!;
    expect(wait.inputSchema.properties).toHaveProperty('timeoutMs.maximum', 300_000);
    expect(reader.stderr()).toContain(`tools over the relay at ${relay.ready.api}`);
  });

  it('finds a track sent over plain HTTP with search_messages, and says the relay\'s sentence for a query that does not parse', async () => {
    await track({ event: 'Order Completed', messageId: 'search-1', userId: 'u-search', properties: { price: 5 } });
    await reader.call('wait_for_message', { filter: { messageId: 'search-1' } });
    const found = await reader.call('search_messages', { query: 'userId:u-search properties.price:>=5' });
    expect(found.isError).toBe(false);
    expect(found.json.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['search-1']);
    expect(found.json.messages[0]).toMatchObject({ event: 'Order Completed', source: 'web', status: 'accepted', violations: [] });

    const bad = await reader.call('search_messages', { query: 'event:"Order' });
    expect(bad.isError).toBe(true);
    expect(bad.text).toBe('search: a quote is not closed: end the value with "');
    const missing = await reader.call('get_message', { messageId: 'no-such-message' });
    expect(missing).toMatchObject({ isError: true, text: 'no stored message has messageId "no-such-message"' });
  });

  it('search_messages lists newest first, as the inspector and GET /api/v1/messages?order=newest do; its next page reads on to the older ones', async () => {
    // Sent one after the other, each answered before the next: the stored order is the order sent.
    for (const n of [1, 2, 3]) await track({ event: 'Order Step', userId: 'u-newest', messageId: `newest-${n}`, properties: { n } });
    await reader.call('wait_for_message', { filter: { messageId: 'newest-3' } });
    const first = await reader.call('search_messages', { query: 'userId:u-newest', limit: 2 });
    expect(first.isError).toBe(false);
    expect(first.json.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['newest-3', 'newest-2']);
    expect(first.json.next).toEqual(expect.any(String));
    const second = await reader.call('search_messages', { query: 'userId:u-newest', limit: 2, after: first.json.next });
    expect(second.json).toMatchObject({ next: null });
    expect(second.json.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['newest-1']);
    // The same as the HTTP API lists newest first.
    const res = await fetch(`${relay.ready.api}/messages?order=newest&search=userId:u-newest`, { headers: { Authorization: `Bearer ${relay.ready.token}` } });
    const listed = (await res.json()) as { messages: { sequence: number }[] };
    expect([...first.json.messages, ...second.json.messages].map((m: { sequence: number }) => m.sequence)).toEqual(listed.messages.map((m) => m.sequence));
    const search = (await reader.client.listTools()).tools.find((t) => t.name === 'search_messages')!;
    expect(search.description).toMatch(/newest first/);
  });

  it('search_messages: a page cut to fit goes on after the last message shown, so paging skips none', async () => {
    // 60 messages of ~3 KB each even with every string cut to 60 characters: a page of 50 cannot fit.
    const wide = (n: number) => Object.fromEntries(Array.from({ length: 120 }, (_, k) => [`field_${k}`, `${n}-${k}`]));
    const batch = Array.from({ length: 60 }, (_, n) => ({ type: 'track', event: 'Wide', userId: 'u-wide', messageId: `wide-${n}`, properties: wide(n) }));
    const res = await fetch(`${relay.ready.ingest}/v1/batch`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from(`${WRITE_KEY}:`).toString('base64')}` }, body: JSON.stringify({ batch }) });
    expect(res.status).toBe(200);
    await reader.call('wait_for_message', { filter: { messageId: 'wide-59' } });
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const page = await reader.call('search_messages', { query: 'userId:u-wide', limit: 50, ...(after ? { after } : {}) });
      expect(page.isError).toBe(false);
      if (pages === 0) expect(page.json.truncated).toMatch(/^only \d+ messages fit in this page \("next" goes on after them\)/);
      seen.push(...page.json.messages.map((m: { messageId: string }) => m.messageId));
      after = page.json.next ?? undefined;
      pages++;
    } while (after && pages < 20);
    expect(pages).toBeGreaterThan(2);
    expect(seen).toEqual(Array.from({ length: 60 }, (_, n) => `wide-${59 - n}`));
  });

  it('a tool argument it does not take is an error, not dropped (a dropped filter would answer with every message)', async () => {
    const wrong = await reader.call('search_messages', { event: 'Order Completed' });
    expect(wrong.isError).toBe(true);
    expect(wrong.text).toMatch(/event/);
    const tools = (await reader.client.listTools()).tools;
    expect(tools.find((t) => t.name === 'search_messages')!.inputSchema).toMatchObject({ additionalProperties: false });
    const wait = tools.find((t) => t.name === 'wait_for_message')!;
    expect(JSON.stringify(wait.inputSchema)).toContain("a page's or screen's name is not an event");
  });

  it('wait_for_message resolves when the message arrives, and times out within 100 ms of its timeout with the relay\'s sentence', async () => {
    const waiting = reader.call('wait_for_message', { filter: { event: 'Arrives Later', userId: 'u-late' }, timeoutMs: 20_000 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    await track({ event: 'Arrives Later', userId: 'u-late', messageId: 'late-1' });
    const arrived = await waiting;
    expect(arrived.isError).toBe(false);
    expect(arrived.json.messages.map((m: { messageId: string }) => m.messageId)).toEqual(['late-1']);

    // The relay's first timeout answer on a store is slower once (its first read of the latest messages
    // to say which came closest, 10–27 ms measured): a short wait first, so that the one measured is MCP's.
    await reader.call('wait_for_message', { filter: { event: 'Never Sent' }, timeoutMs: 50 });
    const started = performance.now();
    const timedOut = await reader.call('wait_for_message', { filter: { event: 'Never Sent' }, timeoutMs: 1_500 });
    const elapsed = performance.now() - started;
    expect(timedOut.isError).toBe(true);
    expect(timedOut.text).toMatch(/Never Sent/);
    expect(timedOut.text).toMatch(/1500 ?ms|1\.5 ?s/);
    expect(Math.abs(elapsed - 1_500)).toBeLessThanOrEqual(100);
  });

  it('get_message shows the delivery to a real receiver, with its attempt', async () => {
    await track({ event: 'Order Completed', messageId: 'get-1', properties: { price: 9, ref: 'get-1' } });
    const request = await receivedWith('get-1', 1);
    let found = await reader.call('get_message', { messageId: 'get-1' });
    for (let i = 0; i < 50 && found.json.deliveries[0]?.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      found = await reader.call('get_message', { messageId: 'get-1' });
    }
    expect(found.json.message).toMatchObject({ messageId: 'get-1', event: 'Order Completed' });
    const [delivery] = found.json.deliveries;
    expect(delivery).toMatchObject({ destination: 'hooks', status: 'delivered', trigger: 'automatic', attemptCount: 1 });
    expect(delivery.attempts).toHaveLength(1);
    expect(delivery.attempts[0]).toMatchObject({ url: `${receiver.url}/hook`, status: 200 });
    expect(JSON.parse(delivery.body)).toMatchObject({ type: 'track', event: 'Order Completed', properties: { ref: 'get-1' } }); // the JSON body sent
    expect(request!.body).toBe(delivery.body);
  });

  it('check_event checks an event against the loaded plan; explain_violation gives a stored message\'s rule and fix', async () => {
    const wrong = await reader.call('check_event', { event: { type: 'track', event: 'Order Completed', properties: { price: '12' } }, source: 'web' });
    expect(wrong.json).toMatchObject({ plans: ['shop'], conforms: false, violations: [{ type: 'Datatype-Mismatch', path: '/properties/price', plan: 'shop' }] });
    const right = await reader.call('check_event', { event: { type: 'track', event: 'Order Completed', properties: { price: 12 } } });
    expect(right.json).toEqual({ plans: ['shop'], violations: [], conforms: true });
    const unknown = await reader.call('check_event', { event: { type: 'track', event: 'X' }, source: 'nope' });
    expect(unknown).toMatchObject({ isError: true, text: 'there is no source "nope"; the sources are "web"' });

    await track({ event: 'Order Completed', messageId: 'bad-1', properties: { coupon: 'x' } });
    await track({ event: 'Order Complete', messageId: 'bad-2' });
    await reader.call('wait_for_message', { filter: { messageId: 'bad-2' } });
    const missing = await reader.call('explain_violation', { messageId: 'bad-1' });
    expect(missing.json.violations).toHaveLength(1);
    expect(missing.json.violations[0]).toMatchObject({ type: 'Required-Missing', plan: 'shop', path: '/properties/price', rule: { required: ['price'], 'properties.price': { type: 'number' } } });
    expect(missing.json.violations[0].fix).toContain('send properties.price');
    const unplanned = await reader.call('explain_violation', { messageId: 'bad-2' });
    expect(unplanned.json.violations[0]).toMatchObject({ type: 'Unplanned-Event', rule: { plannedEvents: ['Order Completed'] } });
    expect(unplanned.json.violations[0].sentence).toContain('did you mean "Order Completed"');
    const clean = await reader.call('explain_violation', { messageId: 'search-1' });
    expect(clean.json.violations).toEqual([]);
  });

  it('get_message and explain_violation read a message whose messageId is "stream" or "wait" (paths of other endpoints), with its deliveries', async () => {
    // GET /messages/stream is the endless follow stream: a tool that read that path would never answer.
    await track({ event: 'Order Completed', messageId: 'stream', properties: { ref: 'id-stream' } }); // breaks the plan: no price
    await track({ event: 'Order Completed', messageId: 'wait', properties: { price: 1, ref: 'id-wait' } });
    await reader.call('wait_for_message', { filter: { messageId: 'wait' } });
    await receivedWith('id-wait', 1);
    const bounded = <T>(call: Promise<T>) => Promise.race([call, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the tool did not answer in 10 s')), 10_000))]);
    const stream = await bounded(reader.call('get_message', { messageId: 'stream' }));
    expect(stream.isError).toBe(false);
    expect(stream.json.message).toMatchObject({ messageId: 'stream', properties: { ref: 'id-stream' } });
    const explained = await bounded(reader.call('explain_violation', { messageId: 'stream' }));
    expect(explained.json).toMatchObject({ messageId: 'stream', violations: [{ type: 'Required-Missing', path: '/properties/price' }] });
    let wait = await bounded(reader.call('get_message', { messageId: 'wait' }));
    for (let i = 0; i < 50 && wait.json?.deliveries[0]?.status !== 'delivered'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      wait = await reader.call('get_message', { messageId: 'wait' });
    }
    expect(wait.isError).toBe(false);
    expect(wait.json.message).toMatchObject({ messageId: 'wait', properties: { ref: 'id-wait' } });
    // Its own delivery only, not another message's.
    expect(wait.json.deliveries).toHaveLength(1);
    expect(wait.json.deliveries[0]).toMatchObject({ destination: 'hooks', status: 'delivered' });
    expect(JSON.parse(wait.json.deliveries[0].body)).toMatchObject({ properties: { ref: 'id-wait' } });
    expect((await bounded(reader.call('explain_violation', { messageId: 'wait' }))).json.violations).toEqual([]);
    // Characters that mean something in a URL stay part of the id.
    await track({ event: 'Order Completed', messageId: '../stats?x=1#y', properties: { price: 2 } });
    await reader.call('wait_for_message', { filter: { messageId: '../stats?x=1#y' } });
    expect((await reader.call('get_message', { messageId: '../stats?x=1#y' })).json.message).toMatchObject({ messageId: '../stats?x=1#y', properties: { price: 2 } });
    // "." and ".." cannot be a path segment (URL parsers resolve them): read through the list's exact filter, with their deliveries.
    for (const id of ['.', '..']) {
      await track({ event: 'Order Completed', messageId: id, properties: { price: 3, ref: `id-${id}` } });
      await receivedWith(`id-${id}`, 1);
      const dots = await bounded(reader.call('get_message', { messageId: id }));
      expect(dots.json.message, id).toMatchObject({ messageId: id, properties: { ref: `id-${id}` } });
      expect(dots.json.deliveries.map((d: { body: string }) => JSON.parse(d.body).properties.ref), id).toEqual([`id-${id}`]);
    }
    expect(await reader.call('explain_violation', { messageId: 'no-such-message' })).toMatchObject({ isError: true, text: 'no stored message has messageId "no-such-message"' });
  }, 30_000);

  it('replay (with --allow-write) delivers a stored message to the receiver again', async () => {
    await track({ event: 'Order Completed', messageId: 'replay-1', properties: { price: 3, ref: 'replay-1' } });
    await reader.call('wait_for_message', { filter: { messageId: 'replay-1' } });
    await receivedWith('replay-1', 1); // the automatic delivery
    const replayed = await writer.call('replay', { messageIds: ['replay-1'], destination: 'hooks' });
    expect(replayed.isError).toBe(false);
    expect(replayed.json).toMatchObject({ messages: 1, deliveries: 1 });
    const again = await receivedWith('replay-1', 2);
    expect(JSON.parse(again.body)).toMatchObject({ event: 'Order Completed', properties: { ref: 'replay-1' } });
    // Without the flag the tool does not exist: the SDK answers an error naming it.
    const refused = await reader.call('replay', { messageIds: ['replay-1'] });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('replay');
  });
});

describe('sluice mcp before its first tool call', () => {
  it('makes its first request to the relay when it starts, so that the first wait_for_message does not pay for it (its timeout ran 90–210 ms late)', async () => {
    // A real loopback proxy in front of the relay's HTTP API, recording each request sluice mcp makes.
    const seen: string[] = [];
    const proxy = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const body = Buffer.concat(chunks);
        const answer = await fetch(`${new URL(relay.ready.api).origin}${req.url}`, { method: req.method, headers: { authorization: req.headers.authorization ?? '', 'content-type': 'application/json' }, ...(body.length ? { body } : {}) });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const session = await connectMcp(process.execPath, [CLI, 'mcp', '--api', `http://127.0.0.1:${(proxy.address() as { port: number }).port}/api/v1`, '--token', relay.ready.token]);
    try {
      // No tool called yet: the relay still hears from it (its answer dropped), within 10 s.
      for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(seen).toEqual(['GET /api/v1/info']);
      const timedOut = await session.call('wait_for_message', { filter: { event: 'Never Sent' }, timeoutMs: 50 });
      expect(timedOut).toMatchObject({ isError: true, text: expect.stringMatching(/^waited 50 ms for 1 accepted message matching/) });
      expect(seen).toEqual(['GET /api/v1/info', 'POST /api/v1/messages/wait']);
    } finally {
      await session.close();
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 30_000);
});

describe('sluice mcp --ephemeral', () => {
  it('starts a relay of its own, says where on stderr, and its tools work on it', async () => {
    const session = await connectMcp(process.execPath, [CLI, 'mcp', '--ephemeral', '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0', '--allow-write']);
    try {
      expect(session.stderr()).toMatch(/started an ephemeral relay[\s\S]*HTTP API\s+http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
      const sent = await session.call('send_test_event', { event: 'Ephemeral Checked', properties: { n: 1 } });
      expect(sent.isError).toBe(false);
      const waited = await session.call('wait_for_message', { filter: { messageId: sent.json.messageId }, timeoutMs: 5_000 });
      expect(waited.json.messages[0]).toMatchObject({ event: 'Ephemeral Checked', properties: { n: 1 } });
      expect((await session.call('stats')).json.messages.accepted).toBe(1);
    } finally {
      await session.close();
    }
  }, 30_000);

  it('its relay stops and its folder is removed when sluice mcp is killed with SIGKILL (no handler of its own runs)', async () => {
    const mcp = spawn(process.execPath, [CLI, 'mcp', '--ephemeral', '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    mcp.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let relayPid: number | undefined;
    try {
      for (let i = 0; i < 300 && !/relay pid \d+/.test(stderr) && mcp.exitCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const said = /Data\s+(\S+)\s+\(relay pid (\d+)\)/.exec(stderr);
      expect(said, stderr).not.toBeNull();
      const dataDir = said![1]!;
      relayPid = Number(said![2]);
      expect(fs.existsSync(dataDir)).toBe(true);
      expect(alive(relayPid)).toBe(true);
      mcp.kill('SIGKILL');
      for (let i = 0; i < 150 && (alive(relayPid) || fs.existsSync(dataDir)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(alive(relayPid), 'the relay still runs 15 s after its sluice mcp was killed').toBe(false);
      expect(fs.existsSync(dataDir)).toBe(false);
    } finally {
      mcp.kill('SIGKILL');
      if (relayPid !== undefined && alive(relayPid)) process.kill(relayPid, 'SIGTERM'); // without the fix: an orphan
    }
  }, 60_000);
});
