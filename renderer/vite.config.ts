// The inspector's build: `vite build --config renderer/vite.config.ts` → out/renderer/ (index.html + assets),
// which the headless host serves and the Electron window loads from app://sluice/ (relative asset URLs serve both).
import path from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { INSPECTOR_CSP } from '../shared/csp.ts';

const here = import.meta.dirname;

/** The CSP as a <meta> tag too, whatever serves the page (the hosts send it as a header as well). */
const cspMeta: Plugin = {
  name: 'sluice-csp-meta',
  transformIndexHtml: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: INSPECTOR_CSP }, injectTo: 'head-prepend' }],
};

export default defineConfig({
  root: here,
  base: './',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  plugins: [cspMeta],
  build: {
    outDir: path.resolve(here, '../out/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    // The app is one small bundle; no source maps in the shipped build, no inlined assets (CSP: no data: scripts).
    sourcemap: false,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    // The page bundles React, zustand and zod: their licences ship beside it (MIT asks that copies keep them).
    license: { fileName: 'THIRD-PARTY-LICENSES.md' },
  },
});
