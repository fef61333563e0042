// A real Chromium for browser tests, driven by Playwright as a library (no Playwright test runner, no
// downloaded browsers: `npx playwright install` needs the internet). Set SLUICE_CHROMIUM to use
// another binary.
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { tempDir } from './temp-dirs.ts';

export const chromiumPath: string = process.env.SLUICE_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Why browser tests cannot run here, or null when they can. Use with `describe.skipIf`. In CI a
 * missing browser is an error, not a skip: .ci/run installs one, so its absence is a broken setup.
 */
export function browserUnavailableReason(): string | null {
  try {
    fs.accessSync(chromiumPath, fs.constants.X_OK);
    return null;
  } catch {
    const reason = `no executable Chromium at ${chromiumPath} (set SLUICE_CHROMIUM to a Chromium binary)`;
    if (process.env.CI) throw new Error(`browser tests cannot run in CI: ${reason}`);
    return reason;
  }
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Runs Playwright Test (the runner, as a user of sluice/testing does) on a config of this checkout, with
 * the Chromium above and its output folder in a temporary folder of its own (Playwright empties it
 * first; removed after the test file), at most two minutes.
 */
export function runPlaywrightTest(config: string, outputPrefix: string): { run: SpawnSyncReturns<string>; output: string } {
  const root = path.resolve(import.meta.dirname, '../..');
  const cli = path.join(root, 'node_modules/@playwright/test/cli.js');
  const output = tempDir(outputPrefix);
  const run = spawnSync(process.execPath, [cli, 'test', '-c', config, '--output', output], {
    cwd: root,
    env: { ...process.env, SLUICE_CHROMIUM: chromiumPath },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { run, output };
}
