// sluice/testing's startSluice (issue 15, point 1): a relay in the test's process, asked what was stored
// and delivered. Real cores on loopback, real SQLite files, Segment's own client library.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Analytics } from '@segment/analytics-node';
import { afterEach, describe, expect, it } from 'vitest';
import { SluiceClosedError, SluiceTimeoutError, startSluice, type Sluice } from '../../../electron/testing/index.ts';
import { post, tempDir } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

const receiver = receiversClosedAfterEach();
const open: Sluice[] = [];
afterEach(async () => {
  for (const sluice of open.splice(0)) await sluice.close();
});

async function start(options?: Parameters<typeof startSluice>[0]): Promise<Sluice> {
  const sluice = await startSluice(options);
  open.push(sluice);
  return sluice;
}

const CONFIG = {
  sources: [
    { name: 'web', writeKey: 'wk_web', kind: 'web' },
    { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
  ],
};

async function sendWithSegment(sluice: Sluice, writeKey: string, send: (analytics: Analytics) => void): Promise<void> {
  const analytics = new Analytics({ writeKey, host: sluice.ingestUrl, flushAt: 20, maxRetries: 0 });
  send(analytics);
  await analytics.closeAndFlush();
}

describe('startSluice', () => {
  it('starts on free loopback ports with a temporary folder, removed on close; the first source\'s write key', async () => {
    const sluice = await startSluice({ config: CONFIG });
    expect(sluice.ingestUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sluice.receiverUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sluice.writeKey).toBe('wk_web');
    expect(fs.existsSync(path.join(sluice.dataDir, 'sluice.db'))).toBe(true);
    // The HTTP API beside it, for a browser test or another process.
    expect(sluice.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    const stats = await fetch(`${sluice.apiUrl}/stats`, { headers: { authorization: `Bearer ${sluice.token}` } });
    expect(stats.status).toBe(200);
    expect((await fetch(`${sluice.apiUrl}/stats`)).status).toBe(401);
    await sluice.close();
    await expect(fetch(`${sluice.apiUrl}/stats`)).rejects.toThrow(); // closed with it
    expect(fs.existsSync(sluice.dataDir)).toBe(false);
    await sluice.close(); // twice is fine
  });

  it('takes a config file path, keeps a given data folder, and refuses a bad config naming the field', async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, 'sluice.json');
      fs.writeFileSync(file, JSON.stringify(CONFIG));
      const dataDir = path.join(dir, 'data');
      const sluice = await startSluice({ config: file, dataDir });
      expect(sluice.writeKey).toBe('wk_web');
      await sluice.close();
      expect(fs.existsSync(path.join(dataDir, 'sluice.db'))).toBe(true); // not ours to remove
      await expect(startSluice({ config: { sources: [{ name: 'web', writeKey: 'has space' }] } })).rejects.toThrow(/sources\[0\]\.writeKey: may contain only/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts from a script given with node --input-type=module -e (its worker threads do not inherit --input-type)', () => {
    const entry = path.resolve(import.meta.dirname, '../../../electron/testing/index.ts');
    const script = `const { startSluice } = await import(${JSON.stringify(entry)});
const sluice = await startSluice();
await fetch(sluice.ingestUrl + '/v1/track', { method: 'POST', headers: { authorization: 'Basic ' + btoa(sluice.writeKey + ':'), 'content-type': 'application/json' }, body: '{"userId":"u","event":"One-liner"}' });
const [m] = await sluice.waitForMessages({ event: 'One-liner' });
await sluice.close();
console.log(m.event);`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: run.status, stdout: run.stdout.trim(), stderr: run.stderr }).toEqual({ status: 0, stdout: 'One-liner', stderr: '' });
  });

  it('two in one process: their own ports, folders and messages', async () => {
    const [a, b] = await Promise.all([start({ config: CONFIG }), start({ config: CONFIG })]);
    expect(a.ingestUrl).not.toBe(b.ingestUrl);
    expect(a.dataDir).not.toBe(b.dataDir);
    await post({ ingestUrl: a.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u', event: 'Only A' });
    await a.waitForMessages({ event: 'Only A' });
    expect(await b.messages()).toEqual([]);
  });
});

describe('messages and filters', () => {
  it('every filter field, and partial deep matches on properties, traits and context', async () => {
    const sluice = await start({ config: CONFIG });
    await sendWithSegment(sluice, 'wk_web', (analytics) => {
      analytics.track({ userId: 'u_1', event: 'Order Completed', messageId: 'm-1', properties: { total: 42, items: [{ sku: 'a' }], coupon: { code: 'X', pct: 10 } }, context: { app: { build: 7 } } });
      analytics.track({ userId: 'u_2', event: 'Order Completed', messageId: 'm-2', properties: { total: 40 } });
      analytics.identify({ userId: 'u_1', messageId: 'm-3', traits: { plan: 'pro', address: { city: 'Lyon', postalCode: '69001' } } });
      analytics.page({ anonymousId: 'anon-1', name: 'Home', messageId: 'm-4' });
    });
    await sendWithSegment(sluice, 'wk_ios', (analytics) => analytics.screen({ userId: 'u_3', name: 'Cart', messageId: 'm-5' }));
    await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch: [{ type: 'track', userId: 'u_1', event: 42, messageId: 'bad-1' }, { type: 'track', userId: 'u_1', event: 'Again', messageId: 'm-1' }] });
    await sluice.waitForMessages({}, { count: 5 }); // accepted ones (the duplicate and the rejected one were stored before the post answered)

    const ids = async (filter: Parameters<Sluice['messages']>[0]) => (await sluice.messages(filter)).map((m) => m.messageId);
    expect(await ids({})).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5', 'bad-1', 'm-1']); // oldest first
    expect(await ids({ type: 'identify' })).toEqual(['m-3']);
    expect(await ids({ event: 'Order Completed' })).toEqual(['m-1', 'm-2']);
    expect(await ids({ userId: 'u_1', status: 'accepted' })).toEqual(['m-1', 'm-3']);
    expect(await ids({ anonymousId: 'anon-1' })).toEqual(['m-4']);
    expect(await ids({ source: 'ios' })).toEqual(['m-5']);
    expect(await ids({ messageId: 'm-2' })).toEqual(['m-2']);
    expect(await ids({ status: 'duplicate' })).toEqual(['m-1']);
    expect(await ids({ properties: { total: 42 } })).toEqual(['m-1']);
    expect(await ids({ properties: { coupon: { code: 'X' } } })).toEqual(['m-1']); // in part, deeply
    expect(await ids({ properties: { items: [{ sku: 'a' }] } })).toEqual(['m-1']); // arrays whole
    expect(await ids({ properties: { items: [] } })).toEqual([]);
    expect(await ids({ traits: { address: { city: 'Lyon' } } })).toEqual(['m-3']);
    expect(await ids({ context: { app: { build: 7 } } })).toEqual(['m-1']);
    expect(await ids({ context: { library: { name: '@segment/analytics-node' } }, event: 'Order Completed' })).toEqual(['m-1', 'm-2']);

    const [rejected] = await sluice.messages({ status: 'rejected' });
    expect(rejected).toMatchObject({ messageId: 'bad-1', event: 42, source: 'web', status: 'rejected', rejection: { code: expect.any(String), reason: expect.stringMatching(/event/) } });
    const [order] = await sluice.messages({ messageId: 'm-1', status: 'accepted' });
    expect(order).toMatchObject({ type: 'track', userId: 'u_1', source: 'web', rejection: null, receivedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(order!.properties).toEqual({ total: 42, items: [{ sku: 'a' }], coupon: { code: 'X', pct: 10 } }); // as received
  });

  it('refuses a filter it cannot mean, instead of matching nothing', async () => {
    const sluice = await start();
    await expect(sluice.messages({ evnt: 'Typo' } as never)).rejects.toThrow(/unknown filter field "evnt"; filter by type, event/);
    await expect(sluice.messages({ status: 'ok' } as never)).rejects.toThrow(/filter.status must be one of accepted, rejected, duplicate/);
    await expect(sluice.messages({ properties: 'x' } as never)).rejects.toThrow(/filter.properties must be an object/);
    await expect(sluice.waitForMessages({}, { count: 0 })).rejects.toThrow(/count must be a whole number/);
  });

  it('refuses an option it does not take, instead of dropping it: a dropped destination or status would resolve with the wrong delivery', async () => {
    const sluice = await start();
    await expect(sluice.waitForMessages({}, { timeout: 10 } as never)).rejects.toThrow(/^waitForMessages\(\): unknown option "timeout" \(did you mean timeoutMs\?\); it takes count, timeoutMs, afterSequence$/);
    await expect(sluice.waitForMessages({ messageId: 'm1' }, { status: 'duplicate' } as never)).rejects.toThrow(/^waitForMessages\(\): unknown option "status" \(a field of the filter: give it there\)/);
    await expect(sluice.waitForDeliveries({ event: 'Paid' }, { destination: 'crm', status: 'delivered' } as never)).rejects.toThrow(
      /^waitForDeliveries\(\): unknown option "destination" \(a field of the filter: give it there\); it takes count, timeoutMs, status$/,
    );
    await expect(sluice.waitForDeliveries({ event: 'Paid', status: 'failed' }, { status: 'delivered' })).rejects.toThrow(/^waitForDeliveries\(\): the filter's status \("failed"\) and the options' \("delivered"\) differ; give one$/);
    await expect(startSluice({ confg: CONFIG } as never)).rejects.toThrow(/^startSluice\(\): unknown option "confg"; it takes config, dataDir$/);
    await expect(sluice.coverage({ plna: 'web' } as never)).rejects.toThrow(/^coverage\(\): unknown option "plna"; it takes plan$/);
  });
});

describe('waiting', () => {
  it('resolves with a message that arrives after the wait began; count > 1 waits for all; concurrent waits each resolve', async () => {
    const sluice = await start({ config: CONFIG });
    const one = sluice.waitForMessages({ event: 'Signed Up' });
    const three = sluice.waitForMessages({ event: 'Clicked' }, { count: 3 });
    const other = sluice.waitForMessages({ event: 'Signed Up', userId: 'u_9' });
    let threeDone = false;
    void three.then(() => (threeDone = true));
    await sendWithSegment(sluice, 'wk_web', (analytics) => {
      analytics.track({ userId: 'u_9', event: 'Signed Up' });
      analytics.track({ userId: 'u_9', event: 'Clicked', properties: { n: 1 } });
      analytics.track({ userId: 'u_9', event: 'Clicked', properties: { n: 2 } });
    });
    expect((await one).map((m) => m.event)).toEqual(['Signed Up']);
    expect((await other)[0]!.userId).toBe('u_9');
    await new Promise((r) => setTimeout(r, 100));
    expect(threeDone).toBe(false); // two of three
    await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u_9', event: 'Clicked', properties: { n: 3 } });
    expect((await three).map((m) => m.properties)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    // Already stored: resolves at once.
    expect(await sluice.waitForMessages({ event: 'Clicked' }, { count: 2, timeoutMs: 0 })).toHaveLength(2);
  });

  it('a wait counts accepted messages unless it names a status: a rejected or duplicate copy does not make it pass', async () => {
    const sluice = await start({ config: CONFIG });
    await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_web' }, '/v1/batch', { batch: [{ type: 'track', userId: { not: 'an id' }, event: 'Broken', messageId: 'r-1' }] });
    const error = await sluice.waitForMessages({ event: 'Broken' }, { timeoutMs: 100 }).catch((e: Error) => e.message);
    expect(error).toMatch(/^waited 100 ms for 1 accepted message matching \{"event":"Broken"\}; 0 arrived \(1 stored in all\)\. Closest:\n {2}- track "Broken" .*\(rejected, r-1\): status: wanted "accepted", got "rejected"/);
    expect(await sluice.waitForMessages({ event: 'Broken', status: 'rejected' }, { timeoutMs: 100 })).toHaveLength(1);
  });

  it('a timeout says what was asked and lists the closest messages: same event with other properties, same user with other events', async () => {
    const sluice = await start({ config: CONFIG });
    await sendWithSegment(sluice, 'wk_web', (analytics) => {
      analytics.track({ userId: 'u_1', event: 'Order Completed', messageId: 'close-1', properties: { total: 40 } });
      analytics.track({ userId: 'u_1', event: 'Cart Viewed', messageId: 'close-2' });
      analytics.track({ userId: 'u_7', event: 'Unrelated', messageId: 'far' });
    });
    await sluice.waitForMessages({}, { count: 3 });
    const started = Date.now();
    const error = await sluice.waitForMessages({ event: 'Order Completed', userId: 'u_1', properties: { total: 42 } }, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(error).toBeInstanceOf(SluiceTimeoutError);
    const message = (error as Error).message;
    expect(message).toMatch(/^waited 200 ms for 1 accepted message matching \{"event":"Order Completed","userId":"u_1","properties":\{"total":42\}\}; 0 arrived \(3 stored in all\)\. Closest:/);
    expect(message).toContain('track "Order Completed" of "u_1" (accepted, close-1): properties.total: wanted 42, got 40');
    expect(message).toContain('(accepted, close-2): event: wanted "Order Completed", got "Cart Viewed"');
    expect(message).not.toContain('far');
    expect(message.indexOf('close-1')).toBeLessThan(message.indexOf('close-2')); // the closest first

    const unrelated = await sluice.waitForMessages({ event: 'Never Sent' }, { timeoutMs: 50 }).catch((e: Error) => e.message);
    expect(unrelated).toMatch(/; 0 arrived \(3 stored in all\)\. None comes close; the latest stored:\n {2}- track "Unrelated" of "u_7" \(accepted, far\)\n/);
    const nothing = await (await start()).waitForMessages({ event: 'X' }, { timeoutMs: 50 }).catch((e: Error) => e.message);
    expect(nothing).toMatch(/0 arrived \(0 stored in all\)\. Nothing was stored: is the client pointed at this Sluice, with its write key, and flushed\?$/);
  });
});

describe('closing with waits pending', () => {
  it('ends each pending wait at once with a SluiceClosedError, none later on the closed store, and refuses a wait asked after', async () => {
    const hook = await receiver();
    hook.fallback = { hang: true }; // the delivery never ends: its wait is pending when the relay closes
    const sluice = await startSluice({ config: { ...CONFIG, destinations: [{ name: 'hooks', sources: ['web'], webhooks: [{ url: hook.url }] }] } });
    await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { event: 'Paid', userId: 'u1', messageId: 'p1' });
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const settled = (p: Promise<unknown>) => p.then(() => 'resolved', (error: unknown) => error);
      // One with a match found already (1 of 2), one for a delivery that will not end, one with nothing yet.
      const waits = [
        settled(sluice.waitForMessages({ event: 'Paid' }, { count: 2, timeoutMs: 1_500 })),
        settled(sluice.waitForDeliveries({ event: 'Paid' }, { status: 'delivered', timeoutMs: 1_500 })),
        settled(sluice.waitForMessages({ event: 'Never' }, { timeoutMs: 1_500 })),
      ];
      await hook.waitFor(1);
      const closing = sluice.close(); // it waits for the hanging request's 5 s; the waits end as it starts
      const errors = await Promise.all(waits);
      expect(errors.map((e) => (e as Error).name)).toEqual(['SluiceClosedError', 'SluiceClosedError', 'SluiceClosedError']);
      expect((errors[0] as Error).message).toBe('Sluice was closed while this wait for 2 messages was pending (1 had matched): nothing more can arrive');
      expect((errors[1] as Error).message).toBe('Sluice was closed while this wait for 1 delivery was pending (0 had matched): nothing more can arrive');
      expect(errors[0]).toBeInstanceOf(SluiceClosedError);
      await expect(sluice.waitForMessages({ event: 'Paid' })).rejects.toBeInstanceOf(SluiceClosedError);
      await closing;
      // Past their deadlines: no timer of theirs fires on the closed store.
      await new Promise((resolve) => setTimeout(resolve, 1_700));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});

describe('reset', () => {
  it('forgets what was stored and received, keeps the configuration, and waits see only what comes after', async () => {
    const sluice = await start({ config: CONFIG });
    await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_ios' }, '/v1/track', { userId: 'u', event: 'Before', messageId: 'b-1' });
    await sluice.waitForMessages({ event: 'Before' });
    await sluice.reset();
    expect(await sluice.messages()).toEqual([]);
    const after = sluice.waitForMessages({ event: 'After' }, { timeoutMs: 2_000 });
    await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_ios' }, '/v1/track', { userId: 'u', event: 'After', messageId: 'a-1' });
    expect((await after).map((m) => [m.messageId, m.source])).toEqual([['a-1', 'ios']]); // the source is still there
    expect((await sluice.messages()).map((m) => m.messageId)).toEqual(['a-1']);
  });
});

describe('deliveries', () => {
  it('lists deliveries with their attempts and message, filtered by message, destination and status; waits for a status', async () => {
    const r = await receiver();
    r.script({ status: 503 });
    const sluice = await start({
      config: {
        ...CONFIG,
        destinations: [
          { name: 'local', sources: ['web'], webhooks: [{ url: `${r.url}/hook` }] },
          { name: 'mobile-only', sources: ['ios'], webhooks: [{ url: `${r.url}/ios` }] },
        ],
      },
    });
    await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u', event: 'Paid', messageId: 'p-1' });
    const [retrying] = await sluice.waitForDeliveries({ event: 'Paid' }, { status: 'retrying' });
    expect(retrying).toMatchObject({ destination: 'local', status: 'retrying', attemptCount: 1, message: { messageId: 'p-1', event: 'Paid' } });
    expect(retrying!.attempts).toEqual([expect.objectContaining({ url: `${r.url}/hook`, status: 503, outcome: 'retry', error: expect.stringMatching(/503/) })]);
    expect(await sluice.deliveries({ destination: 'mobile-only' })).toEqual([]);
    expect(await sluice.deliveries({ status: 'delivered' })).toEqual([]);
    const timeout = await sluice.waitForDeliveries({ event: 'Paid', status: 'delivered' }, { timeoutMs: 100 }).catch((e: Error) => e.message);
    expect(timeout).toMatch(/^waited 100 ms for 1 delivery matching .*; 0 matched \(1 in all: local: retrying \(the receiver answered 503; will retry\)\)$/);
  });
});
