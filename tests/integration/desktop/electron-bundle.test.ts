// The desktop app's bundle (electron-vite build): built into a directory of its own, then its main
// process is run in plain Node with a stand-in for the `electron` module (no Electron binary here).
// It must open the core — whose worker threads are separate bundle entries — register the contract
// over IPC, serve the built renderer to its window over app:// with a CommonJS preload, store a
// message POSTed to it, and quit.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSPECTOR_CSP } from '../../../shared/csp.ts';
import { tempDir } from '../../helpers/temp-dirs.ts';

const root = path.resolve(import.meta.dirname, '../../..');
// Inside the checkout (as the real build is); deeper than out/, so that a path the sources take relative to themselves (which holds from sources
// but not in the bundle) finds nothing here either.
const outDir = path.join(root, 'test-results', 'electron-bundle', String(process.pid));
// Builds as from a shell: vitest sets NODE_ENV=test, which makes Vite build something else.
const { NODE_ENV: _testEnv, ...shellEnv } = process.env;

beforeAll(() => {
  fs.rmSync(outDir, { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: root,
    env: { ...shellEnv, SLUICE_BUILD_OUT: outDir },
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 120_000,
  });
}, 180_000);

afterAll(() => {
  fs.rmSync(outDir, { recursive: true, force: true });
  try {
    fs.rmdirSync(path.dirname(outDir)); // only when no other run's copy is left in it
  } catch {
    // another run's copy is
  }
});

const read = (file: string) => fs.readFileSync(path.join(outDir, file), 'utf8');

describe('electron-vite build', () => {
  it('writes the main process as an ES module, each worker thread as its own entry, and points the core at them', () => {
    const main = read('main/index.js');
    expect(main).toMatch(/^import .* from "electron";$/m);
    for (const worker of ['writer-worker', 'checkpointer-worker', 'store-check-worker']) {
      expect(fs.existsSync(path.join(outDir, 'main', `${worker}.js`))).toBe(true);
      // The core's `new URL('./<worker>.ts', import.meta.url)`, rewritten relative to the chunk it ended up in.
      const chunk = [path.join(outDir, 'main/index.js'), ...fs.readdirSync(path.join(outDir, 'main/chunks')).map((f) => path.join(outDir, 'main/chunks', f))].find(
        (file) => fs.readFileSync(file, 'utf8').includes(`${worker}.js", import.meta.url`),
      );
      expect(chunk, `${worker}: no chunk starts it`).toBeDefined();
      const specifier = /new URL\("([^"]+)", import\.meta\.url\)/.exec(
        fs.readFileSync(chunk!, 'utf8').split('\n').find((line) => line.includes(`${worker}.js"`))!,
      )![1]!;
      expect(fs.existsSync(path.resolve(path.dirname(chunk!), specifier))).toBe(true);
    }
    expect(main).not.toMatch(/-worker\.ts["'],\s*import\.meta\.url/);
  });

  it('bundles every package the main process uses: it imports only electron and Node’s own modules', () => {
    const dir = path.join(outDir, 'main');
    const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.js'));
    const specifiers = new Set(
      files.flatMap((f) =>
        // Not a require() that opens a template literal: ajv keeps `require("ajv/dist/runtime/…")` as text
        // for the code it writes in its standalone mode (unused here); the modules themselves are bundled.
        [...fs.readFileSync(path.join(dir, f), 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|(?<!`)\b(?:__)?require\s*\(\s*)"([^".\s][^"\s]*)"/g)].map((m) => m[1]!),
      ),
    );
    expect(specifiers).toContain('electron'); // the probe reads the imports (so an empty set cannot pass)
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    expect([...specifiers].filter((s) => s !== 'electron' && !builtins.has(s))).toEqual([]);
  });

  it('writes a self-contained CommonJS preload: it requires electron and nothing else', () => {
    const preload = read('preload/index.cjs');
    const required = [...preload.matchAll(/\brequire\(\s*"([^"]+)"\s*\)/g)].map((m) => m[1]);
    expect(required).toEqual(['electron']);
    expect(preload).not.toMatch(/^\s*(import|export)\s/m);
    expect(fs.existsSync(path.join(outDir, 'preload/index.mjs'))).toBe(false);
  });

  it('builds the same renderer the headless host serves (`npm run build:renderer`), file for file', () => {
    const headless = path.join(outDir, 'headless-renderer');
    execFileSync(process.execPath, [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'renderer/vite.config.ts', '--outDir', headless, '--logLevel', 'error'], {
      cwd: root,
      env: shellEnv,
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 120_000,
    });
    const tree = (dir: string) =>
      (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
    const files = tree(path.join(outDir, 'renderer'));
    expect(files).toEqual(tree(headless));
    for (const file of files) expect(read(`renderer/${file}`), file).toBe(fs.readFileSync(path.join(headless, file), 'utf8'));
  }, 120_000);

  it('builds the renderer with relative asset URLs and no inline scripts (the window loads it from app:// under a strict CSP)', () => {
    const html = read('renderer/index.html');
    const scripts = [...html.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(src.startsWith('./')).toBe(true);
      expect(fs.existsSync(path.join(outDir, 'renderer', src))).toBe(true);
    }
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    // The CSP travels in the page too (belt and braces: the app:// handler sends it as a header), before any script.
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html);
    expect(meta?.[1]?.replaceAll('&#39;', "'")).toBe(INSPECTOR_CSP);
    expect(html.indexOf('Content-Security-Policy')).toBeLessThan(html.indexOf('<script'));
  });

  /** Runs the bundled main process in Node with the stand-in electron module; its JSON report. */
  function runMain(args: string[], userData: string, env: NodeJS.ProcessEnv = {}) {
    const run = spawnSync(process.execPath, ['--import', path.join(root, 'tests/helpers/fake-electron-hooks.ts'), path.join(outDir, 'main/index.js'), ...args], {
      cwd: root,
      env: { ...process.env, SLUICE_FAKE_USER_DATA: userData, ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const line = run.stdout.trim().split('\n').at(-1) ?? '';
    expect(line, `stderr: ${run.stderr}`).toMatch(/^\{/);
    return { run, report: JSON.parse(line) };
  }

  it("takes sluice serve's flags among Electron's own: a config file, ports and a data folder", () => {
    const dir = tempDir('sluice-bundle-flags-');
    const config = path.join(dir, 'sluice.json');
    fs.writeFileSync(config, JSON.stringify({ sources: [{ name: 'from-config', writeKey: 'wk_from_config', kind: 'server' }], destinations: [] }));
    const dataDir = path.join(dir, 'data');
    const { run, report } = runMain(['--no-sandbox', '--config', config, '--ingest-port', '0', '--receiver-port', '0', '--data-dir', dataDir, '--new-token'], path.join(dir, 'unused'));
    expect(report.error).toBeUndefined();
    expect(report.errorBox).toBeUndefined();
    expect(report.appName).toBeUndefined(); // packaged: electron-builder named it
    expect(report.sources).toContain('from-config');
    expect(report.dataDir).toBe(dataDir);
    expect(report.ingestUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(report.ingestUrl).not.toBe('http://127.0.0.1:8787'); // port 0: a free one
    expect(report.stored).toEqual({ event: 'Bundle Smoke', userId: 'u_bundle' });
    // --new-token replaced the folder's inspector token (sluice serve's links), owner-only.
    const tokenFile = path.join(dataDir, 'inspector-token');
    expect(fs.readFileSync(tokenFile, 'utf8')).toMatch(/^[A-Za-z0-9_-]{32}\n$/);
    expect(fs.statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(run.status).toBe(0);
  });

  it("run from a checkout (unpackaged), stores where sluice serve does and reads its first flag", () => {
    const dir = tempDir('sluice-bundle-dev-');
    const { run, report } = runMain(['--ingest-port', '0', '--receiver-port', '0'], path.join(dir, 'unused'), {
      SLUICE_FAKE_UNPACKAGED: '1',
      XDG_DATA_HOME: dir,
    });
    expect(report.error).toBeUndefined();
    expect(report.dataDir).toBe(path.join(dir, 'sluice'));
    // Given the main file, not an app folder (electron/start.ts), Electron would call the app "Electron".
    expect(report.appName).toBe('Sluice');
    expect(report.ingestUrl).not.toBe('http://127.0.0.1:8787');
    expect(report.stored).toEqual({ event: 'Bundle Smoke', userId: 'u_bundle' });
    expect(run.status).toBe(0);
  });

  it('says what is wrong with an invalid config file in an error box, and exits 1', () => {
    const dir = tempDir('sluice-bundle-bad-');
    const config = path.join(dir, 'sluice.json');
    fs.writeFileSync(config, JSON.stringify({ sources: [{ name: 'x', writeKey: 'wk_x', kind: 'toaster' }] }));
    const { run, report } = runMain(['--config', config, '--ingest-port', '0', '--receiver-port', '0'], dir);
    expect(report.errorBox).toMatchObject({ title: 'Sluice could not start' });
    expect(report.errorBox.content).toContain('Invalid config');
    expect(report.errorBox.content).toContain('kind');
    expect(report.windows).toEqual([]);
    expect(run.status).toBe(1);
  });

  it('runs: the main process opens the core, serves the contract over IPC to its own page only, stores a message, and quits', () => {
    const userData = tempDir('sluice-bundle-');
    const { run, report } = runMain([], userData);
    expect(report.error).toBeUndefined();
    expect(report.windows).toEqual([
      expect.objectContaining({
        webPreferences: expect.objectContaining({ contextIsolation: true, sandbox: true, nodeIntegration: false, preload: path.join(outDir, 'preload/index.cjs') }),
        preloadExists: true,
        preloadIsCommonJs: true,
      }),
    ]);
    // The page comes from app://sluice, registered as a privileged standard scheme before the app is ready.
    expect(report.loadedFile).toBeUndefined();
    expect(report.loadedUrl).toBe('app://sluice/index.html');
    expect(report.privilegedSchemes).toEqual([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
    expect(report.privilegedBeforeReady).toBe(true);
    expect(report.page).toEqual({ status: 200, type: 'text/html; charset=utf-8', csp: `${INSPECTOR_CSP}; frame-ancestors 'none'` });
    // Every script and stylesheet the page names resolves, relative to app://sluice/, to a file served with its type.
    const types = (report.assets as { url: string; status: number; type: string }[]).map((a) => [a.url.replace(/-[\w-]+\./, '-HASH.'), a.status, a.type]);
    expect(types).toEqual(
      expect.arrayContaining([
        ['app://sluice/assets/index-HASH.js', 200, 'text/javascript; charset=utf-8'],
        ['app://sluice/assets/index-HASH.css', 200, 'text/css; charset=utf-8'],
      ]),
    );
    expect((report.assets as { status: number }[]).every((a) => a.status === 200), JSON.stringify(report.assets)).toBe(true);
    expect(report.outside).toBe(403);
    // Links: only the plain https one goes to the browser; no window opens for any.
    expect(report.windowOpen).toEqual(['deny', 'deny', 'deny', 'deny', 'deny', 'deny']);
    expect(report.opened).toEqual(['https://segment.com/docs/']);
    expect(report.navigationPrevented).toEqual({ away: true, ownRoute: false });
    expect(report.untrusted).toMatchObject({ ok: false, error: { code: 'untrusted_sender' } });
    expect(report.untrustedFile).toMatchObject({ ok: false, error: { code: 'untrusted_sender' } });
    expect(report.info).toBe(true);
    expect(report.ingestStatus).toBe(200);
    expect(report.stored).toEqual({ event: 'Bundle Smoke', userId: 'u_bundle' });
    expect(report.eventSends).toBeGreaterThan(0);
    expect(report.exitCode).toBe(0);
    expect(run.status).toBe(0);
    // The store is where a packaged app keeps it (userData), written through the bundled worker.
    expect(fs.readdirSync(userData).some((f) => f.endsWith('.db') || f.endsWith('.sqlite'))).toBe(true);
  });
});
