// The app under test of the fixture's tests: a tiny shop whose pages carry production analytics
// snippets, unchanged (Segment's standard snippet; the same through a first-party proxy; RudderStack's
// SDK from npm), and a barrier that makes two tests meet (GET /barrier/<name>?n=2 answers once n asked).
// Playwright's globalSetup: it listens on a free loopback port and passes its address in SHOP_URL.
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';

/** What a production Segment write key looks like (32 letters and digits); no source of Sluice has it. */
export const SEGMENT_KEY = 'Zf3kq9XbP2sLw7RmT4vYc8NdJ6hA1eGu';
export const RUDDER_KEY = '2Nq8VbX4rTz7KpL1mW9sHc3Yd6F';

const rudderSdk = path.resolve(path.dirname(createRequire(import.meta.url).resolve('@rudderstack/analytics-js')), '../bundled/umd/index.js');

/** Segment's analytics.js snippet (5.2.0) as its Sources page gives it, with `cdn` and load options as a proxy setup changes them. */
function segmentSnippet(writeKey, cdn = 'https://cdn.segment.com', loadOptions) {
  return `!function(){var i="analytics",analytics=window[i]=window[i]||[];if(!analytics.initialize)if(analytics.invoked)window.console&&console.error&&console.error("Segment snippet included twice.");else{analytics.invoked=!0;analytics.methods=["trackSubmit","trackClick","trackLink","trackForm","pageview","identify","reset","group","track","ready","alias","debug","page","screen","once","off","on","addSourceMiddleware","addIntegrationMiddleware","setAnonymousId","addDestinationMiddleware","register"];analytics.factory=function(e){return function(){if(window[i].initialized)return window[i][e].apply(window[i],arguments);var n=Array.prototype.slice.call(arguments);if(["track","screen","alias","group","page","identify"].indexOf(e)>-1){var c=document.querySelector("link[rel='canonical']");n.push({__t:"bpc",c:c&&c.getAttribute("href")||void 0,p:location.pathname,u:location.href,s:location.search,t:document.title,r:document.referrer})}n.unshift(e);analytics.push(n);return analytics}};for(var n=0;n<analytics.methods.length;n++){var key=analytics.methods[n];analytics[key]=analytics.factory(key)}analytics.load=function(key,n){var t=document.createElement("script");t.type="text/javascript";t.async=!0;t.setAttribute("data-global-segment-analytics-key",i);t.src="${cdn}/analytics.js/v1/" + key + "/analytics.min.js";var r=document.getElementsByTagName("script")[0];r.parentNode.insertBefore(t,r);analytics._loadOptions=n};analytics._writeKey="${writeKey}";;analytics.SNIPPET_VERSION="5.2.0";
analytics.load("${writeKey}"${loadOptions ? `, ${JSON.stringify(loadOptions)}` : ''});
analytics.page();
}}();`;
}

const buy = (call) => `<button id="buy">Buy</button>
<script>document.getElementById('buy').addEventListener('click', () => { ${call} });</script>`;

const pages = {
  '/segment': () => `<!doctype html><meta charset="utf-8"><title>Shop</title>
<script>${segmentSnippet(SEGMENT_KEY)}</script>
${buy("analytics.track('Order Completed', { total: 42, currency: 'EUR' });")}`,
  // Segment's custom proxy setup: analytics.js from the shop's own CDN host, events to its own API host.
  '/segment-proxy': () => `<!doctype html><meta charset="utf-8"><title>Shop</title>
<script>${segmentSnippet(SEGMENT_KEY, 'https://cdn.shop.example', { integrations: { 'Segment.io': { apiHost: 'api.shop.example/v1', protocol: 'https' } } })}</script>
${buy("analytics.track('Order Completed', { total: 42, currency: 'EUR' });")}`,
  // RudderStack's SDK as an app bundles it from npm, with its data plane URL and default control plane.
  '/rudder': (query) => `<!doctype html><meta charset="utf-8"><title>Shop</title>
<script src="/rudder-sdk.js"></script>
<script>
  const rudder = new rudderanalytics.RudderAnalytics();
  rudder.load(${JSON.stringify(RUDDER_KEY)}, ${JSON.stringify(query.get('dataPlane') ?? 'https://shopxyz.dataplane.rudderstack.com')}, { logLevel: 'WARN' });
</script>
${buy("rudder.track('Order Completed', { total: 42, currency: 'EUR' });")}`,
};

const barriers = new Map();

function serve(req, res) {
  const url = new URL(req.url, 'http://shop.invalid');
  if (url.pathname === '/rudder-sdk.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(rudderSdk));
  const barrier = /^\/barrier\/([\w-]+)$/.exec(url.pathname)?.[1];
  if (barrier) {
    const waiting = barriers.get(barrier) ?? [];
    barriers.set(barrier, waiting);
    waiting.push(res);
    if (waiting.length >= Number(url.searchParams.get('n') ?? 2)) {
      for (const each of waiting.splice(0)) each.writeHead(200, { 'access-control-allow-origin': '*' }).end('met');
    }
    return;
  }
  const page = pages[url.pathname];
  if (!page) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(url.searchParams));
}

export default async function globalSetup() {
  const server = http.createServer(serve);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.SHOP_URL = `http://127.0.0.1:${server.address().port}`;
  return async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
}
