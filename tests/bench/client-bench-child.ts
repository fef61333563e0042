// One client of the client benchmark, in its own process so that its memory is its own:
// N track() calls in a tight loop into the endpoint, then close; prints one JSON line of figures.

export interface ChildArgs {
  client: 'sluice' | 'segment';
  url: string;
  writeKey: string;
  events: number;
  flushAt: number;
}

export interface ChildFigures {
  client: ChildArgs['client'];
  events: number;
  /** From the first track() call to close() resolving (every batch answered or finally failed). */
  elapsedMs: number;
  /** How long the loop of track() calls took. */
  loopMs: number;
  /** Peak resident set size of this process (getrusage ru_maxrss). */
  peakRssMB: number;
  /** Errors the client reported (failed batches count once per batch). */
  errors: number;
  /** Messages the client reported as failed or dropped. */
  failedMessages: number;
  /** For our client, the times the loop waited for room in the queue (back-pressure). */
  waits: number;
}

const args = JSON.parse(process.argv[2]!) as ChildArgs;
// Events vary by number, not by numbers turned into strings: every `${i}` lands in V8's number-string
// cache, which keeps those strings alive across young-generation collections and makes V8 grow its
// young generation whatever the client — the loop would measure V8's cache, not the client.
const users = Array.from({ length: 5000 }, (_, i) => `user_${i}`);
const event = (i: number) => ({
  userId: users[i % 5000]!,
  event: 'Order Completed',
  properties: { orderId: i, revenue: (i % 997) + 0.99, currency: 'USD', coupon: i % 3 === 0 ? 'SPRING' : null },
});

let errors = 0;
let failedMessages = 0;
let waits = 0;
let loopMs: number;
let started: number;
// Only the client under test is loaded (so the other's modules do not count in its memory), and
// before the clock starts.
if (args.client === 'sluice') {
  // The built package, as users import it (a variable, so that type-checking a fresh clone, before
  // anything is built, takes the types from the sources instead).
  const builtClient: string = 'sluice/client';
  const { Client } = (await import(builtClient)) as typeof import('../../electron/client/index.ts');
  started = performance.now();
  const client = new Client(args.writeKey, {
    endpoint: args.url,
    flushAt: args.flushAt,
    onError: (error) => {
      errors++;
      failedMessages += error.messageIds.length;
    },
  });
  for (let i = 0; i < args.events; i++) {
    if (!client.hasRoom) {
      waits++;
      await client.waitForRoom();
    }
    client.track(event(i));
  }
  loopMs = performance.now() - started;
  await client.close();
} else {
  const { Analytics } = await import('@segment/analytics-node');
  started = performance.now();
  const analytics = new Analytics({ writeKey: args.writeKey, host: args.url, flushAt: args.flushAt });
  analytics.on('error', (error) => {
    errors++;
    failedMessages++;
    void error;
  });
  // analytics-node has no back-pressure: the loop queues everything, as an application's would.
  for (let i = 0; i < args.events; i++) analytics.track(event(i));
  loopMs = performance.now() - started;
  await analytics.closeAndFlush({ timeout: 30 * 60_000 });
}
const elapsedMs = performance.now() - started;
const figures: ChildFigures = {
  client: args.client,
  events: args.events,
  elapsedMs,
  loopMs,
  peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  errors,
  failedMessages,
  waits,
};
// BENCH_HEAP_SPACES=1: where the memory is at the end (V8 heap spaces, external, RSS), on stderr.
if (process.env.BENCH_HEAP_SPACES) {
  const { getHeapSpaceStatistics } = await import('node:v8');
  const spaces = getHeapSpaceStatistics().filter((s) => s.space_size > 0).map((s) => `${s.space_name} ${(s.space_size / 2 ** 20).toFixed(1)}`);
  console.error(spaces.join(', '), 'external', (process.memoryUsage().external / 2 ** 20).toFixed(1), 'rss', (process.memoryUsage().rss / 2 ** 20).toFixed(1));
}
process.stdout.write(`${JSON.stringify(figures)}\n`);
