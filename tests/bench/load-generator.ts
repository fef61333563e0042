// Load generator for the ingestion benchmark, run in its own process (see ingest.bench.ts).
// POSTs /v1/batch requests of 100 unique ~300-byte events over 8 connections with 32 in flight.
import { Pool } from 'undici';

interface Job {
  url: string;
  writeKey: string;
  warmupMs: number;
  durationMs: number;
  connections: number;
  inFlight: number;
  eventsPerRequest: number;
  /** 'violating': each event breaks the plans benchmark's plan twice (plans.bench.ts): revenue a string, an extra property. */
  variant?: 'violating';
}

const job = JSON.parse(process.argv[2]!) as Job;
const auth = `Basic ${Buffer.from(`${job.writeKey}:`).toString('base64')}`;
const pool = new Pool(job.url, { connections: job.connections, pipelining: Math.ceil(job.inFlight / job.connections) });
const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;
let counter = 0;

// ~300 bytes per event, each with its own messageId so nothing is deduplicated. The body is built
// once as a template and each request patches fixed-width counters into a copy, so the generator
// stays cheap and the server, not the generator, is what gets measured.
const ID_WIDTH = 12;
const slots: number[] = [];
const template = (() => {
  const parts: string[] = [];
  let text = '{"batch":[';
  for (let i = 0; i < job.eventsPerRequest; i++) {
    const head = `${i ? ',' : ''}{"type":"track","messageId":"${run}-`;
    text += head;
    slots.push(Buffer.byteLength(text));
    text +=
      '0'.repeat(ID_WIDTH) +
      `","userId":"user_${i % 50}","event":"Order Completed",` +
      (job.variant === 'violating'
        ? `"properties":{"orderId":"o_${i}","revenue":"${(i % 97) + 0.99}","currency":"USD","coupon":"SUMMER","note":"x",`
        : `"properties":{"orderId":"o_${i}","revenue":${(i % 97) + 0.99},"currency":"USD","coupon":"SUMMER",`) +
      `"products":[{"sku":"sku_${i % 32}","qty":2}]},"timestamp":"2026-11-21T10:00:00.000Z",` +
      `"context":{"library":{"name":"bench","version":"1.0.0"}}}`;
  }
  parts.push(text, '],"sentAt":"2026-11-21T10:00:00.500Z"}');
  return Buffer.from(parts.join(''));
})();

function body(): Buffer {
  const out = Buffer.from(template);
  for (const slot of slots) out.write(String(counter++).padStart(ID_WIDTH, '0'), slot, 'latin1');
  return out;
}

const latencies: number[] = [];
let accepted = 0;
let failed = 0;
let measuring = false;
let stop = false;

async function worker(): Promise<void> {
  while (!stop) {
    const started = performance.now();
    try {
      const { statusCode, body: res } = await pool.request({
        path: '/v1/batch',
        method: 'POST',
        // undici pipelines only idempotent, non-blocking requests; without these a POST waits for
        // the one before it on its connection and "32 in flight" would really be 8.
        idempotent: true,
        blocking: false,
        headers: { 'content-type': 'application/json', authorization: auth },
        body: body(),
      });
      await res.text();
      if (statusCode === 200) {
        accepted += job.eventsPerRequest;
        if (measuring) latencies.push(performance.now() - started);
      } else failed++;
    } catch {
      failed++;
    }
  }
}

const workers = Array.from({ length: job.inFlight }, () => worker());
await new Promise((r) => setTimeout(r, job.warmupMs));
measuring = true;
const acceptedBefore = accepted;
const t0 = performance.now();
await new Promise((r) => setTimeout(r, job.durationMs));
const elapsed = performance.now() - t0;
const acceptedDuring = accepted - acceptedBefore;
measuring = false;
stop = true;
await Promise.all(workers);
await pool.close();
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
process.stdout.write(
  JSON.stringify({
    eventsPerSecond: acceptedDuring / (elapsed / 1000),
    p50Ms: pct(50),
    p99Ms: pct(99),
    acceptedTotal: accepted,
    failedRequests: failed,
  }) + '\n',
);
