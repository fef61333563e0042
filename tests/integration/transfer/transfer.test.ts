// Export and import (issue 17, point 5) as a user runs them: the real CLI in a child process, on the
// stores of real relays that keep running meanwhile. A round trip — messages from @segment/analytics-node
// and raw posts, exported from one store, imported through another relay's ingestion, exported again —
// keeps every message field by field, and its id.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Analytics } from '@segment/analytics-node';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI } from '../../helpers/cli.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/transfer');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sluice(args: string[], options: { cwd?: string; stdin?: string } = {}): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? FIXTURES, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

interface Line {
  message: Record<string, unknown> | null;
  raw?: string;
  id: number;
  messageId: string | null;
  source: string;
  type: string | null;
  event: string | null;
  status: string;
  origin: string;
  receivedAt: string;
  timestamp: string | null;
  rejection: { code: string; reason: string } | null;
  violations: unknown[];
  blocked: string | null;
}

const parseLines = (text: string): Line[] => text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Line);

const cores: TestCore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function relay(sources: { name: string; writeKey: string }[], clock?: { now(): number }): Promise<TestCore> {
  const core = await startCore({ config: { sources: sources.map((s) => ({ ...s, kind: 'web' as const })), destinations: [] }, ...(clock ? { clock } : {}) });
  core.writeKey = sources[0]!.writeKey;
  cores.push(core);
  return core;
}

function scratch(): string {
  const dir = tempDir('sluice-transfer-');
  dirs.push(dir);
  return dir;
}

/** A port nothing listens on (taken, then let go). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** What store A is sent: a batch of analytics-node's, and raw posts of each shape ingestion takes. */
async function fill(a: TestCore): Promise<void> {
  const analytics = new Analytics({ writeKey: 'wk_web', host: a.ingestUrl, flushAt: 6, maxRetries: 0 });
  analytics.identify({ userId: 'u_1', traits: { email: 'ada@example.com', plan: 'pro', logins: 3 } });
  analytics.track({
    userId: 'u_1',
    event: 'Order Completed',
    properties: { revenue: 99.5, currency: 'EUR', items: [{ sku: 'a', qty: 2 }], gift: false, note: null },
    context: { ip: '203.0.113.9', device: { model: 'Pixel 9' } },
    integrations: { All: false, Webhooks: true },
  });
  analytics.page({ anonymousId: 'anon_9', name: 'Pricing', properties: { path: '/pricing' } });
  analytics.screen({ userId: 'u_1', name: 'Checkout', properties: { step: 2 } });
  analytics.group({ userId: 'u_1', groupId: 'g_7', traits: { name: 'Acme' } });
  analytics.alias({ userId: 'u_1', previousId: 'anon_9' });
  await analytics.closeAndFlush({ timeout: 10_000 });
  // A single message: its endpoint gives its type, and a writeKey in its body is a credential.
  expect((await post(a, '/v1/track', { writeKey: 'wk_web', userId: 'u_2', event: 'Single', messageId: 'raw-1', properties: { n: 1 }, timestamp: '2026-01-02T03:04:05.000Z' })).status).toBe(200);
  const batch = await post(a, '/v1/batch', {
    batch: [
      { type: 'track', event: 'In Batch', userId: 'u_3', messageId: 'raw-2', context: { page: { path: '/own' }, locale: 'fr' } },
      { type: 'identify', userId: 'u_3', traits: { a: 1 }, integrations: { Mixpanel: false } }, // no messageId: Sluice gives one
      { type: 'track', userId: 'u_3', messageId: 'raw-bad' }, // rejected: no event
      { type: 'track', event: 'Again', userId: 'u_3', messageId: 'raw-1' }, // a duplicate of the single one
    ],
    context: { locale: 'en', library: { name: 'raw-batch', version: '1' } },
    integrations: { All: true, Amplitude: false },
    sentAt: new Date().toISOString(),
  });
  expect(batch.json.rejected).toEqual([expect.objectContaining({ index: 2, code: 'missing_event' })]);
  // Over Segment's 32 KB: accepted (with a warning), and exported and imported like any other.
  await post(a, '/v1/batch', { batch: [{ type: 'track', event: 'Huge', userId: 'u_5', messageId: 'huge-1', properties: { blob: 'x'.repeat(40_000) } }] });
  // Too deep: stored as a preview, so the export cannot give the message back.
  let deep: unknown = 'bottom';
  for (let i = 0; i < 120; i++) deep = { deep };
  await post(a, '/v1/batch', { batch: [{ type: 'track', event: 'Deep', userId: 'u_5', messageId: 'deep-1', properties: deep }] });
  await post({ ingestUrl: a.ingestUrl, writeKey: 'wk_ios' }, '/v1/screen', { userId: 'u_4', name: 'Home', messageId: 'ios-1' });
}

describe('sluice export, then sluice import into another relay', () => {
  it('keeps every message field by field and its id; importing again stores duplicates only', async () => {
    const a = await relay([{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }]);
    await fill(a);
    const dir = scratch();

    // Exported while relay A runs: the store is opened read-only beside it.
    const exported = await sluice(['export', '--data-dir', a.dataDir, '--source', 'web', '--out', 'a.ndjson'], { cwd: dir });
    expect(exported).toEqual({ code: 0, stdout: '', stderr: 'exported 13 messages to a.ndjson\n' });
    const text = fs.readFileSync(path.join(dir, 'a.ndjson'), 'utf8');
    expect(text).not.toContain('wk_web'); // never a write key, neither the batch's nor a message's
    const lines = parseLines(text);
    expect(lines.map((l) => l.id)).toEqual([...lines.map((l) => l.id)].sort((x, y) => x - y));
    expect(lines.every((l) => l.source === 'web')).toBe(true);

    const byId = (messageId: string, status = 'accepted') => lines.find((l) => l.messageId === messageId && l.status === status)!;
    // The single message: as sent, its type from the endpoint; Sluice's additions are the line's metadata.
    expect(byId('raw-1')).toMatchObject({
      message: { type: 'track', userId: 'u_2', event: 'Single', messageId: 'raw-1', properties: { n: 1 }, timestamp: '2026-01-02T03:04:05.000Z' },
      type: 'track',
      event: 'Single',
      status: 'accepted',
      origin: 'ingest',
      rejection: null,
      violations: [],
      blocked: null,
    });
    expect(Object.keys(byId('raw-1').message!).sort()).toEqual(['event', 'messageId', 'properties', 'timestamp', 'type', 'userId']);
    expect(Date.parse(byId('raw-1').receivedAt)).toBeGreaterThan(Date.now() - 60_000);
    // A batch's context and integrations go under the message's own (the message's win), its sentAt when it has none.
    const batchSentAt = byId('raw-2').message!.sentAt;
    expect(typeof batchSentAt).toBe('string');
    expect(byId('raw-2').message).toMatchObject({
      context: { locale: 'fr', library: { name: 'raw-batch', version: '1' }, page: { path: '/own' } },
      integrations: { All: true, Amplitude: false },
    });
    // No messageId sent: the one Sluice generated is kept, so that a round trip keeps ids.
    const generated = lines.find((l) => l.type === 'identify' && l.message!.userId === 'u_3')!;
    expect(generated.messageId).toMatch(/^sluice-/);
    expect(generated.message).toEqual({ type: 'identify', userId: 'u_3', traits: { a: 1 }, integrations: { All: true, Amplitude: false, Mixpanel: false }, context: { locale: 'en', library: { name: 'raw-batch', version: '1' } }, sentAt: batchSentAt, messageId: generated.messageId });
    expect(byId('raw-bad', 'rejected')).toMatchObject({ message: { type: 'track', messageId: 'raw-bad' }, rejection: { code: 'missing_event' }, timestamp: null });
    expect(byId('raw-1', 'duplicate').message).toMatchObject({ event: 'Again' });
    expect(byId('huge-1')).toMatchObject({ message: { event: 'Huge', messageId: 'huge-1' }, rejection: null });
    const deep = byId('deep-1', 'rejected');
    expect(deep).toMatchObject({ message: null, rejection: { code: 'invalid_message' } });
    expect(deep.raw).toMatch(/^\{"_sluice":/);
    const node = lines.filter((l) => (l.message?.context as { library?: { name?: string } } | undefined)?.library?.name === '@segment/analytics-node');
    expect(node.map((l) => l.type)).toEqual(['identify', 'track', 'page', 'screen', 'group', 'alias']);
    for (const l of node) expect(l.message).toMatchObject({ sentAt: expect.any(String), messageId: l.messageId, _metadata: expect.any(Object) });
    expect(node[1]!.message).toMatchObject({ context: { ip: '203.0.113.9', device: { model: 'Pixel 9' } }, integrations: { All: false, Webhooks: true } });

    // Into a fresh relay B, through its ingestion, with the write key of B's source "web" (looked up in B's store while B runs).
    // B imports three days later: the messages' sentAt (carried in from their batch) is from their capture.
    const later = 3 * 24 * 3600_000;
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }], { now: () => Date.now() + later });
    const imported = await sluice(['import', 'a.ndjson', '--source', 'web', '--data-dir', b.dataDir, '--url', b.ingestUrl], { cwd: dir });
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toBe(
      [
        `imported a.ndjson into ${b.ingestUrl} (source "web"): 12 messages sent, 11 accepted, 0 refused, 0 unreadable lines`,
        '  1 refused again, as the export says they were the first time (not counted as refused)',
        '  1 not sent: rejected, and the export could not keep its text whole (not JSON, too large or too deep)',
        '',
      ].join('\n'),
    );
    expect(imported.code).toBe(0);

    const again = parseLines((await sluice(['export', '--data-dir', b.dataDir], { cwd: dir })).stdout);
    const kept = lines.filter((l) => l.message !== null);
    // The same messages in the same order, with the same ids and statuses...
    expect(again.map((l) => [l.messageId, l.status, l.type, l.event, l.rejection?.code ?? null])).toEqual(kept.map((l) => [l.messageId, l.status, l.type, l.event, l.rejection?.code ?? null]));
    // ...each equal field by field.
    kept.forEach((l, i) => expect(again[i]!.message, `${l.messageId} (${l.status})`).toEqual(l.message));
    // Received by B when imported, but at the time the client gave them: an import's sentAt says nothing
    // of B's clock, so there is no skew to correct (it would have moved them three days on).
    const timed = kept.flatMap((l, i) => (l.status === 'accepted' && typeof l.message!.timestamp === 'string' ? [[l, again[i]!] as const] : []));
    expect(timed.length).toBe(7); // analytics-node's six and the single message
    for (const [l, b2] of timed) {
      expect(b2.timestamp, l.messageId ?? undefined).toBe(new Date(Date.parse(l.message!.timestamp as string)).toISOString());
      expect(Date.parse(b2.receivedAt)).toBeGreaterThan(Date.now() + later - 60_000);
    }

    // The same file again: every message is one B has, so it is stored as a duplicate, never accepted twice.
    const twice = await sluice(['import', 'a.ndjson', '--write-key', 'wk_b', '--url', b.ingestUrl], { cwd: dir });
    expect(twice.code).toBe(0);
    expect(twice.stdout.split('\n')[0]).toBe(`imported a.ndjson into ${b.ingestUrl} (with the write key given): 12 messages sent, 11 accepted, 0 refused, 0 unreadable lines`);
    const accepted = parseLines((await sluice(['export', '--data-dir', b.dataDir, '--status', 'accepted'], { cwd: dir })).stdout);
    expect(accepted.map((l) => l.messageId)).toEqual(kept.filter((l) => l.status === 'accepted').map((l) => l.messageId));
    const duplicates = parseLines((await sluice(['export', '--data-dir', b.dataDir, '--status', 'duplicate'], { cwd: dir })).stdout);
    expect(duplicates).toHaveLength(1 + 11);
    expect(new Set(duplicates.map((l) => l.messageId))).toEqual(new Set(kept.filter((l) => l.status !== 'rejected').map((l) => l.messageId)));
  });

  it('filters by source, time, event and status; --out refuses to replace a file without --force', async () => {
    const a = await relay([{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }]);
    await fill(a);
    const dir = scratch();
    const run = async (...args: string[]) => parseLines((await sluice(['export', '--data-dir', a.dataDir, ...args], { cwd: dir })).stdout);
    expect((await run('--source', 'ios')).map((l) => l.messageId)).toEqual(['ios-1']);
    expect(await run()).toHaveLength(14);
    expect(await run('--since', '1h')).toHaveLength(14);
    expect(await run('--until', '2020-01-01')).toHaveLength(0);
    expect(await run('--since', new Date(Date.now() + 60_000).toISOString())).toHaveLength(0);
    expect((await run('--event', 'Single')).map((l) => l.messageId)).toEqual(['raw-1']);
    expect((await run('--status', 'rejected')).map((l) => l.messageId)).toEqual(['raw-bad', 'deep-1']);
    expect((await run('--source', 'web', '--status', 'duplicate', '--since', '2h', '--until', new Date(Date.now() + 1000).toISOString())).map((l) => l.event)).toEqual(['Again']);

    fs.writeFileSync(path.join(dir, 'taken.ndjson'), 'keep me\n');
    const refused = await sluice(['export', '--data-dir', a.dataDir, '--out', 'taken.ndjson'], { cwd: dir });
    expect(refused).toEqual({ code: 2, stdout: '', stderr: 'sluice: taken.ndjson already exists: give --force to replace it\n' });
    expect(fs.readFileSync(path.join(dir, 'taken.ndjson'), 'utf8')).toBe('keep me\n');
    const forced = await sluice(['export', '--data-dir', a.dataDir, '--out', 'taken.ndjson', '--force', '--event', 'Single'], { cwd: dir });
    expect(forced).toEqual({ code: 0, stdout: '', stderr: 'exported 1 message to taken.ndjson\n' });
    expect(parseLines(fs.readFileSync(path.join(dir, 'taken.ndjson'), 'utf8'))).toHaveLength(1);
    expect(fs.readdirSync(dir)).toEqual(['taken.ndjson']); // no partial file left beside it
    expect(fs.statSync(path.join(dir, 'taken.ndjson')).mode & 0o777).toBe(0o600);
  });

  it('sluice check reads an export', async () => {
    const a = await relay([{ name: 'web', writeKey: 'wk_web' }]);
    await post(a, '/v1/track', { userId: 'u', event: 'Checked', messageId: 'c-1', properties: { price: '12' } });
    const dir = scratch();
    await sluice(['export', '--data-dir', a.dataDir, '--out', 'e.ndjson'], { cwd: dir });
    fs.writeFileSync(path.join(dir, 'plan.json'), JSON.stringify({ events: { Checked: { type: 'object', properties: { price: { type: 'number' } } } } }));
    const checked = await sluice(['check', '--plan', 'plan.json', 'e.ndjson'], { cwd: dir });
    expect(checked.stdout).toContain('e.ndjson:1  track "Checked" (c-1)  Datatype-Mismatch at /properties/price');
    expect(checked.code).toBe(1);
  });
});

describe('sluice import reads every input shape and says what it could not send', () => {
  it('plain messages, batches, pages of the HTTP API and exports; refused messages and unreadable lines listed with file:line; exit 1', async () => {
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    const run = await sluice(['import', 'mixed.ndjson', '--write-key', 'wk_b', '--url', `${b.ingestUrl}/`]);
    // V8's wording of a JSON error changes between Node.js versions.
    const stdout = run.stdout.replace(/the line is not JSON \(.*\)\n/, 'the line is not JSON (…)\n');
    expect(stdout).toBe(
      [
        `imported mixed.ndjson into ${b.ingestUrl} (with the write key given): 6 messages sent, 3 accepted, 2 refused, 2 unreadable lines`,
        '  1 refused again, as the export says they were the first time (not counted as refused)',
        "  1 not sent: made by Sluice itself (audience syncs' identifies, Violation Generated events); the relay makes its own",
        '  1 not sent: rejected, and the export could not keep its text whole (not JSON, too large or too deep)',
        'refused:',
        '  mixed.ndjson:2 batch[1]  track (mx-3)  missing_event: track needs "event"',
        '  mixed.ndjson:9  purchase (mx-9)  invalid_type: unknown message type "purchase"; expected one of identify, track, page, screen, group, alias',
        'unreadable:',
        '  mixed.ndjson:4  the line is not JSON (…)',
        '  mixed.ndjson:8  the line is JSON but not an object; expected a message, an exported message, a page of messages, a batch or a HAR document',
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(1);
    const stored = parseLines((await sluice(['export', '--data-dir', b.dataDir, '--status', 'accepted'])).stdout);
    expect(stored.map((l) => l.message)).toEqual([
      { type: 'track', event: 'Plain', userId: 'u1', messageId: 'mx-1' },
      { type: 'identify', userId: 'u2', messageId: 'mx-2', context: { app: { version: '1' } } },
      // A page of the HTTP API: Sluice's metadata beside the message's fields is left out.
      { type: 'page', name: 'Home', userId: 'u3', messageId: 'mx-4' },
    ]);
  });

  it('reads stdin for -, and lists at most 10 refusals', async () => {
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    const input = Array.from({ length: 12 }, (_, i) => JSON.stringify({ type: 'track', userId: 'u', messageId: `bad-${i}` })).join('\n');
    const run = await sluice(['import', '-', '--write-key', 'wk_b', '--url', b.ingestUrl], { stdin: input });
    expect(run.code).toBe(1);
    const out = run.stdout.split('\n');
    expect(out[0]).toBe(`imported <stdin> into ${b.ingestUrl} (with the write key given): 12 messages sent, 0 accepted, 12 refused, 0 unreadable lines`);
    expect(out.slice(1, 3)).toEqual(['refused:', '  <stdin>:1  track (bad-0)  missing_event: track needs "event"']);
    expect(out[12]).toBe('  … and 2 more');
  });

  it('a message with a field called "message" is a message, not an export\'s line', async () => {
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    const message = { type: 'track', event: 'Error Shown', userId: 'u', messageId: 'e-1', message: { text: 'Card declined' } };
    const run = await sluice(['import', '-', '--write-key', 'wk_b', '--url', b.ingestUrl], { stdin: JSON.stringify(message) });
    expect(run.code).toBe(0);
    expect(parseLines((await sluice(['export', '--data-dir', b.dataDir])).stdout).map((l) => l.message)).toEqual([message]);
  });

  it("the HTTP API's answers as it gives them now — a page, a message with its deliveries — lose every field Sluice added", async () => {
    const a = await relay([{ name: 'web', writeKey: 'wk_a' }]);
    const own = [
      { type: 'track', event: 'Shown', userId: 'u', messageId: 'api-1', properties: { n: 1 } },
      { type: 'identify', userId: 'u', messageId: 'api-2', traits: { plan: 'pro' } },
    ];
    for (const message of own) expect((await post(a, `/v1/${message.type}`, message)).status).toBe(200);
    const answers = await a.queries.messages();
    // What the API shows besides the message: its place in the store, the warning, the pin, and the rest.
    expect(answers[0]).toMatchObject({ sequence: expect.any(Number), warning: null, pinned: false, source: 'web', status: 'accepted' });
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    const input = [JSON.stringify({ messages: [answers[0]], next: null }), JSON.stringify({ message: answers[1], deliveries: [] })].join('\n');
    const run = await sluice(['import', '-', '--write-key', 'wk_b', '--url', b.ingestUrl], { stdin: input });
    expect(run.code).toBe(0);
    expect(parseLines((await sluice(['export', '--data-dir', b.dataDir])).stdout).map((l) => l.message)).toEqual(own);
  });

  it('says how far it has got every ~2 s on stderr', async () => {
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    const child = spawn(process.execPath, [CLI, 'import', '-', '--write-key', 'wk_b', '--url', b.ingestUrl], { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Lines 2.3 s apart: however long the command takes to start, two of them come 2 s apart in its time.
    child.stdin.write(`${JSON.stringify({ type: 'track', event: 'Slow', userId: 'u', messageId: 's-1' })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    child.stdin.write(`${JSON.stringify({ batch: [{ type: 'track', event: 'Slow', userId: 'u', messageId: 's-2' }] })}\n`);
    await new Promise((resolve) => setTimeout(resolve, 2_300));
    child.stdin.end(`${JSON.stringify({ type: 'track', event: 'Slow', userId: 'u', messageId: 's-3' })}\n`);
    expect(await closed).toBe(0);
    const progress = stderr.split('\n').filter(Boolean);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    // Which line it has read by its first tick depends on how long the command took to start (seconds on a loaded machine).
    for (const line of progress) expect(line).toMatch(/^sluice: importing: read up to <stdin>:[123], 0 messages sent so far$/);
    expect(stdout).toContain('3 messages sent, 3 accepted');
  });

  it('sends more than one batch for a long file, in order', async () => {
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    const dir = scratch();
    const big = 'y'.repeat(2_000);
    fs.writeFileSync(path.join(dir, 'long.ndjson'), Array.from({ length: 1_200 }, (_, i) => JSON.stringify({ type: 'track', event: 'E', userId: 'u', messageId: `long-${i}`, properties: { big } })).join('\n'));
    const run = await sluice(['import', 'long.ndjson', '--write-key', 'wk_b', '--url', b.ingestUrl], { cwd: dir });
    expect(run.stdout.split('\n')[0]).toBe(`imported long.ndjson into ${b.ingestUrl} (with the write key given): 1,200 messages sent, 1,200 accepted, 0 refused, 0 unreadable lines`);
    // 2 KB each: 500 would be over 500 KB, so the batches are cut by size (about 240 a request).
    expect((await b.queries.stats()).messages).toMatchObject({ accepted: 1_200 });
    const ids = parseLines((await sluice(['export', '--data-dir', b.dataDir], { cwd: dir })).stdout).map((l) => l.messageId);
    expect(ids).toEqual(Array.from({ length: 1_200 }, (_, i) => `long-${i}`));
  });
});

describe('an import the relay stops answering mid-way', () => {
  /** A front to `relay` that passes the first `passed` batches on and answers 503 to the rest. */
  async function failingAfter(relay: TestCore, passed: number): Promise<{ url: string; close: () => Promise<void> }> {
    let batches = 0;
    const front = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        if (req.url === '/v1/batch' && batches++ >= passed) return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"unavailable","message":"down"}}');
        const answer = await fetch(`${relay.ingestUrl}${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}) });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', () => resolve()));
    return { url: `http://127.0.0.1:${(front.address() as net.AddressInfo).port}`, close: () => new Promise((resolve) => front.close(() => resolve())) };
  }

  it('says how many were accepted, and truly what importing again does: a duplicate of each with a messageId, a new message of each without', async () => {
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    // 600 messages: the first batch (500) goes through, the second is refused until the import gives up.
    // Of the first 500, every fifth has no messageId: 100 without, 400 with.
    const lines = Array.from({ length: 600 }, (_, i) => JSON.stringify({ type: 'track', event: 'Seen', userId: 'u', ...(i % 5 === 0 ? {} : { messageId: `m-${i}` }) })).join('\n');
    const front = await failingAfter(b, 1);
    const run = await sluice(['import', '-', '--write-key', 'wk_b', '--url', front.url], { stdin: lines });
    await front.close();
    expect(run).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `sluice: ${front.url} answered 503 (down), 4 times; 500 messages were accepted before <stdin>:501: importing the file again stores the 100 without a messageId ` +
        'again, as new messages (the relay gives a message without a messageId a new one each time), and the other 400 as duplicates (the same messageIds)\n',
    });
    // What it says is what happens.
    const again = await sluice(['import', '-', '--write-key', 'wk_b', '--url', b.ingestUrl], { stdin: lines });
    expect(again.code).toBe(0);
    const stored = parseLines((await sluice(['export', '--data-dir', b.dataDir])).stdout);
    const firstFive = (status: string) => stored.filter((l) => l.status === status && Number(l.message?.messageId?.toString().slice(2) ?? 0) < 500);
    expect(stored.filter((l) => l.status === 'accepted')).toHaveLength(500 + 600 - 400);
    expect(firstFive('duplicate').map((l) => l.messageId)).toEqual(Array.from({ length: 500 }, (_, i) => i).filter((i) => i % 5 !== 0).map((i) => `m-${i}`));
  }, 30_000);

  it('says so when none of them had a messageId, or all', async () => {
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    for (const [withIds, said] of [
      [false, '500 messages were accepted before <stdin>:501, none with a messageId: importing the file again stores them again, as new messages'],
      [true, '500 messages were accepted before <stdin>:501: importing the file again stores those as duplicates (the same messageIds)\n'],
    ] as const) {
      const lines = Array.from({ length: 501 }, (_, i) => JSON.stringify({ type: 'track', event: 'Seen', userId: 'u', ...(withIds ? { messageId: `all-${i}` } : {}) })).join('\n');
      const front = await failingAfter(b, 1);
      const run = await sluice(['import', '-', '--write-key', 'wk_b', '--url', front.url], { stdin: lines });
      await front.close();
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(said);
    }
  }, 30_000);
});

describe('errors are sentences, with exit code 2', () => {
  it('export: no store, unknown source, bad --since, --destination without --har', async () => {
    const dir = scratch();
    const missing = path.join(dir, 'nothing-here');
    expect(await sluice(['export', '--data-dir', missing])).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: no Sluice store in ${missing} (there is no sluice.db): run sluice serve first, or give --data-dir\n`,
    });
    const a = await relay([{ name: 'web', writeKey: 'wk_web' }, { name: 'ios', writeKey: 'wk_ios' }]);
    expect(await sluice(['export', '--data-dir', a.dataDir, '--source', 'android'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: there is no source "android" in ${a.dataDir}: its sources are "ios", "web"\n`,
    });
    const since = await sluice(['export', '--data-dir', a.dataDir, '--since', 'yesterday']);
    expect(since.code).toBe(2);
    expect(since.stderr).toMatch(/^sluice: --since must be an ISO 8601 date or time \(2025-03-01, 2025-03-01T12:00:00Z\), a time ago \(30m, 2h, 7d, 2w\) or ms since 1970; not "yesterday"\n\nUsage: sluice export/);
    expect((await sluice(['export', '--data-dir', a.dataDir, '--since', '2026-02-31'])).code).toBe(2);
    expect((await sluice(['export', '--data-dir', a.dataDir, '--status', 'ok'])).stderr).toMatch(/^sluice: --status must be accepted, rejected, duplicate, not "ok"\n/);
    expect((await sluice(['export', '--data-dir', a.dataDir, '--destination', 'hooks'])).stderr).toMatch(/^sluice: --destination picks webhook attempts: give it with --har\n/);
    expect((await sluice(['export', '--data-dir', a.dataDir, '--since', '1h', '--until', '2h'])).stderr).toMatch(/^sluice: --since \(.*\) is after --until \(.*\): nothing could match\n/);
    expect((await sluice(['export', 'file.ndjson'])).code).toBe(2);
  });

  it('import: no relay listening, unknown source, no store to look a source up in, a write key the relay does not know, a missing file', async () => {
    const port = await closedPort();
    expect(await sluice(['import', 'mixed.ndjson', '--write-key', 'wk', '--url', `http://127.0.0.1:${port}`])).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: no Sluice listening at http://127.0.0.1:${port}: start sluice serve, or give --url\n`,
    });
    const b = await relay([{ name: 'web', writeKey: 'wk_b' }]);
    expect(await sluice(['import', 'mixed.ndjson', '--source', 'ios', '--data-dir', b.dataDir, '--url', b.ingestUrl])).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: there is no source "ios" in ${b.dataDir}: its sources are "web"\n`,
    });
    const empty = path.join(scratch(), 'empty');
    expect((await sluice(['import', 'mixed.ndjson', '--source', 'web', '--data-dir', empty, '--url', b.ingestUrl])).stderr).toBe(
      `sluice: no Sluice store in ${empty} to look the source's write key up in (there is no sluice.db): give --write-key, or the --data-dir of the running sluice serve\n`,
    );
    const wrongKey = await sluice(['import', 'mixed.ndjson', '--write-key', 'wk_nobody', '--url', b.ingestUrl]);
    expect(wrongKey.code).toBe(2);
    expect(wrongKey.stderr).toMatch(new RegExp(`^sluice: ${b.ingestUrl.replaceAll('.', '\\.')} refused the write key \\(401 invalid_write_key: .*\\): give the write key of one of its sources`));
    // Another server (the inspector's port, say): it has no /v1/batch.
    const other = http.createServer((_req, res) => res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"not_found","message":"no"}}'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', () => resolve()));
    const otherUrl = `http://127.0.0.1:${(other.address() as net.AddressInfo).port}`;
    expect(await sluice(['import', 'mixed.ndjson', '--write-key', 'wk_b', '--url', otherUrl])).toEqual({
      code: 2,
      stdout: '',
      stderr: `sluice: ${otherUrl} answered 404 to POST /v1/batch: it is not a Sluice ingestion endpoint (sluice serve prints its URL as "ingest"); check --url\n`,
    });
    await new Promise((resolve) => other.close(resolve));
    expect(await sluice(['import', 'nope.ndjson', '--write-key', 'wk_b', '--url', b.ingestUrl])).toEqual({ code: 2, stdout: '', stderr: 'sluice: cannot read nope.ndjson: there is no such file\n' });
    expect((await sluice(['import', 'mixed.ndjson', '--write-key', 'k', '--source', 'web'])).stderr).toMatch(/^sluice: give --source or --write-key, not both\n\nUsage: sluice import/);
    expect((await sluice(['import', 'mixed.ndjson', '--write-key', 'k', '--url', 'ftp://x'])).code).toBe(2);
  });
});
