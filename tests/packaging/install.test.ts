// Sluice installed as a user installs it: `npm pack` (its prepack builds the package), the tarball
// installed into an empty project outside the checkout, and everything run from there — the `sluice`
// bin relaying a signed event, `sluice/client` from ES modules and CommonJS on this Node and on the
// machine's Node 20, the shipped types checked by TypeScript, `npx --package <tarball> sluice serve`
// in an empty folder, and the relay's one-sentence refusal on an older Node.
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_NODE } from '../../electron/host/node-check.js';
import { startServing as startRelay, type RunningCli as Relay } from '../helpers/cli.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { docFiles, quotedSizes } from '../helpers/markdown.ts';
import { browserUnavailableReason, chromiumPath } from '../helpers/browser.ts';
import { segmentSnippet } from '../fixtures/playwright-fixture/snippet.mjs';
import {
  checkoutRoot,
  findNode20,
  installInto,
  nodeVersion,
  npm,
  packSluice,
  pathWith,
  tempDir,
  treeBytes,
  type PackedTarball,
} from '../helpers/packed-sluice.ts';

const work = tempDir('sluice-packaging-');
const project = path.join(work, 'consumer');
const installed = path.join(project, 'node_modules', 'sluice');
const bin = path.join(project, 'node_modules', '.bin', 'sluice');
const pkg = JSON.parse(fs.readFileSync(path.join(checkoutRoot, 'package.json'), 'utf8')) as { version: string };
const node20 = findNode20();
if ('reason' in node20) console.warn(`[packaging] Node 20 checks skipped: ${node20.reason}`);
// The relay's oldest Node.js (electron/host/node-check.js), when CI provides one (.ci/run does).
const nodeMin = process.env.SLUICE_NODE_MIN;
if (!nodeMin) console.warn('[packaging] the run on the relay’s oldest Node.js is skipped: SLUICE_NODE_MIN names no Node binary (.ci/run provides one)');

let packed: PackedTarball;

beforeAll(() => {
  packed = packSluice(work);
  installInto(project, packed.tarball);
}, 300_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

function servePorts(dataDir: string): string[] {
  return ['serve', '--json', '--data-dir', dataDir, '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'];
}

/** Runs a file of the consumer project with `node`; its stdout, stderr and exit code. */
function runNode(node: string, file: string, env: NodeJS.ProcessEnv = {}) {
  return spawnSync(node, [file], { cwd: project, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
}

describe('the packed tarball', () => {
  it('ships the compiled relay, the client library with its types, the built inspector, README, LICENSE and the docs\' pages — nothing else', () => {
    const expected = [
      'package.json',
      'README.md',
      'LICENSE',
      'dist/cli.js',
      'dist/writer-worker.js',
      'dist/checkpointer-worker.js',
      'dist/store-check-worker.js',
      'dist/transform-worker.js',
      'dist/THIRD-PARTY-LICENSES.md',
      'dist/client/index.js',
      'dist/client/index.cjs',
      'dist/client/index.d.ts',
      'dist/client/index.d.cts',
      'dist/testing.js',
      'dist/testing.d.ts',
      'dist/matchers.js',
      'dist/matchers.d.ts',
      'dist/matchers-vitest.d.ts',
      'dist/matchers-jest.d.ts',
      'dist/playwright.js',
      'dist/playwright.d.ts',
      'docs/http-api.openapi.json',
      'docs/configuration.md',
      'out/renderer/index.html',
    ];
    for (const file of [...expected, ...docFiles()]) expect(packed.files).toContain(file);
    // Nothing but the built package, README, LICENSE and the pages of docs/ the README links to (no
    // tests, benchmarks, CI, sources, screenshots or Electron's main process)...
    const shipped = (f: string) => ['package.json', 'README.md', 'LICENSE', 'docs/http-api.openapi.json'].includes(f) || /^docs\/[a-z-]+\.md$/.test(f) || f.startsWith('dist/') || f.startsWith('out/renderer/');
    const stray = packed.files.filter((f) => !shipped(f));
    expect(stray).toEqual([]);
    // ...and of it, no TypeScript source (declarations only) and no source maps.
    expect(packed.files.filter((f) => /\.(ts|tsx|mts|cts)$/.test(f) && !/\.d\.c?ts$/.test(f))).toEqual([]);
    expect(packed.files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // The licences of what the bundles carry (MIT asks that copies keep them): the relay's, the page's.
    const licences = fs.readFileSync(path.join(installed, 'dist/THIRD-PARTY-LICENSES.md'), 'utf8');
    for (const name of ['undici', 'ws', 'zod', 'ajv', 'ajv-formats']) expect(licences).toMatch(new RegExp(`^## ${name} \\d+\\.\\d+\\.\\d+ \\(MIT\\)$`, 'm'));
    const pageLicences = fs.readFileSync(path.join(installed, 'out/renderer/THIRD-PARTY-LICENSES.md'), 'utf8');
    for (const name of ['react', 'react-dom', 'zustand', 'zod']) expect(pageLicences).toMatch(new RegExp(`^## ${name} - \\d+\\.\\d+\\.\\d+ \\(MIT\\)$`, 'm'));
    // Targets: the tarball unpacked under 5 MB; the project with Sluice installed under 30 MB.
    expect(packed.unpackedSize).toBeLessThan(5 * 2 ** 20);
    expect(treeBytes(project)).toBeLessThan(30 * 2 ** 20);
    console.log(`[packaging] tarball ${(packed.size / 1024).toFixed(0)} KB, unpacked ${(packed.unpackedSize / 2 ** 20).toFixed(2)} MB; installed project ${(treeBytes(project) / 2 ** 20).toFixed(2)} MB`);
  });

  it('is the size the README and docs/ say: each quoted size within 5 % of npm pack\'s and the install\'s', () => {
    const actual = { tarball: packed.size, unpacked: packed.unpackedSize, 'installed project': treeBytes(project) };
    const quoted = quotedSizes();
    expect(new Set(quoted.map((q) => q.of))).toEqual(new Set(['tarball', 'unpacked', 'installed project']));
    const off = quoted
      .filter((q) => Math.abs(q.bytes - actual[q.of]) > 0.05 * actual[q.of])
      .map((q) => `${q.where}: "${q.quoted}", but the ${q.of} is ${(actual[q.of] / 1e3).toFixed(0)} KB (npm's KB: 1,000 bytes)`);
    expect(off).toEqual([]);
  });

  it('is publishable: not private, no dependency to install, a bin with a shebang, exports with types for import and require', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.private).toBeUndefined();
    expect(manifest.dependencies).toBeUndefined();
    // sluice/playwright's Playwright is the project's own: a peer dependency npm does not install.
    expect({ peer: manifest.peerDependencies, meta: manifest.peerDependenciesMeta }).toEqual({ peer: { '@playwright/test': '>=1.40' }, meta: { '@playwright/test': { optional: true } } });
    expect(fs.existsSync(path.join(project, 'node_modules/@playwright'))).toBe(false);
    expect(manifest.bin).toEqual({ sluice: 'dist/cli.js' });
    expect(manifest.exports).toEqual({
      './package.json': './package.json',
      './http-api.openapi.json': './docs/http-api.openapi.json',
      './testing': { types: './dist/testing.d.ts', default: './dist/testing.js' },
      './matchers': { types: './dist/matchers.d.ts', default: './dist/matchers.js' },
      './matchers/vitest': { types: './dist/matchers-vitest.d.ts', default: './dist/matchers.js' },
      './matchers/jest': { types: './dist/matchers-jest.d.ts', default: './dist/matchers.js' },
      './playwright': { types: './dist/playwright.d.ts', default: './dist/playwright.js' },
      './client': {
        import: { types: './dist/client/index.d.ts', default: './dist/client/index.js' },
        require: { types: './dist/client/index.d.cts', default: './dist/client/index.cjs' },
      },
    });
    expect(fs.readFileSync(path.join(installed, 'dist/cli.js'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0);
    // The worker threads' code never loads the command's entry (whose top level runs the command).
    const closure = new Set<string>();
    const visit = (file: string) => {
      if (closure.has(file)) return;
      closure.add(file);
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:^import\b[^;]*?\bfrom\s*|\bimport\s*\(\s*)"(\.{1,2}\/[^"]+)"/gm)) visit(path.resolve(path.dirname(file), m[1]!));
    };
    for (const worker of ['writer-worker.js', 'checkpointer-worker.js', 'store-check-worker.js']) visit(path.join(installed, 'dist', worker));
    expect([...closure].some((f) => f.includes(`${path.sep}chunks${path.sep}`))).toBe(true); // the probe follows imports
    expect([...closure].filter((f) => f.endsWith(`${path.sep}cli.js`))).toEqual([]);
    // Only what the package exports can be imported.
    const deep = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('sluice/dist/cli.js')"], { cwd: project, encoding: 'utf8' });
    expect(deep.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('sluice/matchers imports no test runner (the user\'s), nor the relay\'s store: only its own files and Node\'s modules', () => {
    const files = new Set<string>();
    const imported = new Set<string>();
    const visit = (file: string) => {
      if (files.has(file)) return;
      files.add(file);
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:^import\b[^;]*?\bfrom\s*|^import\s*|\bimport\s*\(\s*)"([^"]+)"/gm)) {
        if (m[1]!.startsWith('.')) visit(path.resolve(path.dirname(file), m[1]!));
        else imported.add(m[1]!);
      }
    };
    visit(path.join(installed, 'dist/matchers.js'));
    expect(files.size).toBeGreaterThan(1); // the probe follows imports
    expect([...imported].filter((name) => !name.startsWith('node:'))).toEqual([]);
    expect([...imported]).not.toContain('node:sqlite');
    const loaded = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('sluice/matchers'); console.log(Object.keys(m.sluiceMatchers).join(','))"], { cwd: project, encoding: 'utf8' });
    expect(loaded.stdout.trim()).toBe('toHaveReceived,toHaveReceivedInOrder,toHaveDelivered,toHaveNoViolations,toCoverPlan');
  });

  it('answers --version and --help from the installed bin', () => {
    const env = { ...process.env, PATH: pathWith(process.execPath) };
    const version = spawnSync(bin, ['--version'], { cwd: project, env, encoding: 'utf8' });
    expect({ status: version.status, stdout: version.stdout }).toEqual({ status: 0, stdout: `${pkg.version}\n` });
    const help = spawnSync(bin, ['serve', '--help'], { cwd: project, env, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: sluice serve [options]');
    expect(help.stdout).toContain('--receiver-port N');
  });

  it('checks an NDJSON file against a tracking plan with the installed bin (sluice check)', () => {
    const env = { ...process.env, PATH: pathWith(process.execPath) };
    const folder = path.join(work, 'check');
    fs.mkdirSync(folder);
    fs.writeFileSync(
      path.join(folder, 'plan.json'),
      JSON.stringify({ events: { 'Order Completed': { type: 'object', properties: { price: { type: 'number' } }, required: ['price'] } } }),
    );
    const message = (price: unknown) => JSON.stringify({ type: 'track', event: 'Order Completed', userId: 'u', messageId: 'm1', properties: { price } });
    fs.writeFileSync(path.join(folder, 'bad.ndjson'), `${message(12)}\n${message('12')}\n`);
    fs.writeFileSync(path.join(folder, 'good.ndjson'), `${message(12)}\n`);
    const bad = spawnSync(bin, ['check', '--plan', 'plan.json', 'bad.ndjson'], { cwd: folder, env, encoding: 'utf8' });
    expect({ status: bad.status, stderr: bad.stderr }).toEqual({ status: 1, stderr: '' });
    expect(bad.stdout.trimEnd().split('\n')).toEqual([
      'bad.ndjson:2  track "Order Completed" (m1)  Datatype-Mismatch at /properties/price: properties.price must be a number; got the string "12"',
      'checked 2 messages against "plan.json" (sluice format): 1 with violations (1 violation), 0 unreadable lines',
    ]);
    const good = spawnSync(bin, ['check', '--plan', 'plan.json', 'good.ndjson'], { cwd: folder, env, encoding: 'utf8' });
    expect({ status: good.status, stdout: good.stdout, stderr: good.stderr }).toEqual({
      status: 0,
      stdout: 'checked 1 message against "plan.json" (sluice format): 0 with violations (0 violations), 0 unreadable lines\n',
      stderr: '',
    });
  });
});

describe('from the installed package', () => {
  let receiver: Receiver;
  let relay: Relay;
  const secret = 'packaging-secret';
  const writeKey = 'wk_packaging';

  beforeAll(async () => {
    receiver = await startReceiver();
    const config = path.join(work, 'sluice.json');
    fs.writeFileSync(
      config,
      JSON.stringify({
        sources: [{ name: 'app', writeKey, kind: 'server' }],
        destinations: [{ name: 'hooks', sources: ['app'], sharedSecret: secret, webhooks: [{ url: `${receiver.url}/hook` }] }],
      }),
    );
    relay = await startRelay(bin, [...servePorts(path.join(work, 'data')), '--config', config], {
      cwd: project,
      env: { ...process.env, PATH: pathWith(process.execPath) },
    });
  }, 60_000);

  afterAll(async () => {
    expect(await relay?.stop()).toBe(0);
    expect(relay?.stderr()).toBe(''); // no worker or checkpointer trouble, nothing at all with --json
    await receiver?.close();
  });

  /** The bodies the receiver got for `event`, once `count` have arrived. */
  async function delivered(event: string, count: number): Promise<Record<string, unknown>[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const bodies = receiver.received.map((r) => JSON.parse(r.body) as Record<string, unknown>).filter((b) => b.event === event);
      if (bodies.length >= count) return bodies;
      if (Date.now() > deadline) throw new Error(`${bodies.length} of ${count} "${event}" deliveries arrived`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('(a) the installed bin stores a tracked event and delivers it signed to the webhook', async () => {
    const response = await fetch(`${relay.ready.ingest}/v1/track`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}` },
      body: JSON.stringify({ userId: 'u_pack', event: 'Installed', properties: { from: 'tarball' } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true });
    await delivered('Installed', 1);
    const request = receiver.received.find((r) => r.body.includes('"Installed"'))!;
    expect(request.path).toBe('/hook');
    expect(request.headers['user-agent']).toBe('Sluice/1.0');
    expect(request.headers['x-signature']).toBe(createHmac('sha1', secret).update(request.body, 'utf8').digest('hex'));
    expect(JSON.parse(request.body)).toMatchObject({ version: 1, type: 'track', userId: 'u_pack', event: 'Installed', properties: { from: 'tarball' } });
  });

  it('serves the built inspector page (never the "not built" page) and its assets', async () => {
    const page = await fetch(relay.ready.ui);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/not built/i);
    const script = /<script[^>]*src="\.\/([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(new URL(script!, relay.ready.ui));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  /** An ES module and a CommonJS script of the consumer project that send through `sluice/client`. */
  function writeClientScripts(): { esm: string; cjs: string } {
    const body = (label: string) => `
      const client = new Client(process.env.WRITE_KEY, {
        endpoint: process.env.ENDPOINT,
        flushAt: 2,
        onError: (error) => { console.error(error.code, error.message); process.exitCode = 1; },
      });
      client.identify({ userId: 'u_${label}', traits: { via: '${label}' } });
      client.track({ userId: 'u_${label}', event: 'From ${label}', properties: { node: process.versions.node } });
      client.page({ anonymousId: 'a_${label}', name: 'Home', traits: { path: '/' } });`;
    const esm = path.join(project, 'send.mjs');
    fs.writeFileSync(
      esm,
      `import { Client, LIBRARY } from 'sluice/client';${body('ESM')}
      await client.close();
      console.log(JSON.stringify({ sent: client.state.sent, library: LIBRARY }));\n`,
    );
    const cjs = path.join(project, 'send.cjs');
    fs.writeFileSync(
      cjs,
      `const { Client, LIBRARY } = require('sluice/client');
      (async () => {${body('CJS')}
        await client.close();
        console.log(JSON.stringify({ sent: client.state.sent, library: LIBRARY }));
      })();\n`,
    );
    return { esm, cjs };
  }

  /**
   * Both scripts on `node`, which must deliver every message. `withoutGetBuiltinModule`: as on Node
   * 20.0–20.15, which lack `process.getBuiltinModule` (the client then takes `require`, and its
   * CommonJS build the shim of `import.meta.url`).
   */
  async function clientSends(node: string, version: string, withoutGetBuiltinModule = false): Promise<void> {
    const scripts = writeClientScripts();
    const preload = path.join(project, 'no-get-builtin-module.cjs');
    fs.writeFileSync(preload, 'delete process.getBuiltinModule;\n');
    const env = {
      WRITE_KEY: writeKey,
      ENDPOINT: relay.ready.ingest,
      ...(withoutGetBuiltinModule ? { NODE_OPTIONS: `--require ${preload}` } : {}),
    };
    for (const [label, file] of [['ESM', scripts.esm], ['CJS', scripts.cjs]] as const) {
      const before = (await delivered(`From ${label}`, 0)).length;
      const run = runNode(node, file, env);
      expect({ label, status: run.status, stderr: run.stderr }).toEqual({ label, status: 0, stderr: '' });
      expect(JSON.parse(run.stdout)).toEqual({ sent: 3, library: { name: 'sluice-client', version: pkg.version } });
      const bodies = await delivered(`From ${label}`, before + 1);
      expect(bodies.at(-1)).toMatchObject({ type: 'track', userId: `u_${label}`, properties: { node: version } });
    }
  }

  it('(e) sluice/testing starts a relay in the process, waits for a message, and removes its folder on close — import and require', () => {
    const script = `import { startSluice, SluiceTimeoutError } from 'sluice/testing';
import fs from 'node:fs';
// A tracking plan too: the writer thread loads the bundled plan checker (ajv) when the first plan arrives.
const plan = { events: { Packaged: { type: 'object', properties: { n: { type: 'string' } } } } };
const sluice = await startSluice({ config: { sources: [{ name: 'web', writeKey: 'wk_pkg' }], trackingPlans: [{ name: 'pkg', plan }] } });
const res = await fetch(sluice.ingestUrl + '/v1/track', { method: 'POST', headers: { authorization: 'Basic ' + Buffer.from('wk_pkg:').toString('base64'), 'content-type': 'application/json' }, body: JSON.stringify({ userId: 'u', event: 'Packaged', properties: { n: 1 } }) });
const [message] = await sluice.waitForMessages({ event: 'Packaged', properties: { n: 1 } });
const timeout = await sluice.waitForMessages({ event: 'Never' }, { timeoutMs: 50 }).catch((e) => e instanceof SluiceTimeoutError);
await sluice.close();
console.log(JSON.stringify({ status: res.status, writeKey: sluice.writeKey, event: message.event, source: message.source, violations: message.violations.map((v) => v.type + ' ' + v.path), timeout, removed: !fs.existsSync(sluice.dataDir) }));
`;
    fs.writeFileSync(path.join(project, 'testing.mjs'), script);
    const run = spawnSync(process.execPath, ['testing.mjs'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ status: 200, writeKey: 'wk_pkg', event: 'Packaged', source: 'web', violations: ['Datatype-Mismatch /properties/n'], timeout: true, removed: true });
    // CommonJS: require() of the ES module, as Node ≥ 22.12 allows (the relay needs 22.19).
    const required = spawnSync(process.execPath, ['-e', "const t = require('sluice/testing'); console.log(typeof t.startSluice, typeof t.SluiceTimeoutError)"], { cwd: project, encoding: 'utf8' });
    expect({ stdout: required.stdout.trim(), stderr: required.stderr }).toEqual({ stdout: 'function function', stderr: '' });
  });

  it('(b) sluice/client sends from an ES module and from CommonJS on this Node', async () => {
    await clientSends(process.execPath, process.versions.node);
  });

  it.skipIf('reason' in node20)('(d) sluice/client sends from an ES module and from CommonJS on Node 20', async () => {
    if ('reason' in node20) return;
    await clientSends(node20.binary, node20.version);
  });

  it('sluice/client sends without process.getBuiltinModule, as on Node 20.0–20.15', async () => {
    const node = 'binary' in node20 ? node20 : { binary: process.execPath, version: process.versions.node };
    await clientSends(node.binary, node.version, true);
  });

  it.skipIf(!nodeMin)('runs the relay on its oldest Node.js (SLUICE_NODE_MIN): stores, delivers once, records the attempt', async () => {
    expect(nodeVersion(nodeMin!)).toBe(RELAY_NODE);
    const oldest = await startRelay(bin, [...servePorts(path.join(work, 'data-min')), '--config', path.join(work, 'sluice.json')], {
      cwd: project,
      env: { ...process.env, PATH: pathWith(nodeMin!) },
    });
    try {
      const response = await fetch(`${oldest.ready.ingest}/v1/track`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}` },
        body: JSON.stringify({ userId: 'u_min', event: 'On the oldest Node' }),
      });
      expect(response.status).toBe(200);
      const [body] = await delivered('On the oldest Node', 1);
      expect(body).toMatchObject({ type: 'track', userId: 'u_min' });
      // Recorded as delivered: not sent again a round later (a result the store could not record would be).
      await new Promise((r) => setTimeout(r, 2500));
      expect(await delivered('On the oldest Node', 1)).toHaveLength(1);
    } finally {
      expect(await oldest.stop()).toBe(0);
    }
    expect(oldest.stderr()).toBe('');
  });
});

describe.skipIf('reason' in node20)('(d) the relay on Node 20', () => {
  it('refuses in one sentence naming the Node found, the Node needed and how to get it — installed bin and npx alike', () => {
    if ('reason' in node20) return;
    const env = { ...process.env, PATH: pathWith(node20.binary) };
    for (const command of [[bin, ['serve']], [node20.binary, [path.join(installed, 'dist/cli.js'), 'serve', '--json']]] as const) {
      const run = spawnSync(command[0], command[1], { cwd: project, env, encoding: 'utf8', timeout: 30_000 });
      expect(run.status).toBe(1);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^sluice: the relay needs Node\.js 22\.19\.0 or newer \(it stores messages with node:sqlite\), but this is Node\.js 20\.\d+\.\d+: install Node\.js 24 LTS/);
      expect(lines[0]).toContain(`this is Node.js ${node20.version}`);
    }
    // What needs no relay still works there.
    const version = spawnSync(bin, ['--version'], { cwd: project, env, encoding: 'utf8' });
    expect({ status: version.status, stdout: version.stdout }).toEqual({ status: 0, stdout: `${pkg.version}\n` });
  });

  it('refuses the same way in a checkout: npm start and npm run serve check the Node first', () => {
    if ('reason' in node20) return;
    const scripts = (JSON.parse(fs.readFileSync(path.join(checkoutRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['start', 'serve']) expect(scripts[name]).toMatch(/^node electron\/host\/node-check\.js && /);
    const run = spawnSync(node20.binary, [path.join(checkoutRoot, 'electron/host/node-check.js')], { cwd: checkoutRoot, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^sluice: the relay needs Node\.js 22\.19\.0 or newer .*this is Node\.js 20\./)]);
  });
});

describe('TypeScript against the shipped types', () => {
  const tsc = path.join(checkoutRoot, 'node_modules/typescript/bin/tsc');
  const modes = [
    ['nodenext', ['--module', 'nodenext', '--moduleResolution', 'nodenext']],
    ['bundler', ['--module', 'preserve', '--moduleResolution', 'bundler']],
  ] as const;

  function typecheck(files: string[], flags: readonly string[]) {
    return spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--skipLibCheck', 'false', ...flags, ...files], {
      cwd: project,
      encoding: 'utf8',
      timeout: 60_000,
    });
  }

  beforeAll(() => {
    fs.writeFileSync(
      path.join(project, 'typed.mts'),
      `import { Client, ClientError, type ClientOptions, type ClientState, type TrackParams } from 'sluice/client';
const options: ClientOptions = { endpoint: 'http://127.0.0.1:8787', flushAt: 10, onError: (error: ClientError) => void error.code };
const client = new Client('wk_typed', options);
const event: TrackParams = { userId: 'u_1', event: 'Order Completed', properties: { revenue: 42 } };
const queued: boolean = client.track(event);
client.identify({ anonymousId: 'a_1', traits: { plan: 'pro' } });
client.group({ userId: 42, groupId: 'acme' });
// @ts-expect-error an event name must be a string
client.track({ userId: 'u_1', event: 42 });
// @ts-expect-error a message names its user
client.track({ event: 'Anonymous' });
const state: ClientState = client.state;
const sent: number = state.sent;
await client.close({ timeoutMs: 1000 });
export { queued, sent };
`,
    );
    fs.writeFileSync(
      path.join(project, 'typed.cts'),
      `import sluice = require('sluice/client');
const client = new sluice.Client('wk_typed');
const queued: boolean = client.page({ userId: 'u_1', name: 'Home', traits: { path: '/' } });
// @ts-expect-error previousId is required
client.alias({ userId: 'u_1' });
export = queued;
`,
    );
    fs.writeFileSync(path.join(project, 'wrong.mts'), `import { Client } from 'sluice/client';\nnew Client('wk').track({ userId: 'u_1', event: 42 });\n`);
    fs.writeFileSync(
      path.join(project, 'typed-testing.mts'),
      `import { startSluice, SluiceTimeoutError, SluiceRequestError, type MessageFilter, type TestMessage, type TestDelivery, type FaultView, type FaultsView } from 'sluice/testing';
const sluice = await startSluice({ config: { sources: [{ name: 'web', writeKey: 'wk' }] } });
const filter: MessageFilter = { event: 'Order Completed', properties: { total: 42 }, status: 'accepted' };
const found: TestMessage[] = await sluice.waitForMessages(filter, { count: 2, timeoutMs: 1000 });
const source: string = found[0]!.source;
const delivered: TestDelivery[] = await sluice.waitForDeliveries({ destination: 'hooks' }, { status: 'delivered' });
// @ts-expect-error not a filter field
await sluice.messages({ evnt: 'Typo' });
// @ts-expect-error a message status is accepted, rejected or duplicate
await sluice.messages({ status: 'ok' });
const isTimeout = (error: unknown) => error instanceof SluiceTimeoutError && error.code === 'timeout';
const fault: FaultView = await sluice.faults.ingest({ status: 503, times: 2, retryAfter: 1 });
await sluice.faults.ingest({ drop: true, path: '/v1/batch' });
// @ts-expect-error a fault answers 429, 500 or 503
await sluice.faults.ingest({ status: 404 });
const faulted: FaultsView['faulted'] = (await sluice.faults.list()).faulted;
const refused = (error: unknown) => error instanceof SluiceRequestError && error.code === 'invalid_request';
await sluice.faults.clear();
await sluice.reset();
await sluice.close();
export { source, delivered, isTimeout, fault, faulted, refused };
`,
    );
  });

  it.each(modes)('accepts right calls and rejects wrong ones (moduleResolution %s)', (name, flags) => {
    // \`import x = require()\` is CommonJS-only: the .cts file is checked where resolution knows CommonJS.
    const files = name === 'nodenext' ? ['typed.mts', 'typed.cts', 'typed-testing.mts'] : ['typed.mts', 'typed-testing.mts'];
    const run = typecheck(files, flags);
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it.each(modes)('reports a wrong call as a type error (moduleResolution %s)', (_name, flags) => {
    const run = typecheck(['wrong.mts'], flags);
    expect(run.status).not.toBe(0);
    expect(run.stdout).toMatch(/wrong\.mts\(2,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
  });

  // sluice/matchers' typings, each in a project that has only its runner: Sluice as installed (copied
  // from the consumer project: its types resolve the runner from where they are, as in a real install),
  // the runner's packages and @types/node linked from this checkout, as npm would have installed them.
  // Merged into that runner's expect, and no error for the runners the project does not have. The
  // Sluice is declared rather than started: these check sluice/matchers' types alone (sluice/testing's
  // are checked above).
  const runnerProjects = {
    vitest: { links: ['vitest'], file: `import { expect } from 'vitest';
import { sluiceMatchers } from 'sluice/matchers/vitest';
expect.extend(sluiceMatchers);
declare const sluice: { ingestUrl: string; apiUrl: string; token: string };
await expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 42 } }, { count: 1, timeoutMs: 1000 });
await expect({ apiUrl: sluice.apiUrl, token: sluice.token }).not.toHaveReceived({ event: 'Password Sent' }, { within: 500 });
await expect(sluice).toHaveReceivedInOrder([{ event: 'Cart Viewed' }, { event: 'Order Completed' }]);
await expect(sluice).toHaveDelivered({ event: 'Order Completed' }, { destination: 'orders', status: 'delivered' });
await expect(sluice).toHaveNoViolations();
// @ts-expect-error not a filter field
await expect(sluice).toHaveReceived({ evnt: 'Typo' });
// @ts-expect-error a delivery status
await expect(sluice).toHaveDelivered({}, { status: 'sent' });
` },
    jest: { links: ['jest', '@jest/globals', 'expect'], file: `import { expect } from '@jest/globals';
import { sluiceMatchers, configureSluiceMatchers } from 'sluice/matchers/jest';
expect.extend(sluiceMatchers);
configureSluiceMatchers({ timeoutMs: 5000 });
declare const sluice: { ingestUrl: string; apiUrl: string; token: string };
await expect(sluice).toHaveReceived({ event: 'Order Completed' }, { timeoutMs: 1000 });
await expect(sluice).not.toHaveReceived({ event: 'Password Sent' }, { within: 500 });
await expect(sluice).toHaveNoViolations({ event: 'Order Completed' });
// @ts-expect-error the filters are a list
await expect(sluice).toHaveReceivedInOrder({ event: 'Cart Viewed' });
` },
    playwright: { links: ['@playwright/test', 'playwright', 'playwright-core'], file: `import { expect as base } from '@playwright/test';
import { sluiceMatchers } from 'sluice/matchers';
const expect = base.extend(sluiceMatchers);
declare const sluice: { ingestUrl: string; apiUrl: string; token: string };
await expect(sluice).toHaveReceived({ event: 'Order Completed' }, { count: 2 });
await expect(sluice).not.toHaveReceived({ userId: 'u_1' }, { within: 500 });
// @ts-expect-error not a filter field
await expect(sluice).toHaveReceived({ evnt: 'Typo' });
` },
  } as const;

  it.each(Object.keys(runnerProjects) as (keyof typeof runnerProjects)[])('sluice/matchers typed on the expect of a project with only %s', (runner) => {
    const { links, file } = runnerProjects[runner];
    const dir = path.join(work, `only-${runner}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), '{ "name": "only", "private": true, "type": "module" }\n');
    fs.cpSync(installed, path.join(dir, 'node_modules', 'sluice'), { recursive: true });
    for (const name of [...links, '@types/node']) {
      fs.mkdirSync(path.dirname(path.join(dir, 'node_modules', name)), { recursive: true });
      fs.symlinkSync(path.join(checkoutRoot, 'node_modules', name), path.join(dir, 'node_modules', name), 'dir');
    }
    fs.writeFileSync(path.join(dir, 'matchers.mts'), file);
    const flags = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', 'false', '--types', 'node'];
    const run = spawnSync(process.execPath, [tsc, ...flags, 'matchers.mts'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});

describe('npx --package <tarball> sluice serve, in an empty folder', () => {
  it('starts the relay with the built inspector', async () => {
    const folder = tempDir('sluice-npx-');
    const cache = path.join(work, 'npm-cache');
    const relay = await startRelay(
      npm(),
      ['exec', '--yes', '--offline', '--cache', cache, '--package', packed.tarball, '--', 'sluice', ...servePorts(path.join(folder, 'data'))],
      { cwd: folder, env: { ...process.env, PATH: pathWith(process.execPath) } },
    );
    try {
      expect(fs.readdirSync(folder)).toEqual(['data']); // npx installed nothing into the folder
      const html = await (await fetch(relay.ready.ui)).text();
      expect(html).toMatch(/<script[^>]*src="\.\/assets\//);
      expect(html).not.toMatch(/not built/i);
    } finally {
      await relay.stop();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe.skipIf(browserUnavailableReason() !== null)('sluice/playwright from the installed package, with the project\'s own Playwright Test', () => {
  // The project's @playwright/test and @segment/analytics-next, as `npm i -D` would put them (linked
  // from this checkout's: the registry is not reachable here).
  const linked = ['@playwright/test', '@segment/analytics-next'];
  const pw = path.join(project, 'pw');
  beforeAll(() => {
    for (const name of linked) {
      fs.mkdirSync(path.dirname(path.join(project, 'node_modules', name)), { recursive: true });
      fs.symlinkSync(path.join(checkoutRoot, 'node_modules', name), path.join(project, 'node_modules', name), 'dir');
    }
    fs.mkdirSync(pw);
    fs.writeFileSync(path.join(pw, 'playwright.config.mjs'), `export default { testDir: '.', reporter: 'line', workers: 1, use: { launchOptions: { executablePath: ${JSON.stringify(chromiumPath)}, args: ['--no-sandbox', '--disable-gpu'] } } };\n`);
    const snippet = segmentSnippet('wk_production_key');
    fs.writeFileSync(
      path.join(pw, 'shop.spec.mjs'),
      `import { test, expect } from 'sluice/playwright';
test.use({ sluiceConfig: { sources: [{ name: 'shop', writeKey: 'wk_shop', kind: 'web' }] } });
test('the production snippet reaches the worker\\'s relay', async ({ page, sluice }) => {
  await page.route('https://shop.test/', (route) => route.fulfill({ contentType: 'text/html', body: ${JSON.stringify(`<!doctype html><script>${snippet}</script>`)} }));
  await page.goto('https://shop.test/');
  const [view] = await sluice.waitForMessages({ type: 'page' }, { timeoutMs: 10_000 });
  expect({ source: view.source, library: view.context.library.name }).toEqual({ source: 'shop', library: 'analytics.js' });
});
`,
    );
    fs.writeFileSync(
      path.join(project, 'typed-playwright.mts'),
      `import { test, expect, type SluiceFixture, type InterceptOptions } from 'sluice/playwright';
import type { TestMessage } from 'sluice/testing';
test.use({ sluiceConfig: { sources: [{ name: 'web', writeKey: 'wk' }] }, sluiceIntercept: { hosts: { segmentApi: ['api.shop.example'] } } });
const network: InterceptOptions = { analyticsJs: 'network' };
test('typed', async ({ page, sluice }) => {
  const fixture: SluiceFixture = sluice;
  await fixture.intercept(page, network);
  const found: TestMessage[] = await sluice.waitForMessages({ event: 'Order Completed' });
  expect(found[0]?.source).toBe('web');
  await expect(sluice).toHaveReceived({ event: 'Order Completed', properties: { total: 42 } }, { timeoutMs: 1_000 });
  await expect(sluice).not.toHaveReceived({ event: 'Order Refunded' }, { within: 500 });
  // @ts-expect-error not a filter field
  await expect(sluice).toHaveReceived({ evnt: 'Typo' });
  // @ts-expect-error hosts are lists of host names
  await sluice.intercept(page, { hosts: { segmentApi: 'api.shop.example' } });
});
`,
    );
  });
  afterAll(() => {
    for (const name of linked) fs.rmSync(path.join(project, 'node_modules', name), { force: true });
  });

  it('runs a spec with the fixture: the snippet\'s analytics.js, settings and events answered by the worker\'s relay', () => {
    const cli = path.join(project, 'node_modules/@playwright/test/cli.js');
    const run = spawnSync(process.execPath, [cli, 'test', '-c', 'pw/playwright.config.mjs'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout + run.stderr).toMatch(/1 passed/);
    expect(run.status).toBe(0);
  });

  it('types the fixture, its options and its expect\'s matchers', () => {
    const tsc = path.join(checkoutRoot, 'node_modules/typescript/bin/tsc');
    const run = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--skipLibCheck', '--module', 'nodenext', '--moduleResolution', 'nodenext', 'typed-playwright.mts'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout + run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
