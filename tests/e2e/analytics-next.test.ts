// Segment's browser library, unmodified (@segment/analytics-next's UMD build from node_modules), in a
// real Chromium, loaded with nothing but `cdnURL` pointing at Sluice's ingestion endpoint: it fetches
// its settings from Sluice, then posts identify, track and page to Sluice cross-origin (the page is
// served from another port, so CORS preflights happen for real), and Sluice stores them.
//
// What the bundle does, read from dist/umd/index.js and src/lib/parse-cdn.ts of v1.84:
// - `dist/umd/index.js` is the UMD build; loaded by a script tag it defines `window.AnalyticsNext`
//   (with `AnalyticsBrowser`). `standalone.js` is the snippet build: it reads `window.analytics` and
//   leaves `window.AnalyticsNext` an empty object, so it is not the one to drive from a page.
// - Lazy chunks (`<name>.bundle.<hash>.js`) are loaded from webpack's public path, fixed when the
//   script runs: `window.analytics._cdn`, else an https `…/analytics.js/v1/…` script tag, else
//   https://cdn.segment.com, always + `/analytics-next/bundles/`. `cdnURL` given to load() does not
//   move it. So a chunk would leave the machine; Sluice's settings need none (one integration: no
//   ajs-destination chunk; no routing rules, enabled middleware, legacy video plugins or remote
//   plugins; and `metrics.sampleRate: 0` stops telemetry). The test checks that every request the
//   page made went to the page server or to Sluice.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserUnavailableReason, launchBrowser } from '../helpers/browser.ts';
import { basicAuth, startCore, storedMessages, waitForStored, type TestCore } from '../helpers/core.ts';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const packageDir = path.join(repoRoot, 'node_modules/@segment/analytics-next');
const umdDir = path.join(packageDir, 'dist/umd');
const libraryVersion = (JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string })
  .version;

const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[analytics-next e2e] skipped: ${skipReason}`);

/** The test page; it reports what it saw through the promise in `window.__sluiceRun`. */
function testPage(config: { writeKey: string; cdnURL: string }): string {
  const json = JSON.stringify(config).replace(/</g, '\\u003c');
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>Sluice checkout test</title>
<script src="/umd/index.js"></script>
</head>
<body>
<h1>Checkout</h1>
<script>
window.__sluiceRun = (async () => {
  const config = ${json};
  const [analytics] = await AnalyticsNext.AnalyticsBrowser.load({ writeKey: config.writeKey, cdnURL: config.cdnURL });
  const contexts = [];
  contexts.push(await analytics.identify('user-42', { email: 'ada@example.com', plan: 'pro' }));
  contexts.push(await analytics.track('Order Completed', { revenue: 42, currency: 'EUR' }));
  contexts.push(await analytics.page('Shop', 'Checkout', { step: 3 }));
  return {
    cdnSettings: analytics.settings.cdnSettings,
    anonymousId: analytics.user().anonymousId(),
    sent: contexts.map((ctx) => ({
      type: ctx.event.type,
      messageId: ctx.event.messageId,
      failedDelivery: ctx.failedDelivery() ? String(ctx.failedDelivery().reason) : null,
    })),
  };
})().catch((error) => ({ error: String((error && error.stack) || error) }));
</script>
</body>
</html>`;
}

interface PageRun {
  error?: string;
  cdnSettings: { integrations: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  anonymousId: string;
  sent: { type: string; messageId: string; failedDelivery: string | null }[];
}

/** Serves the test page at / and the files of dist/umd under /umd/. */
function startPageServer(config: { writeKey: string; cdnURL: string }, seen: string[]): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://page.invalid');
    seen.push(`${req.method} ${pathname}`);
    if (pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(testPage(config));
      return;
    }
    if (pathname === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const file = /^\/umd\/([\w.-]+\.js(?:\.map)?)$/.exec(pathname)?.[1];
    const full = file ? path.join(umdDir, file) : null;
    if (full && fs.existsSync(full)) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      res.end(fs.readFileSync(full));
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

interface Preflight {
  url: string;
  status: number;
  headers: Record<string, string>;
}

/** CORS preflights as Chromium's network stack saw them (Playwright's own events leave them out). */
async function recordPreflights(context: BrowserContext, page: Page): Promise<Preflight[]> {
  const preflights: Preflight[] = [];
  const cdp = await context.newCDPSession(page);
  cdp.on('Network.responseReceived', (event) => {
    if (event.type !== 'Preflight') return;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(event.response.headers)) headers[name.toLowerCase()] = String(value);
    preflights.push({ url: event.response.url, status: event.response.status, headers });
  });
  await cdp.send('Network.enable');
  return preflights;
}

describe.skipIf(skipReason !== null)('@segment/analytics-next in Chromium, loaded from Sluice', () => {
  let core: TestCore;
  let browser: Browser;
  let pageServer: http.Server;
  let pageOrigin: string;
  const pageServerRequests: string[] = [];

  beforeAll(async () => {
    core = await startCore();
    pageServer = await startPageServer({ writeKey: core.writeKey, cdnURL: core.ingestUrl }, pageServerRequests);
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    if (pageServer) {
      pageServer.closeAllConnections();
      await new Promise<void>((resolve) => pageServer.close(() => resolve()));
    }
    await core?.dispose();
  });

  it('fetches its settings from Sluice, then identify, track and page are stored field by field', async () => {
    const ingestHost = new URL(core.ingestUrl).host;
    expect(new URL(pageOrigin).origin).not.toBe(new URL(core.ingestUrl).origin); // cross-origin for real

    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: { method: string; url: string; headers: Record<string, string> }[] = [];
    const failedRequests: string[] = [];
    const consoleLines: string[] = [];
    context.on('request', (request) =>
      requests.push({ method: request.method(), url: request.url(), headers: request.headers() }),
    );
    context.on('requestfailed', (request) =>
      failedRequests.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`),
    );
    page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));
    const preflights = await recordPreflights(context, page);
    const settingsUrl = `${core.ingestUrl}/v1/projects/${core.writeKey}/settings`;
    const settingsResponse = page.waitForResponse((response) => response.url() === settingsUrl);
    settingsResponse.catch(() => {}); // awaited below; a failure earlier in the test must not surface as unhandled

    const stored = waitForStored(core, 3);
    await page.goto(`${pageOrigin}/`);
    const run = (await page.evaluate('window.__sluiceRun')) as PageRun;
    const diagnostics = () =>
      JSON.stringify(
        { run, requests: requests.map((r) => `${r.method} ${r.url}`), failedRequests, consoleLines, pageServerRequests },
        null,
        2,
      );
    expect(run.error, diagnostics()).toBeUndefined();
    await stored.catch((error: Error) => {
      throw new Error(`${error.message}\n${diagnostics()}`);
    });

    // The settings request was answered by Sluice, cross-origin, and steered the library to it.
    const settings = await settingsResponse;
    expect(settings.status()).toBe(200);
    expect((await settings.allHeaders())['access-control-allow-origin']).toBe(pageOrigin);
    expect(Object.keys(run.cdnSettings.integrations)).toEqual(['Segment.io']);
    expect(run.cdnSettings.integrations['Segment.io']).toMatchObject({
      apiKey: core.writeKey,
      apiHost: `${ingestHost}/v1`,
      protocol: 'http',
    });
    expect(run.cdnSettings.metrics).toEqual({ sampleRate: 0 });

    // Every request stayed on loopback: the page, its script, then only Sluice. No lazy chunk, no
    // telemetry, nothing to cdn.segment.com or api.segment.io.
    const shown = requests.map((r) => `${r.method} ${r.url}`);
    expect(shown, diagnostics()).toEqual([
      `GET ${pageOrigin}/`,
      `GET ${pageOrigin}/umd/index.js`,
      `GET ${settingsUrl}`,
      `POST ${core.ingestUrl}/v1/i`,
      `POST ${core.ingestUrl}/v1/t`,
      `POST ${core.ingestUrl}/v1/p`,
    ]);
    expect(failedRequests, diagnostics()).toEqual([]);
    expect(consoleLines.filter((line) => /^(error|warning|pageerror)/.test(line)), diagnostics()).toEqual([]);

    // How the library posts: text/plain JSON with the write key as Basic auth, which needs a preflight.
    for (const request of requests.filter((r) => r.method === 'POST')) {
      expect(request.headers['content-type']).toBe('text/plain');
      expect(request.headers.authorization).toBe(basicAuth(core.writeKey));
    }
    await expect.poll(() => preflights.map((p) => new URL(p.url).pathname).sort()).toEqual(['/v1/i', '/v1/p', '/v1/t']);
    for (const preflight of preflights) {
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe(pageOrigin);
      expect(preflight.headers['access-control-allow-methods']).toContain('POST');
      expect(preflight.headers['access-control-allow-headers']?.toLowerCase()).toContain('authorization');
    }

    // The library believes every call was delivered.
    expect(run.sent.map((s) => [s.type, s.failedDelivery])).toEqual([
      ['identify', null],
      ['track', null],
      ['page', null],
    ]);
    await context.close();

    // What Sluice stored, field by field.
    expect(core.messages.countByStatus()).toEqual({ accepted: 3, rejected: 0, duplicate: 0 });
    const records = storedMessages(core);
    const byType = (type: string) => {
      const found = records.filter((r) => r.type === type);
      expect(found, `stored ${type} messages`).toHaveLength(1);
      return found[0]!;
    };
    const library = { name: 'analytics.js', version: `next-${libraryVersion}` };
    const sentIds = Object.fromEntries(run.sent.map((s) => [s.type, s.messageId]));

    for (const type of ['identify', 'track', 'page']) {
      const record = byType(type);
      const message = record.message!;
      const raw = JSON.parse(record.raw) as Record<string, unknown>;
      expect(record.status).toBe('accepted');
      expect(message.type).toBe(type);
      expect(record.messageId).toMatch(/^ajs-next-/);
      expect(record.messageId).toBe(sentIds[type]);
      expect(message.messageId).toBe(record.messageId);
      expect(record.userId).toBe('user-42');
      expect(message.userId).toBe('user-42');
      expect(record.anonymousId).toBe(run.anonymousId);
      expect(message.anonymousId).toBe(run.anonymousId);
      expect(message.context).toMatchObject({
        library,
        page: { path: '/', url: `${pageOrigin}/`, title: 'Sluice checkout test' },
        userAgent: expect.stringContaining('Chrome/'),
      });
      // The write key came in the body too, exactly as the library sent it.
      expect(raw).not.toHaveProperty('writeKey'); // a credential: kept out of the store
      expect(typeof raw.sentAt).toBe('string');
      // The client's clock is kept as originalTimestamp; timestamp is corrected for skew.
      expect(message.originalTimestamp).toBe(raw.timestamp);
      expect(typeof message.timestamp).toBe('string');
    }

    const identify = byType('identify');
    expect(identify.message!.traits).toEqual({ email: 'ada@example.com', plan: 'pro' });

    const track = byType('track');
    expect(track.event).toBe('Order Completed');
    expect(track.message!.event).toBe('Order Completed');
    expect(track.message!.properties).toEqual({ revenue: 42, currency: 'EUR' });

    const pageView = byType('page');
    expect(pageView.event).toBe('Checkout');
    expect(pageView.message).toMatchObject({ name: 'Checkout', category: 'Shop' });
    expect(pageView.message!.properties).toMatchObject({ step: 3, path: '/', url: `${pageOrigin}/` });
  });
});
