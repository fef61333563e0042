// examples/playwright-fixture (issue 27, point 5) run as a user runs it: Playwright Test with
// sluice/playwright (resolved, as from an installed package, through the package's exports to dist/),
// a shop page with Segment's unchanged snippet and a production write key, and Debian's Chromium. Two
// of its four tests fail on purpose; the JSON reporter's output says which, with what message, and how
// long (c)'s 500 ms watch took.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason, chromiumPath } from '../../helpers/browser.ts';
import { tempDir } from '../../helpers/temp-dirs.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const spec = path.join(root, 'examples/playwright-fixture/checkout.spec.mjs');
const noBrowser = browserUnavailableReason();
if (noBrowser) console.warn(`[examples/playwright-fixture] skipped: ${noBrowser}`);

interface JsonError {
  message?: string;
  location?: { file: string; line: number };
}
interface JsonStep {
  title: string;
  duration: number;
  steps?: JsonStep[];
}
interface JsonTest {
  results: { status: string; errors: JsonError[]; steps: JsonStep[] }[];
}
interface JsonSuite {
  specs?: { title: string; tests: JsonTest[] }[];
  suites?: JsonSuite[];
}

// eslint-disable-next-line no-control-regex
const plain = (text: string | undefined) => (text ?? '').replace(/\u001b\[[0-9;]*m/g, '');

describe.skipIf(noBrowser !== null)('examples/playwright-fixture: Playwright Test with sluice/playwright and its matchers', () => {
  const byTitle = new Map<string, JsonTest['results'][number]>();
  let status: number | null;
  const result = (prefix: string) => {
    const found = [...byTitle].find(([title]) => title.startsWith(prefix));
    if (!found) throw new Error(`no test "${prefix}…" in the run; ran: ${[...byTitle.keys()].join(' | ')}`);
    return found[1];
  };
  const errorOf = (prefix: string) => plain(result(prefix).errors.map((error) => error.message).join('\n'));

  beforeAll(() => {
    const cli = path.join(root, 'node_modules/@playwright/test/cli.js');
    // Playwright's output folder (it empties it first) apart from other runs' in the checkout.
    const output = tempDir('sluice-example-playwright-fixture-');
    const run = spawnSync(process.execPath, [cli, 'test', '-c', 'examples/playwright-fixture/playwright.config.mjs', '--reporter=json', '--output', output], {
      cwd: root,
      env: { ...process.env, SLUICE_CHROMIUM: chromiumPath },
      encoding: 'utf8',
      timeout: 120_000,
    });
    status = run.status;
    let report: { suites: JsonSuite[]; errors: unknown[] };
    try {
      report = JSON.parse(run.stdout) as typeof report;
    } catch {
      throw new Error(`Playwright Test gave no JSON report (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    expect(report.errors).toEqual([]);
    const walk = (suite: JsonSuite) => {
      for (const each of suite.specs ?? []) byTitle.set(each.title, each.tests[0]!.results.at(-1)!);
      suite.suites?.forEach(walk);
    };
    report.suites.forEach(walk);
  }, 150_000);

  it('(a) passes: the event the page sent through its unchanged snippet was received', () => {
    expect({ status: result('(a)').status, errors: errorOf('(a)') }).toEqual({ status: 'passed', errors: '' });
  });

  it('(b) fails with the closest message and what differs, at the line of the test', () => {
    expect(result('(b)').status).toBe('failed');
    expect(errorOf('(b)')).toMatch(/properties\.total: (expected|wanted) 43, (received|got) 42/);
    expect(errorOf('(b)')).toMatch(/Order Completed/);
    expect(result('(b)').errors[0]!.location).toMatchObject({ file: spec, line: 20 });
  });

  it('(c) passes after watching the whole 500 ms window', () => {
    expect({ status: result('(c)').status, errors: errorOf('(c)') }).toEqual({ status: 'passed', errors: '' });
    const watch = result('(c)').steps.find((step) => step.title === 'watch 500 ms for a refund');
    expect(watch, JSON.stringify(result('(c)').steps.map((step) => step.title))).toBeDefined();
    // It watches the whole window (a matcher that answers at once fails here). How far past 500 ms it ends
    // is the machine's load, not a behaviour: bounded loosely here (a matcher that waits its 3 s timeout
    // instead of the window fails), measured by the matchers benchmark.
    expect(watch!.duration).toBeGreaterThanOrEqual(495);
    expect(watch!.duration).toBeLessThan(2_000);
  });

  it('(d) fails, showing the order the events were stored in', () => {
    expect(result('(d)').status).toBe('failed');
    const message = errorOf('(d)');
    expect(message).toMatch(/Checkout Started[\s\S]*Order Completed/);
    expect(result('(d)').errors[0]!.location).toMatchObject({ file: spec, line: 31 });
  });

  it('the run fails (two of four tests), as Playwright Test reports failures', () => {
    expect([...byTitle.values()].map((each) => each.status).sort()).toEqual(['failed', 'failed', 'passed', 'passed']);
    expect(status).toBe(1);
  });
});
