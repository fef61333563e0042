// `sluice serve` as a user runs it: a real child process, real ports, a real data folder.
import { afterEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { post, startCore, storedMessages, tempDir } from '../../helpers/core.ts';
import { runCli, serveBanner, startCli, type RunningCli } from '../../helpers/cli.ts';
import { closedPort } from '../../helpers/ports.ts';

const running: RunningCli[] = [];
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL');
});

async function serve(args: string[]): Promise<RunningCli> {
  const cli = await startCli(args);
  running.push(cli);
  return cli;
}

describe('sluice', () => {
  it('prints the package version for --version, -v and version', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../../package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v', 'version']) {
      expect(await runCli([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });

  it('lists its commands for --help, and serve --help lists the serve options', async () => {
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sluice <command> [options]');
    expect(help.stdout).toMatch(/^ {2}serve +run the relay/m);
    expect(help.stdout).toMatch(/^ {2}-v, --version/m);
    for (const args of [['serve', '--help'], ['serve', '-h'], ['help', 'serve']]) {
      const serveHelp = await runCli(args);
      expect(serveHelp.code).toBe(0);
      expect(serveHelp.stdout).toContain('Usage: sluice serve [options]');
      for (const option of ['--config FILE', '--data-dir DIR', '--ingest-port N', '--ui-port N', '--receiver-port N', '--host ADDR', '--json']) {
        expect(serveHelp.stdout).toContain(option);
      }
    }
    // With no command: the help, and exit code 2 (nothing was run).
    const bare = await runCli([]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe(help.stdout);
  });
});

describe('sluice serve', () => {
  it('prints one JSON ready line, serves, and on SIGINT stores what it accepted and exits 0', async () => {
    const dataDir = path.join(tempDir(), 'new-folder');
    const cli = await serve(['--data-dir', dataDir]);
    expect(cli.ready.ingest).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(cli.ready.receiver).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(cli.ready.dataDir).toBe(dataDir);
    const [source] = cli.ready.sources;
    expect(source).toMatchObject({ name: 'default', kind: 'server', writeKey: expect.stringMatching(/^wk_[0-9a-f]{24}$/) });

    const res = await post({ ingestUrl: cli.ready.ingest, writeKey: source!.writeKey }, '/v1/track', { userId: 'u', event: 'Via CLI' });
    expect(res.status).toBe(200);
    // Owner-only data, including SQLite's -wal and -shm files while it runs.
    for (const file of ['sluice.db', 'sluice.db-wal', 'sluice.db-shm']) {
      expect({ file, mode: fs.statSync(path.join(dataDir, file)).mode & 0o777 }).toEqual({ file, mode: 0o600 });
    }
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(0);
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700); // a folder Sluice creates is owner-only
    const core = await startCore({ dataDir });
    try {
      expect(core.writeKey).toBe(source!.writeKey);
      expect(storedMessages(core).map((m) => m.event)).toEqual(['Via CLI']);
    } finally {
      await core.dispose();
    }
  });

  it('loads a config file: its sources and write keys are live', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'sluice.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'hooks', enabled: true, sources: ['web'], sharedSecret: 'abc123', webhooks: [{ url: 'http://127.0.0.1:9000/a', headers: { 'X-Env': 'dev' } }] }],
      }),
    );
    const cli = await serve(['--data-dir', path.join(dir, 'data'), '--config', config]);
    expect(cli.ready.sources).toEqual([{ name: 'web', writeKey: 'wk_web', kind: 'web' }]);
    const res = await post({ ingestUrl: cli.ready.ingest, writeKey: 'wk_web' }, '/v1/identify', { userId: 'u' });
    expect(res.status).toBe(200);
  });

  it('aligns the banner\'s columns by its longest label, a source\'s name longer than "default" included', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'sluice.json');
    const long = 'checkout-service-eu-west';
    fs.writeFileSync(config, JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web' }, { name: long, writeKey: 'wk_long' }] }));
    const banner = await serveBanner(['--data-dir', path.join(dir, 'data'), '--config', config]);
    const rows = banner.split('\n').filter((line) => line.startsWith('  '));
    expect(rows.map((line) => /^ {2}(.+?) {2,}\S/.exec(line)?.[1])).toEqual([
      'Inspector',
      'Ingestion endpoint',
      'Source "web"',
      `Source "${long}"`,
      'Test receiver',
      'HTTP API',
      'Data',
    ]);
    // Every value starts in the same column: two spaces after the longest label.
    expect(rows.map((line) => /^ {2}.+? {2,}(?=\S)/.exec(line)![0].length)).toEqual(rows.map(() => 2 + `Source "${long}"`.length + 2));
    expect(rows[3]).toContain('write key wk_long');
  });

  it('warns at start about a webhook that posts to its own ingestion endpoint (the loop guard would refuse every request)', async () => {
    const dir = tempDir();
    const port = await closedPort();
    const config = path.join(dir, 'sluice.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        sources: [{ name: 'web', writeKey: 'wk_web' }],
        destinations: [
          { name: 'loop', sources: ['web'], webhooks: [{ url: `http://localhost:${port}/v1/track` }] },
          { name: 'fine', sources: ['web'], webhooks: [{ url: `http://127.0.0.1:${port + 1}/hook` }] },
        ],
      }),
    );
    const cli = await startCli(['--data-dir', path.join(dir, 'data'), '--config', config, '--ingest-port', String(port)]);
    running.push(cli);
    expect(cli.ready.warnings).toEqual([
      `destination "loop", webhook 1 (http://localhost:${port}/v1/track) posts to this Sluice's own ingestion endpoint: Sluice refuses those requests (409 loop_detected) rather than loop; point it at a receiver`,
    ]);
  });

  it('--ephemeral stores in a new temporary folder and removes it on exit; refuses --data-dir beside it', async () => {
    const cli = await startCli(['--ephemeral']);
    running.push(cli);
    expect(cli.ready.ephemeral).toBe(true);
    expect(path.dirname(cli.ready.dataDir)).toBe(os.tmpdir());
    expect(path.basename(cli.ready.dataDir)).toMatch(/^sluice-ephemeral-/);
    expect((await post({ ingestUrl: cli.ready.ingest, writeKey: cli.ready.sources[0]!.writeKey }, '/v1/track', { userId: 'u', event: 'Kept until exit' })).status).toBe(200);
    expect(fs.readdirSync(cli.ready.dataDir)).toContain('sluice.db');
    expect(await cli.stop()).toBe(0);
    expect(fs.existsSync(cli.ready.dataDir)).toBe(false);

    // A start that fails (its port taken) removes its folder too.
    const ephemeralDirs = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('sluice-ephemeral-')).sort();
    const before = ephemeralDirs();
    const blocker = await startCore({ ingestPort: 0 });
    const failed = await runCli(['serve', '--ephemeral', '--ingest-port', new URL(blocker.ingestUrl).port]);
    await blocker.dispose();
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/in use/);
    expect(ephemeralDirs()).toEqual(before);

    const both = await runCli(['serve', '--ephemeral', '--data-dir', tempDir()]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--ephemeral stores in a new temporary folder of its own; leave out --data-dir/);
  });

  it('the ready line names the HTTP API and its token, and the API answers with them', async () => {
    const cli = await startCli(['--ephemeral']);
    running.push(cli);
    expect(cli.ready.api).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(cli.ready.ui).toContain(`token=${cli.ready.token}`);
    await post({ ingestUrl: cli.ready.ingest, writeKey: cli.ready.sources[0]!.writeKey }, '/v1/track', { userId: 'u', event: 'Over HTTP' });
    const res = await fetch(`${cli.ready.api}/messages/wait`, {
      method: 'POST',
      headers: { authorization: `Bearer ${cli.ready.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ filter: { event: 'Over HTTP' }, timeoutMs: 5_000 }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { messages: { event: string }[] }).messages[0]!.event).toBe('Over HTTP');
  });

  it('refuses a config that gives a stored source\'s write key to another source, naming the field', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'sluice.json');
    fs.writeFileSync(config, JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_shared' }] }));
    const first = await serve(['--data-dir', path.join(dir, 'data'), '--config', config]);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    fs.writeFileSync(config, JSON.stringify({ sources: [{ name: 'renamed', writeKey: 'wk_shared' }] }));
    const { code, stderr } = await runCli(['serve', '--data-dir', path.join(dir, 'data'), '--config', config, '--ingest-port', '0', '--receiver-port', '0']);
    expect(code).toBe(2);
    expect(stderr).toContain(`${config}: sources[0].writeKey: already the key of the stored source "web"`); // the file named, as for any mistake in it
  });

  it('refuses a bad config with exit code 2 and the bad field named', async () => {
    const dir = tempDir();
    const config = path.join(dir, 'bad.json');
    fs.writeFileSync(config, JSON.stringify({ destinations: [{ name: 'd', webhooks: [{ url: 'ftp://x' }] }] }));
    const { code, stdout, stderr } = await runCli(['serve', '--data-dir', path.join(dir, 'data'), '--config', config, '--ingest-port', '0', '--receiver-port', '0']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('invalid config');
    expect(stderr).toContain('destinations[0].webhooks[0].url: must use http or https');
  });

  it.each([
    [['serve', '--ingest-port', 'eighty'], '--ingest-port must be a port number', 'Usage: sluice serve'],
    [['serve', '--bogus'], "Unknown option '--bogus'", 'Usage: sluice serve'],
    [['launch'], 'unknown command "launch"', 'Usage: sluice <command>'],
    [['help', 'launch'], 'unknown command "launch"', 'Usage: sluice <command>'],
  ])('refuses %j with exit code 2 and usage', async (args, message, usage) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
    expect(stderr).toContain(usage);
    expect(stderr).not.toMatch(/^\s+at /m); // a sentence, not a stack trace
  });

  it('says clearly when the port is taken', async () => {
    const first = await serve(['--data-dir', tempDir()]);
    const port = new URL(first.ready.ingest).port;
    const { code, stderr } = await runCli(['serve', '--data-dir', tempDir(), '--ingest-port', port, '--receiver-port', '0']);
    expect(code).toBe(2);
    expect(stderr).toContain(`port ${port} is in use`);
  });
});
