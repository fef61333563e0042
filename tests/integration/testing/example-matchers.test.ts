// examples/vitest-matchers and examples/jest-matchers (issue 27, point 5) run as a user runs them,
// sluice/matchers and sluice/testing resolved through the package's exports to the built dist/: their
// expectations pass, and the deliberately wrong one of each (SLUICE_SHOW_FAILURE=1) fails with the
// closest message's difference and the example file's line. And the same failure in Playwright Test's
// expect, extended with the matchers (no browser: the spec sends over HTTP).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/temp-dirs.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const node = process.execPath;

/** Runs a command from the checkout's root; its exit code and output (stdout and stderr, as the runner prints them). */
function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { cwd: root, env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk));
    const timer = setTimeout(() => child.kill(), 90_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, out });
    });
  });
}

const vitest = ['node_modules/vitest/vitest.mjs', 'run', '--config', 'examples/vitest-matchers/vitest.config.mjs'];
const jest = ['node_modules/jest/bin/jest.js', '--config', 'examples/jest-matchers/jest.config.mjs'];
const jestEnv = { NODE_OPTIONS: '--experimental-vm-modules' };
const SHOW = { SLUICE_SHOW_FAILURE: '1' };
/** What each failure must say: the closest message and its difference. */
const DIFF = /waited 300 ms for 1 accepted message matching \{"event":"Order Completed","properties":\{"total":43\}\}; 0 arrived \(1 stored in all\)\. Closest:\n\s+- track "Order Completed" of "u_1" \(accepted, [^)]+\): properties\.total: wanted 43, got 42/;

describe('examples of sluice/matchers', () => {
  it('examples/vitest-matchers and examples/jest-matchers pass; their wrong total fails with the diff at the example\'s line; so does Playwright Test\'s', async () => {
    const [vitestOk, vitestFails, jestOk, jestFails, playwrightFails] = await Promise.all([
      run(vitest),
      run(vitest, SHOW),
      run(jest, jestEnv),
      run(jest, { ...jestEnv, ...SHOW }),
      run(['node_modules/@playwright/test/cli.js', 'test', '-c', 'tests/fixtures/matchers-playwright/playwright.config.mjs', '--output', tempDir('sluice-matchers-playwright-')]),
    ]);
    expect(vitestOk.out).toMatch(/Tests\s+3 passed \(3\)/);
    expect(vitestOk.status).toBe(0);
    expect(jestOk.out).toMatch(/Tests:\s+3 passed, 3 total/);
    expect(jestOk.status).toBe(0);

    expect(vitestFails.status).toBe(1);
    expect(vitestFails.out).toMatch(DIFF);
    // Vitest's code frame: the example's file and the line of the expectation.
    expect(vitestFails.out).toMatch(/❯ wrong-total\.failing\.mjs:18:\d+\n(?:.*\n){2}\s*18\|\s+await expect\(sluice\)\.toHaveReceived/);
    expect(jestFails.status).toBe(1);
    expect(jestFails.out).toMatch(DIFF);
    expect(jestFails.out).toMatch(/> 18 \|\s+await expect\(sluice\)\.toHaveReceived/);
    expect(jestFails.out).toMatch(/at Object\.<anonymous> \(wrong-total\.failing\.mjs:18:\d+\)/);
    expect(playwrightFails.status).toBe(1);
    expect(playwrightFails.out).toMatch(DIFF);
    expect(playwrightFails.out).toMatch(/> 16 \|\s+await expect\(sluice\)\.toHaveReceived\(\{ event: 'Order Completed', properties: \{ total: 43 \} \}/);
    expect(playwrightFails.out).toMatch(/at .*tests\/fixtures\/matchers-playwright\/wrong-total\.spec\.mjs:16:\d+/);
  });
});
