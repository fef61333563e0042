// Fills a relay for the scale benchmark, from its own process: `users` identifies (one per user, with
// a plan trait), then track events spread over those users, posted to /v1/batch in batches of 500
// with 4 requests in flight. node scale-fill.ts <url> <writeKey> <count> <users>
// Prints a progress line to stderr every million messages, and one JSON line at the end.
import { Pool } from 'undici';

const [url, writeKey, countText, usersText] = process.argv.slice(2) as [string, string, string, string];
const count = Number(countText);
const users = Number(usersText);
const BATCH = 500;
const EVENTS = ['Order Completed', 'Product Viewed', 'Signed In', 'Cart Viewed', 'Checkout Started'];
const PLANS = ['free', 'pro', 'enterprise'];
const auth = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
const pool = new Pool(url, { connections: 4 });
const run = Date.now().toString(36);
const context = { library: { name: 'analytics-node', version: '6.2.0' }, ip: '203.0.113.7' };

function message(n: number): object {
  const at = new Date(Date.UTC(2026, 10, 1) + n * 10).toISOString();
  if (n < users) {
    const userId = `user_${n}`;
    return { type: 'identify', userId, messageId: `${run}-${n}`, timestamp: at, context, traits: { plan: PLANS[n % 3], email: `${userId}@example.com`, seats: 1 + (n % 50) } };
  }
  return {
    type: 'track',
    userId: `user_${(n * 7919) % users}`,
    event: EVENTS[Math.floor(n / 7) % EVENTS.length],
    messageId: `${run}-${n}`,
    timestamp: at,
    context,
    properties: { orderId: `o_${n}`, revenue: (n % 997) + 0.99, currency: 'USD', sku: `sku-${n % 4093}` },
  };
}

const t0 = performance.now();
let next = 0;
let posted = 0;
let reported = 0;
await Promise.all(
  Array.from({ length: 4 }, async () => {
    while (next < count) {
      const from = next;
      next = Math.min(count, next + BATCH);
      const batch = [];
      for (let n = from; n < next; n++) batch.push(message(n));
      const res = await pool.request({ path: '/v1/batch', method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch }) });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`the relay answered ${res.statusCode}: ${text}`);
      posted += batch.length;
      if (posted - reported >= 1_000_000) {
        reported = posted;
        const s = (performance.now() - t0) / 1000;
        process.stderr.write(`  filled ${posted.toLocaleString('en-US')} in ${s.toFixed(0)} s (${Math.round(posted / s).toLocaleString('en-US')} messages/s)\n`);
      }
    }
  }),
);
await pool.close();
process.stdout.write(`${JSON.stringify({ posted, elapsedMs: performance.now() - t0 })}\n`);
