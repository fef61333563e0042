// The app under test: a tiny shop whose page carries Segment's analytics.js snippet exactly as Segment's
// Sources page gives it, with a production write key. Nothing in it knows about Sluice. Playwright's
// globalSetup starts it on a free loopback port and passes its address to the tests in SHOP_URL.
import http from 'node:http';

const WRITE_KEY = 'q8MoxYfWq2ZbTp6kLs3NjR9vHc4GdA1e';

const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>Shop</title>
<script>
  !function(){var i="analytics",analytics=window[i]=window[i]||[];if(!analytics.initialize)if(analytics.invoked)window.console&&console.error&&console.error("Segment snippet included twice.");else{analytics.invoked=!0;analytics.methods=["trackSubmit","trackClick","trackLink","trackForm","pageview","identify","reset","group","track","ready","alias","debug","page","screen","once","off","on","addSourceMiddleware","addIntegrationMiddleware","setAnonymousId","addDestinationMiddleware","register"];analytics.factory=function(e){return function(){if(window[i].initialized)return window[i][e].apply(window[i],arguments);var n=Array.prototype.slice.call(arguments);if(["track","screen","alias","group","page","identify"].indexOf(e)>-1){var c=document.querySelector("link[rel='canonical']");n.push({__t:"bpc",c:c&&c.getAttribute("href")||void 0,p:location.pathname,u:location.href,s:location.search,t:document.title,r:document.referrer})}n.unshift(e);analytics.push(n);return analytics}};for(var n=0;n<analytics.methods.length;n++){var key=analytics.methods[n];analytics[key]=analytics.factory(key)}analytics.load=function(key,n){var t=document.createElement("script");t.type="text/javascript";t.async=!0;t.setAttribute("data-global-segment-analytics-key",i);t.src="https://cdn.segment.com/analytics.js/v1/" + key + "/analytics.min.js";var r=document.getElementsByTagName("script")[0];r.parentNode.insertBefore(t,r);analytics._loadOptions=n};analytics._writeKey="${WRITE_KEY}";;analytics.SNIPPET_VERSION="5.2.0";
  analytics.load("${WRITE_KEY}");
  analytics.page();
  }}();
</script>
</head>
<body>
<h1>Your cart: 2 items, 42 EUR</h1>
<button id="buy">Buy</button>
<script>
  // Checkout Started, then (once it is sent) Order Completed.
  document.getElementById('buy').addEventListener('click', () => {
    analytics.track('Checkout Started', { items: 2 }, () => {
      analytics.track('Order Completed', { orderId: 'o_1001', total: 42, currency: 'EUR' });
    });
  });
</script>
</body></html>`;

export default async function globalSetup() {
  const server = http.createServer((req, res) => {
    if (req.url !== '/') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.env.SHOP_URL = `http://127.0.0.1:${server.address().port}/`;
  return () => new Promise((resolve) => server.close(resolve));
}
