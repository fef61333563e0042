// `sluice tail` from the installed tarball (issue 31, point 1): the packed bin follows a relay started by
// the packed bin, found through its data folder, prints a line for a message sent over HTTP, and exits 0
// on Ctrl+C and when the relay stops.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServing, type RunningCli } from '../helpers/cli.ts';
import { post } from '../helpers/core.ts';
import { installInto, packSluice, pathWith, tempDir } from '../helpers/packed-sluice.ts';
import { startTail, type RunningTail } from '../helpers/tail.ts';

const work = tempDir('sluice-packaging-tail-');
const project = path.join(work, 'consumer');
const bin = path.join(project, 'node_modules', '.bin', 'sluice');
const env = { ...process.env, PATH: pathWith(process.execPath) };
const running: { child: { kill(signal: NodeJS.Signals): unknown } }[] = [];

beforeAll(() => {
  installInto(project, packSluice(work).tarball);
}, 300_000);

afterAll(() => {
  for (const { child } of running) child.kill('SIGKILL');
  fs.rmSync(work, { recursive: true, force: true });
});

describe('sluice tail from the installed package', () => {
  it('follows a relay of the installed bin through its data folder, prints a line per message, and exits 0', async () => {
    const dataDir = path.join(work, 'data');
    fs.writeFileSync(path.join(work, 'sluice.json'), JSON.stringify({ sources: [{ name: 'app', writeKey: 'wk_app', kind: 'server' }] }));
    const relay: RunningCli = await startServing(bin, ['serve', '--json', '--data-dir', dataDir, '--config', path.join(work, 'sluice.json'), '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'], { cwd: project, env });
    running.push(relay);
    const first: RunningTail = await startTail(['--data-dir', dataDir], [bin], env);
    const second: RunningTail = await startTail(['--data-dir', dataDir, '--json'], [bin], env);
    running.push(first, second);
    expect((await post({ ingestUrl: relay.ready.ingest, writeKey: 'wk_app' }, '/v1/track', { userId: 'u_pkg', event: 'Packed Tail', messageId: 'pkg-1' })).status).toBe(200);
    expect((await first.nextLines(1))[0]).toMatch(/^\d\d:\d\d:\d\d track Packed Tail · user u_pkg · source app · no destination$/);
    expect(JSON.parse((await second.nextLines(1))[0]!)).toMatchObject({ message: { messageId: 'pkg-1', event: 'Packed Tail', source: 'app' }, deliveries: [] });
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(await relay.stop()).toBe(0);
    expect(await second.exited).toBe(0);
    expect(second.stderr()).toContain(`the relay at ${relay.ready.api} stopped`);
  }, 120_000);
});
