// `npm run build:package` (tsdown 0.21, on rolldown): the JavaScript and type declarations the npm
// package ships, in dist/. Three builds:
//
//   relay   dist/cli.js — the `sluice` command (ES module, with its shebang) —, dist/testing.js
//           (`sluice/testing`, with its declarations; CommonJS projects load it with require(), which
//           takes an ES module on the Node versions the relay runs on) and the worker threads the
//           core starts (dist/writer-worker.js, dist/checkpointer-worker.js), sharing dist/chunks/.
//           undici, ws, zod, ajv (with ajv-formats) and the MCP SDK's server are bundled in: the package installs no dependency, so installing it
//           is one download, the relay starts without resolving hundreds of files, and a Node 20
//           project that installs Sluice for its client library sees no engine warning from undici
//           (which needs Node 22.19). Their licences go to dist/THIRD-PARTY-LICENSES.md. dist/matchers.js
//           (`sluice/matchers`, issue 27) shares the chunks too and imports no test runner.
//   playwright  dist/playwright.js (`sluice/playwright`, with its declarations): Playwright Test's
//           fixture. It imports sluice/testing and sluice/matchers as ./testing.js and ./matchers.js
//           (the same modules) and the project's own @playwright/test (an optional peer dependency,
//           never bundled). Its own Node.js check (naming sluice/playwright) is a chunk it imports first.
//   client  dist/client/index.js (ESM) and index.cjs (CommonJS), with index.d.ts and index.d.cts:
//           `sluice/client`, for Node 20 and later, importing nothing but Node's own modules.
//
// Declarations are made by TypeScript 7's native compiler (tsdown's `tsgo` mode, pointed at the binary
// the `typescript` package installs) and bundled into one file per entry and format.
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineConfig, type UserConfig } from 'tsdown';
import type { Plugin } from 'rolldown';
import { thirdPartyLicenses } from './third-party-licenses.ts';
import { workerEntries } from './worker-entries.ts';

const root = path.resolve(import.meta.dirname, '..');

/** TypeScript 7's compiler binary (the `typescript` package's platform package holds it). */
function typescriptBinary(): string {
  const require = createRequire(path.join(root, 'node_modules/typescript/package.json'));
  const platformPackage = `@typescript/typescript-${process.platform}-${process.arch}/package.json`;
  return path.join(path.dirname(require.resolve(platformPackage)), 'lib', process.platform === 'win32' ? 'tsc.exe' : 'tsc');
}

const common: UserConfig = {
  cwd: root,
  platform: 'node',
  // The relay checks the Node.js it runs on (electron/host/node-check.js) from code that must still parse
  // on an older one; the client runs on Node 20.
  target: 'node20',
  fixedExtension: false,
  tsconfig: path.join(root, 'tsconfig.json'),
  logLevel: 'warn',
};

/**
 * sluice/playwright's imports of sluice/testing (electron/testing/index.ts) and sluice/matchers
 * (electron/testing/matchers/index.ts) as the built ./testing.js and ./matchers.js beside it.
 */
function testingAsSibling(): Plugin {
  const siblings = new Map([
    [path.join(root, 'electron/testing/index'), './testing.js'],
    [path.join(root, 'electron/testing/matchers/index'), './matchers.js'],
  ]);
  return {
    name: 'sluice:testing-as-sibling',
    resolveId(source, importer) {
      if (!importer || !source.startsWith('.')) return null;
      const sibling = siblings.get(path.resolve(path.dirname(importer), source).replace(/(\.d)?\.(ts|js)$/, ''));
      return sibling ? { id: sibling, external: true } : null;
    },
  };
}

export default defineConfig([
  {
    ...common,
    name: 'relay',
    entry: { cli: 'electron/cli.ts', testing: 'electron/testing/index.ts', matchers: 'electron/testing/matchers/index.ts' },
    outDir: 'dist',
    format: 'esm',
    clean: ['dist/*.js', 'dist/*.d.ts', 'dist/chunks', 'dist/THIRD-PARTY-LICENSES.md'],
    deps: {
      // ajv and its four dependencies, and ajv-formats: the tracking plans' JSON Schema checks.
      // The Model Context Protocol SDK (sluice mcp: its server and stdio transport only) and what they import.
      onlyBundle: ['undici', 'ws', 'zod', 'ajv', 'ajv-formats', 'fast-deep-equal', 'json-schema-traverse', 'fast-uri', 'require-from-string', '@modelcontextprotocol/sdk', 'zod-to-json-schema'],
      // ws's optional native speed-ups: required in a try/catch, absent here, left to the runtime.
      neverBundle: ['bufferutil', 'utf-8-validate'],
    },
    outputOptions: {
      chunkFileNames: 'chunks/[name]-[hash].js',
      // sluice/testing's Node.js check in a chunk of its own, which dist/testing.js imports first: in
      // testing.js itself it would run only after the store's chunk, which dies on an old Node.js. And
      // node-check.js apart from it, so that the command's import of node-check.js runs no such check.
      codeSplitting: {
        groups: [
          { name: 'node-check', test: /electron[\\/]host[\\/]node-check\.js$/, priority: 2 },
          { name: 'node-floor', test: /electron[\\/]testing[\\/]node-floor\.ts$/, priority: 1 },
        ],
      },
    },
    plugins: [workerEntries(), thirdPartyLicenses()],
    // sluice/matchers' typings for Vitest and Jest (build/types/): declaration merging into the runner's
    // modules, written by hand and shipped as they are, each beside dist/matchers.d.ts, which it imports.
    copy: [{ from: ['build/types/matchers-vitest.d.ts', 'build/types/matchers-jest.d.ts'], to: 'dist' }],
    // sluice/testing's and sluice/matchers' declarations (the command and the threads export nothing).
    dts: { tsgo: { path: typescriptBinary() } },
  },
  {
    ...common,
    name: 'playwright',
    entry: { playwright: 'electron/testing/playwright/index.ts' },
    outDir: 'dist',
    format: 'esm',
    clean: false,
    deps: { onlyBundle: [], neverBundle: ['@playwright/test'] },
    outputOptions: {
      chunkFileNames: 'chunks/[name]-[hash].js',
      // sluice/playwright's Node.js check (naming sluice/playwright) in a chunk of its own, which
      // dist/playwright.js imports before ./testing.js, whose check would name sluice/testing.
      codeSplitting: { groups: [{ name: 'playwright-node-floor', test: /electron[\\/](host[\\/]node-check\.js|testing[\\/]playwright[\\/]node-floor\.ts)$/ }] },
    },
    plugins: [testingAsSibling()],
    dts: { tsgo: { path: typescriptBinary() } },
  },
  {
    ...common,
    name: 'client',
    entry: { index: 'electron/client/index.ts' },
    outDir: 'dist/client',
    format: ['esm', 'cjs'],
    dts: { tsgo: { path: typescriptBinary() } },
    clean: true,
    // import.meta.url in the CommonJS build (the client's `require` before Node 20.16).
    shims: true,
    // Nothing from node_modules: the client uses Node's http and https.
    deps: { onlyBundle: [] },
  },
]);
