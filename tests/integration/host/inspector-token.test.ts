// The inspector's token kept in the data folder: the module over real folders, and `sluice serve`
// over a real data folder — the same link after a restart, `--new-token` replacing it, the old link
// then refused by the WebSocket and the HTTP API, and the token printed only where it is to be copied.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { inspectorToken, TOKEN_FILE, TokenFileError } from '../../../electron/host/inspector-token.ts';
import { CLI, startCli, type RunningCli } from '../../helpers/cli.ts';
import { tempDir } from '../../helpers/core.ts';

const running: RunningCli[] = [];
afterEach(() => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL');
});

async function serve(args: string[]): Promise<RunningCli> {
  const cli = await startCli(args);
  running.push(cli);
  return cli;
}

async function stop(cli: RunningCli): Promise<void> {
  running.splice(running.indexOf(cli), 1);
  expect(await cli.stop()).toBe(0);
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;

/** The WebSocket's answer to a token: 'open' or the refusal's status. */
function socketAnswer(ui: string, token: string): Promise<string> {
  const base = new URL(ui);
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${base.host}/api?token=${encodeURIComponent(token)}`, { headers: { origin: base.origin } });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(String(res.statusCode)));
    ws.on('error', (error) => resolve(`error: ${error.message}`));
  });
}

const apiStatus = async (api: string, token: string) => (await fetch(`${api}/messages?limit=1`, { headers: { authorization: `Bearer ${token}` } })).status;

const isRoot = process.getuid?.() === 0;
const posix = process.platform !== 'win32';

describe('inspectorToken (the token file)', () => {
  it('makes an owner-only file on the first start, reads the same token after, and replaces it when asked', () => {
    const dir = tempDir();
    const file = path.join(dir, TOKEN_FILE);
    const first = inspectorToken(dir);
    expect(first.origin).toBe('created');
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${first.token}\n`);
    if (posix) expect(mode(file)).toBe(0o600);
    expect(inspectorToken(dir)).toEqual({ token: first.token, origin: 'kept' });
    const rotated = inspectorToken(dir, { rotate: true });
    expect(rotated.origin).toBe('rotated');
    expect(rotated.token).not.toBe(first.token);
    expect(inspectorToken(dir).token).toBe(rotated.token);
    if (posix) expect(mode(file)).toBe(0o600);
    // Written through a temporary file renamed over it: nothing is left beside it.
    expect(fs.readdirSync(dir)).toEqual([TOKEN_FILE]);
  });

  it('replaces a file that holds no token, saying so without quoting it', () => {
    for (const content of ['', 'short\n', 'has spaces in it and is long enough to be one\n', `${'x'.repeat(40)}?\n`]) {
      const dir = tempDir();
      fs.writeFileSync(path.join(dir, TOKEN_FILE), content, { mode: 0o600 });
      const got = inspectorToken(dir);
      expect(got.origin).toBe('replaced');
      expect(got.note).toMatch(/did not hold a token: it now holds a new one; earlier inspector links no longer work/);
      expect(got.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      if (content.trim()) expect(got.note).not.toContain(content.trim());
      expect(inspectorToken(dir)).toEqual({ token: got.token, origin: 'kept' });
    }
  });

  it.skipIf(!posix)('replaces a token other users could read (a copied or chmod-ed file), owner-only again', () => {
    const dir = tempDir();
    const file = path.join(dir, TOKEN_FILE);
    const old = inspectorToken(dir).token;
    fs.chmodSync(file, 0o644);
    const got = inspectorToken(dir);
    expect(got).toMatchObject({ origin: 'replaced', note: expect.stringContaining('could be read by other users (mode 0644)') });
    expect(got.token).not.toBe(old);
    expect(got.note).not.toContain(old);
    expect(mode(file)).toBe(0o600);
  });

  it('refuses, naming the file, what is not a regular file, and says when it cannot write', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, TOKEN_FILE));
    expect(() => inspectorToken(dir)).toThrow(TokenFileError);
    expect(() => inspectorToken(dir)).toThrow(`the inspector's token file ${path.join(dir, TOKEN_FILE)} is not a regular file; remove it and Sluice makes a new token`);
    // Renaming a file over a folder fails: --new-token says so rather than leaving a temporary file.
    expect(() => inspectorToken(dir, { rotate: true })).toThrow(/^cannot write the inspector's token file .*inspector-token: /);
    expect(fs.readdirSync(dir)).toEqual([TOKEN_FILE]);
  });

  if (isRoot) console.warn('[inspector token] the unreadable-file case is skipped: this runs as root, who reads a mode-000 file');
  it.skipIf(isRoot || !posix)('says it cannot read a file its user may not read, and what to do', () => {
    const dir = tempDir();
    const file = path.join(dir, TOKEN_FILE);
    inspectorToken(dir);
    fs.chmodSync(file, 0o000);
    expect(() => inspectorToken(dir)).toThrow(/cannot read the inspector's token file .*permission denied.*--new-token replaces it/);
  });
});

describe('sluice serve and its token', () => {
  it('keeps the link across restarts on a data folder; --new-token replaces it and the old one is refused', async () => {
    const dataDir = path.join(tempDir(), 'data');
    const file = path.join(dataDir, TOKEN_FILE);
    const first = await serve(['--data-dir', dataDir]);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${first.ready.token}\n`);
    if (posix) expect(mode(file)).toBe(0o600);
    expect(first.ready.ui).toBe(`${new URL(first.ready.ui).origin}/?token=${first.ready.token}`);
    expect(first.ready.warnings).toEqual([]);
    await stop(first);

    const again = await serve(['--data-dir', dataDir]);
    expect(again.ready.token).toBe(first.ready.token);
    expect(await socketAnswer(again.ready.ui, first.ready.token)).toBe('open');
    expect(await apiStatus(again.ready.api, first.ready.token)).toBe(200);
    await stop(again);

    const rotated = await serve(['--data-dir', dataDir, '--new-token']);
    expect(rotated.ready.token).not.toBe(first.ready.token);
    expect(fs.readFileSync(file, 'utf8')).toBe(`${rotated.ready.token}\n`);
    if (posix) expect(mode(file)).toBe(0o600);
    expect(await socketAnswer(rotated.ready.ui, first.ready.token)).toBe('401');
    expect(await apiStatus(rotated.ready.api, first.ready.token)).toBe(401);
    expect(await socketAnswer(rotated.ready.ui, rotated.ready.token)).toBe('open');
    await stop(rotated);

    // And the new one is the one kept.
    const after = await serve(['--data-dir', dataDir]);
    expect(after.ready.token).toBe(rotated.ready.token);
  });

  it('prints the token only in the links to copy; a replaced file is a warning without it', async () => {
    const dataDir = path.join(tempDir(), 'data');
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dataDir, TOKEN_FILE), 'not a token\n', { mode: 0o600 });
    const child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--ingest-port', '0', '--receiver-port', '0', '--ui-port', '0'], { stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('Press Ctrl+C')) resolve();
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const token = fs.readFileSync(path.join(dataDir, TOKEN_FILE), 'utf8').trim();
    const lines = stdout.split('\n').filter((line) => line.includes(token));
    expect(lines.map((line) => line.trim().split(/\s{2,}/)[0])).toEqual(['Inspector', 'HTTP API']);
    expect(stderr).toContain(`sluice: warning: the inspector's token file ${path.join(dataDir, TOKEN_FILE)} did not hold a token`);
    expect(stderr).not.toContain(token);
  });
});
