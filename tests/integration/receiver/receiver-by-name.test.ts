// The built-in receiver named rather than addressed (issue 24, point 9): `sluice://receiver/<hook>` posts
// to the receiver wherever it listens; destinations stored with its address (http://127.0.0.1:<port>/…)
// keep reaching it after a start on another port; a loopback URL that was never the receiver's stays
// as it is. Real cores on one data folder, real receivers, sluice/testing as a test suite uses it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore, type Core } from '../../../electron/core/index.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { startSluice, type Sluice } from '../../../electron/testing/index.ts';
import { post, tempDir } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

const receiver = receiversClosedAfterEach();
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const CONFIG = {
  sources: [{ name: 'app', writeKey: 'wk_app', kind: 'server' }],
  destinations: [{ name: 'named', sources: ['app'], sharedSecret: 'named-secret', webhooks: [{ url: 'sluice://receiver/named' }] }],
};

async function start(dataDir: string): Promise<Core> {
  return createCore({ dataDir, ingestPort: 0, receiverPort: 0, host: '127.0.0.1', config: configFileSchema.parse(CONFIG) });
}

/** A server that holds a port and records what reaches it (a stranger where the receiver was). */
async function holdPort(port: number): Promise<{ paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    req.resume();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  return { paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the built-in receiver by name', () => {
  it('a relay started twice on different receiver ports: every destination made for the receiver still reaches it, signed', async () => {
    const dataDir = tempDir('sluice-receiver-name-');
    const mine = await receiver(); // the user's own server on loopback, with a /hooks/ path too
    const first = await start(dataDir);
    const firstPort = Number(new URL(first.receiver.url).port);
    // As made before the receiver could be named: its address in the URL (typed from the Receiver view)...
    first.saveDestination({ name: 'typed', sources: ['app'], sharedSecret: 'typed-secret', webhooks: [{ url: first.receiver.hookUrl('typed') }] });
    // ...the stream's "Send sample events" destination of an older store, at a port no start recorded...
    first.saveDestination({ name: 'Built-in receiver', sources: ['app'], sharedSecret: 'demo-secret', webhooks: [{ url: 'http://localhost:9/hooks/demo' }] });
    // ...and a server of the user's that is not the receiver.
    first.saveDestination({ name: 'mine', sources: ['app'], webhooks: [{ url: `${mine.url}/hooks/mine` }] });
    await first.close();

    // Something else takes the receiver's old port: nothing may be sent there any more.
    const stranger = await holdPort(firstPort);
    closers.push(stranger.close);
    const second = await start(dataDir);
    closers.push(() => second.close());
    expect(second.receiver.url).not.toBe(first.receiver.url);

    const urls = Object.fromEntries(second.destinations.list().map((d) => [d.name, d.webhooks.map((w) => w.url)]));
    expect(urls).toEqual({
      named: ['sluice://receiver/named'],
      typed: ['sluice://receiver/typed'],
      'Built-in receiver': ['sluice://receiver/demo'],
      mine: [`${mine.url}/hooks/mine`],
    });

    expect((await post({ ingestUrl: second.ingestUrl, writeKey: 'wk_app' }, '/v1/track', { userId: 'u_1', event: 'Order Completed' })).status).toBe(200);
    const delivered = await second.queries.waitForDeliveries({ status: 'delivered' }, { count: 4, timeoutMs: 10_000 });
    const verdicts = Object.fromEntries(second.receiver.inbox().map((entry) => [entry.hook, entry.signature]));
    expect(verdicts).toEqual({ named: 'valid', typed: 'valid', demo: 'valid' });
    expect(mine.received[0]!.path).toBe('/hooks/mine');
    expect(stranger.paths).toEqual([]);
    // Each attempt keeps the URL as the destination names it.
    const attempts = delivered.flatMap((d) => d.attempts);
    expect(attempts.map((a) => a.url).sort()).toEqual([`${mine.url}/hooks/mine`, 'sluice://receiver/demo', 'sluice://receiver/named', 'sluice://receiver/typed']);
  });

  it('refuses a sluice: URL that names no hook, saying the form it takes', async () => {
    const dataDir = tempDir('sluice-receiver-name-');
    const core = await start(dataDir);
    closers.push(() => core.close());
    for (const url of ['sluice://receiver/', 'sluice://elsewhere/demo', 'sluice://receiver/a/b']) {
      expect(() => core.saveDestination({ name: 'bad', sources: ['app'], webhooks: [{ url }] })).toThrow(
        /webhooks\[0\]\.url: a sluice: URL names a hook of the built-in receiver: sluice:\/\/receiver\/<hook name>, e\.g\. sluice:\/\/receiver\/demo/,
      );
    }
    // A Tracking API is a real server: the built-in receiver is no Tracking API.
    expect(() => core.saveDestination({ name: 'fwd', sources: ['app'], kind: 'tracking-api', trackingApi: { url: 'sluice://receiver/demo', writeKey: 'k' } })).toThrow(
      /trackingApi\.url: must use http or https, not sluice/,
    );
  });

  it('sluice/testing: a config naming the receiver gets a signed delivery, with no server of the test’s own', async () => {
    const sluice: Sluice = await startSluice({
      config: {
        sources: [{ name: 'app', writeKey: 'wk_app' }],
        destinations: [{ name: 'orders', sources: ['app'], sharedSecret: 'orders-secret', webhooks: [{ url: 'sluice://receiver/orders' }] }],
      },
    });
    closers.push(() => sluice.close());
    expect((await post({ ingestUrl: sluice.ingestUrl, writeKey: 'wk_app' }, '/v1/track', { userId: 'u_7', event: 'Order Completed', properties: { total: 42 } })).status).toBe(200);
    const [delivery] = await sluice.waitForDeliveries({ destination: 'orders' }, { status: 'delivered' });
    expect(delivery!.attempts.map((a) => [a.url, a.status])).toEqual([['sluice://receiver/orders', 200]]);
    const [request] = await sluice.received('orders');
    expect(request).toMatchObject({ hook: 'orders', signature: 'valid', status: 200, body: delivery!.body });
    expect(request!.headers['x-signature']).toMatch(/^[0-9a-f]{40}$/);
    expect(await sluice.received('elsewhere')).toEqual([]);
  });
});
