// Load for the UI benchmark, run in its own process (see ui.bench.ts) so the posting does not share
// the core's event loop or the page's numbers.
//   node ui-load.ts <url> <writeKey> prestore <count>          — as fast as 4 parallel posters go
//   node ui-load.ts <url> <writeKey> stream <perSecond> <seconds> — batches of 500 on a fixed schedule
// Prints one JSON line: { posted, failed, elapsedMs, behindMs }.
import { Pool } from 'undici';

const [url, writeKey, mode, a, b] = process.argv.slice(2) as [string, string, string, string, string?];
const auth = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
const pool = new Pool(url, { connections: 4 });
const BATCH = 500;
const run = `${mode}-${process.pid.toString(36)}${Date.now().toString(36)}`;
let counter = 0;
let posted = 0;
let failed = 0;

function body(): string {
  const batch = Array.from({ length: BATCH }, () => {
    const n = counter++;
    return {
      type: 'track',
      userId: `user_${n % 5000}`,
      event: mode === 'stream' ? 'Live Event' : 'Stored Event',
      messageId: `${run}-${n}`,
      properties: { orderId: `o_${n}`, revenue: (n % 997) + 0.99, currency: 'USD', sentAt_ms: Date.now() },
      timestamp: '2026-11-21T10:00:00.000Z',
    };
  });
  return JSON.stringify({ batch });
}

async function postOne(): Promise<void> {
  try {
    const res = await pool.request({
      path: '/v1/batch',
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body(),
    });
    await res.body.dump();
    if (res.statusCode === 200) posted += BATCH;
    else failed++;
  } catch {
    failed++;
  }
}

const t0 = performance.now();
let behindMs = 0;
if (mode === 'prestore') {
  const batches = Math.ceil(Number(a) / BATCH);
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < batches) {
        next++;
        await postOne();
      }
    }),
  );
} else {
  const perSecond = Number(a);
  const seconds = Number(b);
  const total = Math.round((perSecond * seconds) / BATCH);
  const every = 1000 / (perSecond / BATCH);
  const inFlight: Promise<void>[] = [];
  for (let k = 0; k < total; k++) {
    const due = t0 + k * every;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    else behindMs = Math.max(behindMs, -wait);
    inFlight.push(postOne());
  }
  await Promise.all(inFlight);
}
await pool.close();
process.stdout.write(`${JSON.stringify({ posted, failed, elapsedMs: performance.now() - t0, behindMs })}\n`);
