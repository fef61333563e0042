// The examples under examples/ (README, "Sluice in your test suite and CI") run as a user would run
// them: node:test with Segment's library and sluice/testing (resolved, as from an installed package,
// through the package's exports to the built dist/), and the shell script with curl against the HTTP API.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserUnavailableReason, runPlaywrightTest } from '../../helpers/browser.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const curl = spawnSync('curl', ['--version'], { encoding: 'utf8' });
const noCurl = curl.status === 0 ? null : 'curl is not installed (the script is a curl example)';
if (noCurl) console.warn(`[examples] the HTTP API script is skipped: ${noCurl}`);
const noBrowser = browserUnavailableReason();
if (noBrowser) console.warn(`[examples] the Playwright Test example is skipped: ${noBrowser}`);

describe('examples', () => {
  it('examples/node-test: node --test passes', () => {
    const run = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'examples/node-test/checkout.test.mjs'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(run.stdout).toMatch(/# pass 2\n# fail 0/);
    expect(run.status).toBe(0);
  });

  it('examples/jest: Jest (ES modules, as Jest runs them with VM modules) passes', () => {
    const run = spawnSync(process.execPath, [path.join(root, 'node_modules/jest/bin/jest.js'), '--config', 'examples/jest/jest.config.mjs'], {
      cwd: root,
      env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toMatch(/Tests: {7}1 passed, 1 total/);
    expect(run.status).toBe(0);
  });

  it.skipIf(noCurl !== null)('examples/http-api/wait-for-event.sh: passes when the event arrives, fails with the closest messages when it does not', () => {
    const env = { ...process.env, SLUICE: `${process.execPath} ${path.join(root, 'dist/cli.js')}` };
    const ok = spawnSync('sh', ['examples/http-api/wait-for-event.sh'], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    expect({ status: ok.status, stdout: ok.stdout, stderr: ok.stderr }).toEqual({ status: 0, stdout: 'ok: "Signed Up" arrived from u_1 on the pro plan\n', stderr: '' });
    const missing = spawnSync('sh', ['examples/http-api/wait-for-event.sh'], { cwd: root, env: { ...env, WAIT_EVENT: 'Never Sent', TIMEOUT_MS: '200' }, encoding: 'utf8', timeout: 60_000 });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^waited 200 ms for 1 accepted message matching \{"event":"Never Sent"\}; 0 arrived \(1 stored in all\)\. None comes close; the latest stored:\n {2}- track "Signed Up" of "u_1"/);
  });

  it.skipIf(noBrowser !== null)('examples/playwright: Playwright Test clicks in a page running analytics.js and asserts the event with sluice/testing', () => {
    // Playwright's output folder apart from the checkout's test-results/.
    const { run, output } = runPlaywrightTest('examples/playwright/playwright.config.mjs', 'sluice-example-playwright-');
    expect(run.stdout).toMatch(/1 passed/);
    expect(run.status).toBe(0);
    // The run's record went to that folder (in the checkout's test-results/ without --output).
    expect(JSON.parse(fs.readFileSync(path.join(output, '.last-run.json'), 'utf8'))).toMatchObject({ status: 'passed' });
  });
});
