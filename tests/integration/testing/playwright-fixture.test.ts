// sluice/playwright (issue 27, point 2) in Playwright Test with a real Chromium: the specs under
// tests/fixtures/playwright-fixture/ run once, in two workers, against a tiny shop whose pages carry
// production analytics snippets unchanged (its shop.mjs); each spec asserts in the browser's test
// and leaves what it saw as annotations, which the tests below read from the JSON reporter's output.
// sluice/playwright resolves, as from an installed package, through the package's exports to dist/.
import { beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason, runPlaywrightTest } from '../../helpers/browser.ts';

const noBrowser = browserUnavailableReason();
if (noBrowser) console.warn(`[sluice/playwright] skipped: ${noBrowser}`);

interface Result {
  title: string;
  status: string;
  parallelIndex: number;
  errors: string[];
  notes: Record<string, string>;
}

interface JsonSuite {
  title: string;
  specs?: { title: string; tests: { annotations: { type: string; description?: string }[]; results: { status: string; parallelIndex: number; errors: { message?: string }[] }[] }[] }[];
  suites?: JsonSuite[];
}

/** Every test's last result, by title. */
function results(suites: JsonSuite[]): Map<string, Result> {
  const found = new Map<string, Result>();
  const walk = (suite: JsonSuite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests) {
        const last = test.results.at(-1)!;
        const notes = Object.fromEntries(test.annotations.filter((note) => note.description !== undefined).map((note) => [note.type, note.description!]));
        found.set(spec.title, { title: spec.title, status: last.status, parallelIndex: last.parallelIndex, errors: last.errors.map((error) => error.message ?? ''), notes });
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  suites.forEach(walk);
  return found;
}

describe.skipIf(noBrowser !== null)('sluice/playwright in Playwright Test, two workers, a real Chromium', () => {
  let run: Map<string, Result>;
  const test = (title: string): Result => {
    const result = run.get(title);
    if (!result) throw new Error(`no test "${title}" in the run; ran: ${[...run.keys()].join(' | ')}`);
    return result;
  };
  const passed = (title: string) => expect({ status: test(title).status, errors: test(title).errors }).toEqual({ status: 'passed', errors: [] });

  beforeAll(() => {
    // Playwright's output folder apart from other runs' in the checkout.
    const { run: spawned } = runPlaywrightTest('tests/fixtures/playwright-fixture/playwright.config.mjs', 'sluice-playwright-fixture-');
    let report: { suites: JsonSuite[]; errors: unknown[] };
    try {
      report = JSON.parse(spawned.stdout) as typeof report;
    } catch {
      throw new Error(`Playwright Test gave no JSON report (exit ${spawned.status}):\n${spawned.stdout}\n${spawned.stderr}`);
    }
    expect(report.errors).toEqual([]);
    run = results(report.suites);
  }, 150_000);

  it("the standard Segment snippet, unchanged, loads analytics.js, its settings and its events through Segment's hosts from Sluice", () => {
    const title = "the snippet loads analytics.js, its settings and sends its events through the production hosts to Sluice";
    passed(title);
    const seen = JSON.parse(test(title).notes.requests!) as { requests: string[]; failed: string[] };
    const key = test(title).notes.writeKey!;
    const away = seen.requests.filter((request) => !request.includes('//127.0.0.1:'));
    expect(away.slice(0, 2)).toEqual([
      `GET https://cdn.segment.com/analytics.js/v1/${key}/analytics.min.js`,
      `GET https://cdn.segment.com/v1/projects/${key}/settings`,
    ]);
    // The events went to the Tracking API's production host (page view, then the order), nowhere else.
    expect(away.slice(2)).toEqual(['POST https://api.segment.io/v1/p', 'POST https://api.segment.io/v1/t']);
    expect(seen.failed).toEqual([]);
  });

  it("RudderStack's SDK gets its source config from api.rudderstack.com and sends to its data plane, both answered by Sluice", () => {
    const title = "the SDK gets its source config and sends its events through RudderStack's hosts to Sluice";
    passed(title);
    const hosts = JSON.parse(test(title).notes.hosts!) as string[];
    expect(hosts.filter((host) => !host.startsWith('127.0.0.1:'))).toEqual(['api.rudderstack.com', 'shopxyz.dataplane.rudderstack.com']);
  });

  it('two workers run at the same time, each with a relay of its own that holds only its own events', () => {
    const [left, right] = [test('worker test left'), test('worker test right')];
    passed('worker test left');
    passed('worker test right');
    expect(left.parallelIndex).not.toBe(right.parallelIndex);
    expect(left.notes.relay).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(left.notes.relay).not.toBe(right.notes.relay);
    expect([left.notes.events, right.notes.events]).toEqual(['["left"]', '["right"]']);
  });

  it("each test starts with its worker's relay reset", () => {
    const [first, second] = [test('first: an event is stored'), test('second: the same relay holds nothing')];
    passed('first: an event is stored');
    passed('second: the same relay holds nothing');
    expect(second.notes.relay).toBe(first.notes.relay);
    expect(Number(first.notes.stored)).toBeGreaterThan(0);
    expect(second.notes.stored).toBe('0');
  });

  it('hosts of its own: configured through sluiceIntercept or given to sluice.intercept(page); without them nothing is routed', () => {
    passed('a Segment proxy setup reaches Sluice through the configured hosts');
    const hosts = JSON.parse(test('a Segment proxy setup reaches Sluice through the configured hosts').notes.hosts!) as string[];
    expect(hosts.filter((host) => !host.startsWith('127.0.0.1:'))).toEqual(['api.shop.example', 'cdn.shop.example']);
    passed('a RudderStack data plane of its own reaches Sluice');
    passed('sluice.intercept(page, { hosts }) routes a page the fixture left alone');
    passed('the proxy setup is not routed: its analytics.js is asked of the network, and nothing reaches Sluice');
    passed("only the Tracking API paths of the app's host reach Sluice: its page loads from the app");
  });

  it('analyticsJs: a file of one\'s own is served for the snippet (its production key in the body taken as the relay\'s), and "network" leaves the request alone; a wrong option is refused with a sentence', () => {
    passed('the snippet gets that file, and its request with the production key in the body reaches Sluice');
    passed("the snippet's analytics.js is left to the next handler, the network");
    passed('is refused with a sentence naming the option and its form');
  });
});
