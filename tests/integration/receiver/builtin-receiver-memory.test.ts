// The built-in receiver's inbox is bounded by what its entries hold — headers and hook names as well as
// bodies: a flood of requests with tiny bodies but big headers, or a new long hook name each time, used
// to be kept whole (only bodies were counted) and grew the process by hundreds of MB.
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { startCore, type TestCore } from '../../helpers/core.ts';
import { INBOX_BYTES, INBOX_LIMIT } from '../../../electron/core/receiver/builtin-receiver.ts';
import type { InboxEntry } from '../../../shared/receiver.ts';

let core: TestCore | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await core?.dispose();
  agent = core = undefined;
});

/** The test's own count of an entry's strings, in bytes at two a UTF-16 unit (no overhead counted). */
function stringBytes(entry: InboxEntry): number {
  let units = entry.hook.length + entry.body.length;
  for (const [name, value] of Object.entries(entry.headers)) {
    units += name.length + (Array.isArray(value) ? value.join('').length : (value ?? '').length);
  }
  return units * 2;
}

/** POSTs `count` requests, 50 at a time; `target(i)` gives each its hook URL and headers. */
async function flood(count: number, target: (i: number) => { url: string; headers: Record<string, string> }): Promise<void> {
  agent = new Agent({ connections: 50 });
  for (let start = 0; start < count; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, async (_, k) => {
        const { url, headers } = target(start + k);
        const res = await request(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json', ...headers }, dispatcher: agent });
        expect(res.statusCode).toBe(200);
        await res.body.dump();
      }),
    );
  }
}

function expectWithinBudget(c: TestCore, sent: number): void {
  const inbox = c.receiver.inbox();
  const usage = c.receiver.usage();
  const held = inbox.reduce((sum, entry) => sum + stringBytes(entry), 0);
  // What the entries hold, counted here without the receiver's help, is within the budget...
  expect(held).toBeLessThanOrEqual(INBOX_BYTES);
  // ...and the receiver's own accounting counts at least those strings, and stays within it too.
  expect(usage.bytes).toBeGreaterThanOrEqual(held);
  expect(usage.bytes).toBeLessThanOrEqual(INBOX_BYTES);
  expect(usage.entries).toBe(inbox.length);
  // Far below INBOX_LIMIT: it was the bytes, not the count, that let the oldest go.
  expect(inbox.length).toBeLessThan(INBOX_LIMIT);
  expect(usage.evicted).toBe(sent - inbox.length);
  expect(usage.evicted).toBeGreaterThan(sent / 10);
  // The newest are kept, in order, with nothing missing between them.
  const ids = inbox.map((e) => e.id);
  expect(ids.at(-1)).toBe(sent);
  expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => sent - ids.length + 1 + i));
  // The budget is used, not wasted: dropping stopped once the rest fitted.
  expect(usage.bytes).toBeGreaterThan(INBOX_BYTES * 0.9);
}

describe('built-in receiver memory', () => {
  it('counts headers: 3,000 requests with 14 KB of headers and a 2-byte body stay within the inbox budget', async () => {
    const c = (core = await startCore());
    const pad: Record<string, string> = {};
    for (let h = 0; h < 14; h++) pad[`x-pad-${h}`] = 'h'.repeat(1_000);
    const sent = 3_000; // ~84 MB of headers at two bytes a character: more than the budget
    await flood(sent, () => ({ url: c.receiver.hookUrl('flood'), headers: pad }));
    expect(c.receiver.inbox().at(-1)!.headers['x-pad-13']).toBe('h'.repeat(1_000)); // headers are kept whole
    expectWithinBudget(c, sent);
  });

  it('counts hook names: 3,500 requests to as many 12 KB hook names stay within the inbox budget', async () => {
    const c = (core = await startCore());
    const sent = 3_500; // ~84 MB of hook names
    const hook = (i: number) => `h${i}-${'n'.repeat(12_000)}`;
    await flood(sent, (i) => ({ url: c.receiver.hookUrl(hook(i)), headers: {} }));
    expect(c.receiver.inbox().at(-1)!.hook).toBe(hook(sent - 1));
    expect(new Set(c.receiver.inbox().map((e) => e.hook)).size).toBe(c.receiver.inbox().length);
    expectWithinBudget(c, sent);
  });
});
