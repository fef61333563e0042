// Fault injection in a real Chromium (issue 27, point 3): Segment's analytics.js (@segment/analytics-next's
// UMD build, unmodified, loaded as tests/e2e/analytics-next.test.ts loads it) retries through an injected
// 503 and then delivers once; the inspector shows a notice while the fault is active, then what was
// faulted, and its Clear ends it all.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../helpers/a11y.ts';
import { browserUnavailableReason } from '../helpers/browser.ts';
import { storedMessages } from '../helpers/core.ts';
import { openInspector, repoRoot, type InspectorSession } from '../helpers/inspector-page.ts';

const umdDir = path.join(repoRoot, 'node_modules/@segment/analytics-next/dist/umd');
const skipReason = browserUnavailableReason();
if (skipReason) console.warn(`[faults e2e] skipped: ${skipReason}`);

/** A shop page: analytics.js loaded with its settings from Sluice, one track call. */
function shopPage(writeKey: string, cdnURL: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title><script src="/umd/index.js"></script></head><body>
<script>
window.__run = (async () => {
  const [analytics] = await AnalyticsNext.AnalyticsBrowser.load({ writeKey: ${JSON.stringify(writeKey)}, cdnURL: ${JSON.stringify(cdnURL)} });
  const ctx = await analytics.track('Order Completed', { total: 42 });
  return ctx.event.messageId;
})().catch((error) => 'error: ' + String(error));
</script></body></html>`;
}

function startPageServer(html: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://page.invalid').pathname;
    const file = /^\/umd\/([\w.-]+\.js)$/.exec(pathname)?.[1];
    if (pathname === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    else if (file && fs.existsSync(path.join(umdDir, file))) res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(path.join(umdDir, file)));
    else res.writeHead(404).end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(skipReason !== null)('fault injection in the browser', () => {
  let session: InspectorSession;
  let pageServer: http.Server;

  beforeAll(async () => {
    session = await openInspector();
    pageServer = await startPageServer(shopPage(session.core.writeKey, session.core.ingestUrl));
  });
  afterAll(async () => {
    pageServer?.closeAllConnections();
    pageServer?.close();
    await session?.close();
  });

  it('analytics.js retries through a 503 and delivers once; the inspector shows the fault, then what it faulted, and Clear ends it', async () => {
    const { core, page } = session;
    const added = await core.operations['faults.ingest']({ status: 503, times: 1 });
    await session.open('stream');
    const notice = page.getByRole('status', { name: 'Fault injection' });
    await expect.poll(() => notice.textContent()).toMatch(/Fault injection on \(1\).*answers 503 on every Tracking API endpoint, for 1 more request/);
    await expectAccessible(page, '.faults-banner');

    const shop = await session.context.newPage();
    await shop.goto(`http://127.0.0.1:${(pageServer.address() as AddressInfo).port}/`);
    const messageId = (await shop.evaluate('window.__run')) as string;
    expect(messageId).not.toMatch(/^error/);
    // The first attempt got the 503 (the fault is used up), the retry was stored: exactly one copy.
    await expect.poll(() => storedMessages(core).map((m) => m.messageId), { timeout: 15_000 }).toEqual([messageId]);
    expect(core.operations['faults.list']({})).toMatchObject({
      faults: [],
      faulted: [{ path: '/v1/t', source: core.sources.list()[0]!.name, faultId: added.id, outcome: 'answered', status: 503, retryCount: null }],
    });
    await shop.close();

    await expect.poll(() => notice.textContent()).toMatch(/Fault injection ended.*1 request faulted, none stored/);
    await notice.getByText('1 request faulted').click();
    await expect.poll(() => notice.textContent()).toMatch(/\/v1\/t .* — answered 503, [\d,]+ bytes/);
    await session.shot('fault-injection-ended');
    await expectAccessible(page, '.faults-banner');
    await notice.getByRole('button', { name: 'Clear faults' }).click();
    await expect.poll(() => notice.count()).toBe(0);
    expect(core.operations['faults.list']({})).toEqual({ faults: [], faulted: [] });
    expect(session.problems).toEqual([]);
    expect(session.offsite.filter((url) => !url.startsWith(core.ingestUrl) && !url.startsWith('http://127.0.0.1:'))).toEqual([]);
  });
});
