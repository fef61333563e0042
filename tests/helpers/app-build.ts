// The built desktop app (out/, `npm run build`) for the tests that run or package it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const appRoot = path.resolve(import.meta.dirname, '../..');

/** `npm test` builds the app first; run alone, a test builds it when it is missing. */
export function ensureAppBuilt(): void {
  const outputs = ['out/main/index.js', 'out/preload/index.cjs', 'out/renderer/index.html'];
  if (outputs.every((f) => fs.existsSync(path.join(appRoot, f)))) return;
  // As from a shell: vitest sets NODE_ENV=test, which makes Vite build something else.
  const { NODE_ENV: _testEnv, ...shellEnv } = process.env;
  execFileSync(process.execPath, [path.join(appRoot, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: appRoot,
    env: shellEnv,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 120_000,
  });
}
