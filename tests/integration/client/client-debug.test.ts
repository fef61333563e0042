// DEBUG=analytics: runtime logging to stderr, in a separate Node process that imports the client the
// way an application does (from its sources here; tests/packaging runs the published build).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../helpers/client-helpers.ts';

const execFileAsync = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
const clientUrl = pathToFileURL(path.join(root, 'electron/client/index.ts')).href;

// Three messages, flushAt 2: one batch by count, one by close(); the first request is answered 500.
const program = `
import { Client } from '${clientUrl}';
const client = new Client('wk_debug', { endpoint: process.env.ENDPOINT, flushAt: 2, retryDelayMs: 10, onError: () => {} });
client.identify({ userId: 'u_1', traits: { plan: 'pro' } });
client.track({ userId: 'u_1', event: 'Signed Up' });
client.page({ userId: 'u_1', name: 'Home' });
await client.close();
console.log('done');
`;

let server: ScriptedServer;
afterEach(async () => {
  await server.close();
});

async function runChild(env: Record<string, string>, code = program) {
  return execFileAsync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: root,
    env: { ...process.env, ENDPOINT: server.url, ...env },
  });
}

describe('DEBUG=analytics', () => {
  it('logs queue, flush (with its reason), request, response, retry and close to stderr', async () => {
    server = await startScriptedServer((n) => (n === 1 ? { status: 500 } : { status: 200 }));
    const { stdout, stderr } = await runChild({ DEBUG: 'analytics' });
    expect(stdout).toBe('done\n');
    const lines = stderr.trim().split('\n');
    for (const line of lines) expect(line).toMatch(/^analytics \d{4}-\d{2}-\d{2}T[\d:.]+Z \w+/);
    const events = lines.map((l) => l.split(' ')[2]);
    expect(events).toEqual(expect.arrayContaining(['client', 'queue', 'flush', 'request', 'response', 'retry', 'close', 'closed']));
    expect(lines.filter((l) => / queue type=\w+ messageId=[0-9a-f-]{36} bytes=\d+ queued=\d/.test(l))).toHaveLength(3);
    expect(stderr).toMatch(/ flush reason=count batch=1 messages=2 /);
    expect(stderr).toMatch(/ flush reason=close batch=2 messages=1 /);
    expect(stderr).toMatch(/ request batch=1 attempt=1 url=http:\/\/127\.0\.0\.1:\d+\/v1\/batch messages=2 bytes=\d+/);
    expect(stderr).toMatch(/ response batch=1 attempt=1 status=500 error=http_error ms=\d+ message="the endpoint answered 500: scripted 500"/);
    expect(stderr).toMatch(/ retry batch=1 attempt=2 inMs=\d+ after=500/);
    expect(stderr).toMatch(/ response batch=1 attempt=2 status=200/);
    expect(stderr).toMatch(/ closed sent=3 failed=0 dropped=0/);
    expect(stderr).not.toContain('wk_debug'); // the write key is never logged
    expect(server.requests).toHaveLength(3);
  });

  it('is silent without DEBUG, or when DEBUG names other modules', async () => {
    server = await startScriptedServer(() => ({ status: 200 }));
    for (const debug of ['', 'express,http']) {
      const { stdout, stderr } = await runChild({ DEBUG: debug });
      expect(stdout).toBe('done\n');
      expect(stderr).toBe('');
    }
  });
});

describe('a script that ends without close()', () => {
  it('still sends its messages: the flush timer keeps Node running until the batch is sent, then lets it exit', async () => {
    server = await startScriptedServer(() => ({ status: 200 }));
    const started = Date.now();
    const { stdout } = await runChild(
      {},
      `import { Client } from '${clientUrl}';
       const client = new Client('wk', { endpoint: process.env.ENDPOINT, flushAfter: 300 });
       client.track({ userId: 'u', event: 'last words' });
       console.log('script done');`,
    );
    expect(stdout).toBe('script done\n');
    expect(server.requests.flatMap((r) => r.body.batch.map((m) => m.event))).toEqual(['last words']);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
