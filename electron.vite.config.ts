// `npm run build` (electron-vite build): the desktop app in out/ —
//   out/main/index.js      the Electron main process (ES module; the packaged app's "main", set by
//                          build/electron-builder.yml's extraMetadata), plus one
//                          entry per worker thread (out/main/ingest-worker.js, checkpointer-worker.js)
//   out/preload/index.cjs  the preload, CommonJS and self-contained: a sandboxed preload can be
//                          neither an ES module nor require anything but `electron`
//   out/renderer/          the inspector, built by renderer/vite.config.ts: the same files the
//                          headless host serves (`npm run build:renderer` builds only these)
import path from 'node:path';
import { defineConfig } from 'electron-vite';
import renderer from './renderer/vite.config.ts';
import { workerEntries } from './build/worker-entries.ts';

const root = import.meta.dirname;
/** Where the app is built; tests build a copy of their own elsewhere in the checkout (node_modules must be reachable from it). */
const out = path.resolve(root, process.env.SLUICE_BUILD_OUT ?? 'out');

export default defineConfig({
  main: {
    plugins: [workerEntries()],
    build: {
      outDir: path.join(out, 'main'),
      // Externalizes package.json's "dependencies", of which there are none: undici, ws and zod are
      // devDependencies, bundled here as in the npm package, so app.asar holds no node_modules.
      externalizeDeps: true,
      rolldownOptions: {
        input: { index: path.resolve(root, 'electron/main/index.ts') },
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: path.join(out, 'preload'),
      // Sandboxed: everything it uses (the contract's channel list, hence zod) is bundled in.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: path.resolve(root, 'electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    ...renderer,
    // electron-vite bundles this file and what it imports into the checkout's root before loading it,
    // so the renderer config's own import.meta.dirname is not renderer/ here: paths are set again.
    root: path.resolve(root, 'renderer'),
    build: {
      ...renderer.build,
      outDir: path.join(out, 'renderer'),
      rolldownOptions: { input: path.resolve(root, 'renderer/index.html') },
      // electron-vite turns minification off by default; keep what `vite build` (the headless host's build) does.
      minify: true,
    },
  },
});
