// The inspector's build: `vite build --config renderer/vite.config.ts` → out/renderer/ (index.html + assets),
// which the headless host serves and the Electron window loads from disk (hence relative asset URLs).
import path from 'node:path';
import { defineConfig } from 'vite';

const here = import.meta.dirname;

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: path.resolve(here, '../out/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    // The app is one small bundle; no source maps in the shipped build, no inlined assets (CSP: no data: scripts).
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
