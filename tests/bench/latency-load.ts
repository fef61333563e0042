// The latency benchmark's background load, in its own process: `rate` track events per second as
// /v1/batch requests of `batch`, paced (not as fast as it can), at most `maxInFlight` requests
// outstanding — a tick that finds them all outstanding is counted as skipped, not queued, so a server
// that falls behind is not buried. 'mark' answers what was accepted so far (the rate between two marks);
// 'stop' stops it and answers what it did.
import { Pool } from 'undici';

const { url, writeKey, rate, batch, maxInFlight } = JSON.parse(process.argv[2]!) as { url: string; writeKey: string; rate: number; batch: number; maxInFlight: number };
const auth = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
const pool = new Pool(url, { connections: 4 });
const run = `bg-${process.pid.toString(36)}${Date.now().toString(36)}`;
const tickMs = (batch / rate) * 1000;
let counter = 0;
let inFlight = 0;
let sent = 0;
let accepted = 0;
let failed = 0;
let skipped = 0;
let stopping = false;
const pending = new Set<Promise<void>>();

function post(): void {
  const events = Array.from({ length: batch }, () => {
    const n = counter++;
    return { type: 'track', userId: `user_${n % 5000}`, event: 'Order Completed', messageId: `${run}-${n}`, properties: { orderId: `o_${n}`, revenue: (n % 997) + 0.99, currency: 'USD' }, timestamp: '2026-11-21T10:00:00.000Z' };
  });
  inFlight++;
  sent += batch;
  const done = pool
    .request({ path: '/v1/batch', method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ batch: events }) })
    .then(async (res) => {
      await res.body.dump();
      if (res.statusCode === 200) accepted += batch;
      else failed += batch;
    })
    .catch(() => {
      failed += batch;
    })
    .finally(() => {
      inFlight--;
      pending.delete(done);
    });
  pending.add(done);
}

const started = performance.now();
let ticks = 0;
process.on('message', (message) => {
  if (message === 'stop') stopping = true;
  if (message === 'mark') process.send!({ mark: { accepted, skipped, at: performance.now() } });
});
process.send!('started');
while (!stopping) {
  if (inFlight < maxInFlight) post();
  else skipped += batch;
  ticks++;
  const wait = started + ticks * tickMs - performance.now();
  await new Promise((r) => setTimeout(r, Math.max(0, wait)));
}
const elapsedMs = performance.now() - started;
await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 10_000))]);
process.send!({ sent, accepted, failed, skipped, unanswered: inFlight * batch, elapsedMs, perSecond: accepted / (elapsedMs / 1000) });
await pool.close().catch(() => {});
process.exit(0);
