// `sluice tail` and `sluice serve --print` (issue 31, point 1): a real relay started by `sluice serve`, real
// HTTP sends to it and to a real webhook receiver, the real CLI as a child process.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { post, tempDir } from '../../helpers/core.ts';
import { CLI, runCli, startCli, type RunningCli } from '../../helpers/cli.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { startTail, type RunningTail } from '../../helpers/tail.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
const children: { child: { kill(signal: NodeJS.Signals): unknown } }[] = [];
afterEach(() => {
  for (const { child } of children.splice(0)) child.kill('SIGKILL');
});

/** A relay whose source web delivers to one webhook of a real receiver (answering 200 unless scripted). */
async function relay(extra: string[] = []) {
  const hook = await receiver();
  const dataDir = tempDir();
  const config = path.join(tempDir('sluice-tail-config-'), 'sluice.json');
  fs.writeFileSync(config, JSON.stringify({
    sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
    destinations: [{ name: 'hooks', sources: ['web'], webhooks: [{ url: `${hook.url}/hook` }] }],
  }));
  const cli = await startCli(['--data-dir', dataDir, '--config', config, ...extra]);
  children.push(cli);
  const send = (body: Record<string, unknown>) => post({ ingestUrl: cli.ready.ingest, writeKey: 'wk_web' }, '/v1/track', body);
  return { cli, hook, dataDir, config, send };
}

async function tail(args: string[]): Promise<RunningTail> {
  const t = await startTail(args);
  children.push(t);
  return t;
}

describe('sluice tail', () => {
  it('prints one line per new message with who, where from and what its delivery did; Ctrl+C exits 0', async () => {
    const { dataDir, hook, send } = await relay();
    await send({ userId: 'u_before', event: 'Before Tail' }); // stored before tail starts: not printed
    // The longest settle: each line waits for its first attempt however slow this machine is today.
    const t = await tail(['--data-dir', dataDir, '--settle', '60000']);
    expect((await send({ userId: 'u_1', event: 'Order Completed' })).status).toBe(200);
    await hook.waitFor(2);
    hook.script({ status: 404, body: 'gone' });
    await send({ anonymousId: 'a_9', event: 'Signed Up', properties: { plan: 'pro' } });
    expect((await send({ userId: 'u_1' })).status).toBe(400); // refused, and stored as such
    const [first, second, third] = await t.nextLines(3);
    expect(first).toMatch(/^\d\d:\d\d:\d\d track Order Completed · user u_1 · source web · → 1\/1 delivered$/);
    expect(second).toMatch(/^\d\d:\d\d:\d\d track Signed Up · anonymous a_9 · source web · → 0\/1 delivered, 1 failed \(.*404.*\)$/);
    expect(third).toMatch(/^\d\d:\d\d:\d\d track · user u_1 · source web · rejected: track needs "event"$/);
    t.child.kill('SIGINT');
    expect(await t.exited).toBe(0);
    expect(t.lines).toHaveLength(3);
  });

  it('--json prints NDJSON: each line the message as the HTTP API shows it, with its deliveries', async () => {
    const { cli, dataDir, send } = await relay();
    const t = await tail(['--data-dir', dataDir, '--json', '--settle', '60000']);
    await send({ userId: 'u_2', event: 'Cart Viewed', messageId: 'json-1', properties: { items: 3 } });
    await send({ userId: 'u_2', event: 'Cart Left', messageId: 'json-2' });
    const lines = (await t.nextLines(2)).map((line) => JSON.parse(line) as { message: Record<string, unknown>; deliveries: Record<string, unknown>[] });
    for (const [i, line] of lines.entries()) {
      const res = await request(`${cli.ready.api}/messages/json-${i + 1}`, { headers: { authorization: `Bearer ${cli.ready.token}` } });
      const api = (await res.body.json()) as { message: unknown; deliveries: { destination: string; status: string; attemptCount: number }[] };
      expect(line.message).toEqual(api.message);
      expect(line.deliveries).toEqual(api.deliveries.map((d) => expect.objectContaining({ destination: d.destination, status: d.status, attemptCount: d.attemptCount })));
      expect(line.deliveries).toEqual([expect.objectContaining({ destination: 'hooks', status: 'delivered' })]);
    }
  });

  it('--search keeps what matches, a delivery outcome included; --since starts back', async () => {
    const { dataDir, hook, send } = await relay();
    await send({ userId: 'u_old', event: 'Old One', messageId: 'old-1' });
    await hook.waitFor(1);
    const failed = await tail(['--data-dir', dataDir, '--json', '--search', 'status:failed', '--settle', '60000']);
    const named = await tail(['--data-dir', dataDir, '--json', '--search', 'event:"Plan Chosen"']);
    const back = await tail(['--data-dir', dataDir, '--json', '--since', '10m']);
    const now = await tail(['--data-dir', dataDir, '--json']);
    await send({ userId: 'u_3', event: 'Plan Chosen', messageId: 'ok-1' });
    await hook.waitFor(2);
    hook.script({ status: 410, body: 'gone' });
    await send({ userId: 'u_3', event: 'Checkout Failed', messageId: 'fail-1' });
    await send({ userId: 'u_3', event: 'Last One', messageId: 'last-1' });
    const ids = async (t: RunningTail, n: number) => (await t.nextLines(n)).map((line) => (JSON.parse(line) as { message: { messageId: string } }).message.messageId);
    // Lines come in stored order: once the last message's line is there, an earlier one would be too.
    expect(await ids(back, 4)).toEqual(['old-1', 'ok-1', 'fail-1', 'last-1']);
    expect(await ids(now, 3)).toEqual(['ok-1', 'fail-1', 'last-1']);
    expect(await ids(failed, 1)).toEqual(['fail-1']);
    expect(await ids(named, 1)).toEqual(['ok-1']);
    await send({ userId: 'u_3', event: 'Plan Chosen', messageId: 'ok-2' });
    expect(await ids(named, 2)).toEqual(['ok-1', 'ok-2']);
    expect(failed.lines).toHaveLength(1);
  });

  it('--since an ISO time starts at the first message received from then, not before', async () => {
    const { cli, dataDir, send } = await relay();
    await send({ userId: 'u_4', event: 'Too Early', messageId: 'early-1' });
    const res = await request(`${cli.ready.api}/messages/early-1`, { headers: { authorization: `Bearer ${cli.ready.token}` } });
    const from = Date.parse(((await res.body.json()) as { message: { receivedAt: string } }).message.receivedAt) + 1;
    await until(() => Date.now() > from + 1, 1_000, 'the clock to pass the start');
    await send({ userId: 'u_4', event: 'On Time', messageId: 'on-time-1' });
    const t = await tail(['--data-dir', dataDir, '--json', '--since', new Date(from).toISOString()]);
    await send({ userId: 'u_4', event: 'Later', messageId: 'later-1' });
    const ids = (await t.nextLines(2)).map((line) => (JSON.parse(line) as { message: { messageId: string } }).message.messageId);
    expect(ids).toEqual(['on-time-1', 'later-1']);
  });

  it('ends with exit 0 and a sentence when the relay stops', async () => {
    const { cli, dataDir } = await relay();
    const t = await tail(['--data-dir', dataDir]);
    expect(fs.existsSync(path.join(dataDir, 'relay.json'))).toBe(true);
    expect(await cli.stop()).toBe(0);
    expect(await t.exited).toBe(0);
    expect(t.stderr()).toContain(`sluice: the relay at ${cli.ready.api} stopped`);
    expect(fs.existsSync(path.join(dataDir, 'relay.json'))).toBe(false); // removed on a clean stop
  });

  it('when the relay stops, still prints every message it stored, those waiting on their first attempt included', async () => {
    const { cli, dataDir, hook, send } = await relay();
    hook.script({ hang: true }); // the first attempts take until their 5 s timeout: held back by --settle
    const t = await tail(['--data-dir', dataDir, '--settle', '60000', '--json']);
    for (let i = 0; i < 3; i++) expect((await send({ userId: 'u_s', event: `Settling ${i}` })).status).toBe(200);
    await hook.waitFor(1);
    // Stopped before any first attempt ended: before 2026-12-01 the stream ended at once, and tail printed none of them.
    expect(await cli.stop()).toBe(0);
    expect(await t.exited).toBe(0);
    expect(t.lines.map((line) => (JSON.parse(line) as { message: { event: string } }).message.event)).toEqual(['Settling 0', 'Settling 1', 'Settling 2']);
    expect(t.stderr()).toContain(`sluice: the relay at ${cli.ready.api} stopped`);
  });

  it('says why it cannot follow: no relay on the folder, one that was killed, a wrong token, bad options (exit 2)', async () => {
    const empty = tempDir();
    const none = await runCli(['tail', '--data-dir', empty]);
    expect(none).toMatchObject({ code: 2, stdout: '' });
    expect(none.stderr).toContain(`sluice: no sluice serve is running on the data folder ${empty}`);

    const { cli, dataDir } = await relay();
    const wrong = await runCli(['tail', '--api', cli.ready.api, '--token', 'x'.repeat(32)]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/^sluice: the relay refused --token: the token is not this Sluice's/);

    cli.child.kill('SIGKILL');
    await cli.exited;
    const killed = await runCli(['tail', '--data-dir', dataDir]);
    expect(killed.code).toBe(2);
    expect(killed.stderr).toMatch(/relay\.json names process \d+, which has exited without stopping cleanly/);

    const nothing = await runCli(['tail', '--api', cli.ready.api, `--token=${cli.ready.token}`]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain(`nothing answers at ${cli.ready.api}`);

    // Something listens there but does not answer HTTP (it hangs up): it could not follow, exit 2 — before
    // 2026-12-01 "the relay stopped", exit 0.
    const mute = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
    const muteApi = `http://127.0.0.1:${(mute.address() as net.AddressInfo).port}/api/v1`;
    const reset = await runCli(['tail', '--api', muteApi, `--token=${cli.ready.token}`]);
    mute.close();
    expect(reset.code).toBe(2);
    expect(reset.stderr).toMatch(new RegExp(`^sluice: could not follow the relay at ${muteApi.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: \\w+ before it answered`));

    for (const args of [['--since', 'yesterday'], ['--search', 'event:'], ['--api', cli.ready.api], ['--settle', 'soon'], ['stray']]) {
      const bad = await runCli(['tail', ...args]);
      expect(bad.code, args.join(' ')).toBe(2);
      expect(bad.stderr, args.join(' ')).toMatch(/^sluice: .+\n\nUsage: sluice tail/);
    }
  });
});

/** `sluice serve --print` with this config (in a file of its own): the child, its stdout's lines, and its ingestion URL once it is ready. */
async function servePrinting(config: unknown) {
  const dataDir = tempDir();
  const file = path.join(tempDir('sluice-print-config-'), 'sluice.json');
  fs.writeFileSync(file, JSON.stringify(config));
  const child = spawn(process.execPath, [CLI, 'serve', '--print', '--data-dir', dataDir, '--config', file, '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'], { stdio: 'pipe' });
  children.push({ child });
  const lines: string[] = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  await until(() => lines.includes('Press Ctrl+C to stop.'), 30_000, 'the banner');
  const { ingest } = JSON.parse(fs.readFileSync(path.join(dataDir, 'relay.json'), 'utf8')) as { ingest: string };
  return { child, lines, ingest };
}

describe('sluice serve --print', () => {
  it('prints each message stored as tail does, in the serve terminal', async () => {
    const hook = await receiver();
    // Two sources: one delivering to a webhook, one with no destination (its line does not wait on an attempt).
    const { child, lines, ingest } = await servePrinting({ sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }, { name: 'app', writeKey: 'wk_app', kind: 'server' }], destinations: [{ name: 'hooks', sources: ['web'], webhooks: [{ url: `${hook.url}/hook` }] }] });
    await post({ ingestUrl: ingest, writeKey: 'wk_app' }, '/v1/track', { userId: 'u_p', event: 'Printed' });
    await post({ ingestUrl: ingest, writeKey: 'wk_web' }, '/v1/identify', { userId: 'u_p', traits: { plan: 'pro' } });
    const line = await until(() => lines.find((l) => l.includes('Printed')), 20_000, 'the printed line');
    expect(line).toMatch(/^\d\d:\d\d:\d\d track Printed · user u_p · source app · no destination$/);
    // A delivered message's line: its outcome as the delivery stood (delivered, or still pending when its first attempt took longer than the settle).
    const identify = await until(() => lines.find((l) => l.includes('identify')), 20_000, 'the identify line');
    expect(identify).toMatch(/^\d\d:\d\d:\d\d identify · user u_p · source web · → (1\/1 delivered|0\/1 delivered, 1 pending)$/);
    child.kill('SIGINT');
    await new Promise((resolve) => child.on('exit', resolve));
  });

  it('on Ctrl+C prints the messages still waiting on their first attempt before it exits', async () => {
    const hook = await receiver();
    hook.script({ hang: true });
    const { child, lines, ingest } = await servePrinting({ sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [{ name: 'hooks', sources: ['web'], webhooks: [{ url: `${hook.url}/hook` }] }] });
    expect((await post({ ingestUrl: ingest, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_p', event: 'Waiting' })).status).toBe(200);
    await hook.waitFor(1);
    child.kill('SIGINT');
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    // Its first attempt had not ended (the default settle is 2 s): before 2026-12-01 it was never printed.
    expect(lines.filter((l) => l.includes('Waiting'))).toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d track Waiting · user u_p · source web · → 0\/1 delivered, 1 pending$/)]);
  });

  it('goes on serving when its reader goes away (`| head`), and stops cleanly on Ctrl+C', async () => {
    const child = spawn(process.execPath, [CLI, 'serve', '--ephemeral', '--print', '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'], { stdio: 'pipe' });
    children.push({ child });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const lines: string[] = [];
    readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    await until(() => lines.includes('Press Ctrl+C to stop.'), 30_000, 'the banner');
    const value = (label: string) => lines.find((l) => l.trimStart().startsWith(label))!.trimStart().slice(label.length).trim().split(/\s+/)[0]!;
    const ingest = value('Ingestion endpoint');
    const dataDir = value('Data');
    const writeKey = lines.find((l) => l.trimStart().startsWith('Source '))!.split('write key ')[1]!.trim();
    expect(fs.existsSync(path.join(dataDir, 'relay.json'))).toBe(true);
    child.stdout.destroy(); // the reader goes away: the next line printed meets EPIPE
    expect((await post({ ingestUrl: ingest, writeKey }, '/v1/track', { userId: 'u', event: 'Unread' })).status).toBe(200);
    await until(() => stderr.includes('stopped writing to stdout') || child.exitCode !== null, 20_000, 'the sentence on stderr');
    expect(child.exitCode).toBe(null); // not crashed (before: "Unhandled 'error' event", EPIPE)
    expect(stderr).toContain('Sluice goes on serving');
    // Still serving: ingestion answers, and stores.
    expect((await post({ ingestUrl: ingest, writeKey }, '/v1/track', { userId: 'u', event: 'After' })).status).toBe(200);
    expect((await request(`${ingest}/health`)).statusCode).toBe(200);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'relay.json'))).toBe(false);
  });

  it('is refused with --json (both write stdout)', async () => {
    const run = await runCli(['serve', '--print', '--json', '--data-dir', tempDir()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--print writes lines for a person');
  });
});
