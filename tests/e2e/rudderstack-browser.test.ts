// RudderStack's browser SDK, unmodified (@rudderstack/analytics-js 3.34, its bundled UMD build from
// node_modules), in a real Chromium, in batch mode, sending hundreds of 5 KB events to a real core
// (issue 24, point 10). Its batches reach 512 KiB; Sluice refused anything over 500 KB with a 400 that
// the SDK does not retry, and lost them (98 of 270). Now every event is stored exactly as the SDK sent
// it, and a batch over Segment's 500 KB carries the warning instead.
//
// What the SDK does, read from dist/npm/modern (3.34): it fetches its source config from
// `<configUrl>/sourceConfig/?writeKey=…` — https://api.rudderstack.com unless the load options give
// `configUrl` — and sends nothing until that answers with a valid config (getSourceConfig in the load
// options replaces the fetch). Sluice serves that config (GET /sourceConfig), so the SDK works with
// the data plane URL and `configUrl` both pointing at Sluice, and no getSourceConfig; with the data
// plane URL alone it asks RudderStack's control plane (checked below, without letting it leave).
// The bundled build carries its plugins (XhrQueue…), so nothing is loaded from RudderStack's CDN.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from '@playwright/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason, launchBrowser } from '../helpers/browser.ts';
import { startCore, storedMessages, type TestCore } from '../helpers/core.ts';
import { until } from '../helpers/wait.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const packageDir = path.join(repoRoot, 'node_modules/@rudderstack/analytics-js');
const sdk = fs.readFileSync(path.join(packageDir, 'dist/npm/modern/bundled/umd/index.js'));
const sdkVersion = (JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string }).version;

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[rudderstack browser e2e] skipped: ${skipReason}`);

const EVENTS = 300;
const PAD = 5_000;

/** The page: the SDK's UMD build, loaded with these options, then EVENTS track calls of about 5 KB. */
function testPage(writeKey: string, dataPlaneUrl: string, configUrl: string | null): string {
  const options = {
    logLevel: 'WARN',
    ...(configUrl ? { configUrl } : {}),
    // Batch mode; the last, partial batch goes after a second instead of a minute.
    queueOptions: { batch: { enabled: true, flushInterval: 1_000 } },
  };
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>RudderStack batch test</title><script src="/sdk.js"></script></head>
<body><script>
window.__loaded = new Promise((resolve) => {
  const analytics = new rudderanalytics.RudderAnalytics();
  analytics.load(${JSON.stringify(writeKey)}, ${JSON.stringify(dataPlaneUrl)}, { ...${JSON.stringify(options)}, onLoaded: () => resolve(true) });
  const pad = 'x'.repeat(${PAD});
  for (let i = 0; i < ${EVENTS}; i++) analytics.track('Big Event', { i, pad });
});
</script></body></html>`;
}

async function pageServer(html: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === '/sdk.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end(sdk);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return server;
}

describe.skipIf(skipReason !== null)(`@rudderstack/analytics-js ${sdkVersion} in Chromium, batch mode`, () => {
  let browser: Browser;
  const open: { close(): Promise<unknown> | void }[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });

  async function run(core: TestCore, configUrl: string | null): Promise<{ page: Page; requests: string[]; sent: Record<string, unknown>[][]; blocked: string[]; logged: string[] }> {
    const server = await pageServer(testPage(core.writeKey, core.ingestUrl, configUrl));
    open.push({ close: () => new Promise((resolve) => server.close(resolve)) });
    const context = await browser.newContext();
    open.push(context);
    const page = await context.newPage();
    const requests: string[] = [];
    const sent: Record<string, unknown>[][] = [];
    const blocked: string[] = [];
    const logged: string[] = [];
    page.on('console', (message) => logged.push(message.text()));
    // Nothing may leave the machine: RudderStack's own hosts are answered here, and noted.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => {
      blocked.push(route.request().url());
      return route.abort('blockedbyclient');
    });
    page.on('request', (request) => {
      requests.push(`${request.method()} ${request.url()}`);
      if (request.method() === 'POST' && request.url() === `${core.ingestUrl}/v1/batch`) {
        sent.push((JSON.parse(request.postData()!) as { batch: Record<string, unknown>[] }).batch);
      }
    });
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { page, requests, sent, blocked, logged };
  }

  it(`with the data plane URL and configUrl pointing at Sluice: all ${EVENTS} events of ~5 KB are stored unchanged, a batch over 500 KB with Segment's warning`, async () => {
    const core = await startCore();
    open.push({ close: () => core.dispose() });
    const { page, requests, sent, blocked } = await run(core, core.ingestUrl);
    expect(await page.evaluate(() => (window as unknown as { __loaded: Promise<boolean> }).__loaded)).toBe(true);
    await until(() => core.messages.countByStatus().accepted >= EVENTS, 60_000, `${EVENTS} events stored`);

    expect(blocked).toEqual([]);
    expect(requests.filter((r) => r.includes('/sourceConfig'))).toEqual([expect.stringMatching(new RegExp(`^GET ${core.ingestUrl}/sourceConfig/\\?p=npm&v=${sdkVersion.replace(/\./g, '\\.')}&build=modern&writeKey=${core.writeKey}&`))]);
    const events = sent.flat();
    expect(events).toHaveLength(EVENTS); // each sent once: no refusal, so no retry either
    expect(sent.length).toBeGreaterThan(2); // in several batches
    expect(core.messages.countByStatus()).toEqual({ accepted: EVENTS, rejected: 0, duplicate: 0 });

    const stored = new Map(storedMessages(core).map((m) => [m.messageId, m]));
    for (const event of events) {
      const record = stored.get(event.messageId as string);
      expect(record, `event ${String(event.messageId)} was not stored`).toBeDefined();
      expect(JSON.parse(record!.raw)).toEqual(event); // exactly as the SDK sent it
    }
    expect(new Set(events.map((e) => (e.properties as { i: number }).i)).size).toBe(EVENTS);
    // The SDK fills a batch up to 512 KiB: over Segment's 500 KB, each of its messages says so.
    const warned = storedMessages(core).filter((m) => m.warning !== undefined);
    expect(warned.length).toBeGreaterThan(0);
    for (const m of warned) expect(m.warning).toMatch(/^Segment would refuse this: over 500 KB \(its batch is 5\d\d,\d{3} bytes\)$/);
  }, 120_000);

  it('with the data plane URL alone, the SDK asks RudderStack\'s control plane for its config and sends nothing: configUrl is needed', async () => {
    const core = await startCore();
    open.push({ close: () => core.dispose() });
    const { blocked, logged, requests } = await run(core, null);
    // It gives up on its config (the SDK's own error), having sent nothing to Sluice.
    await until(() => logged.some((text) => text.includes('Failed to fetch the source config')), 30_000, "the SDK's config error");
    expect(blocked[0]).toMatch(new RegExp(`^https://api\\.rudderstack\\.com/sourceConfig/\\?p=npm&v=${sdkVersion.replace(/\./g, '\\.')}&build=modern&writeKey=${core.writeKey}&`));
    expect(requests.filter((r) => r.startsWith(`POST ${core.ingestUrl}`))).toEqual([]);
    expect(core.messages.list()).toEqual([]);
  }, 60_000);
});
