// The loop guard (shared/loop-guard.ts, issue 14): a webhook pointed at Sluice's own ingestion endpoint
// once turned one track call into 51,000 messages in 12 s. Real cores, real SQLite, real HTTP on loopback.
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { LOOP_HEADER, MAX_HOPS, parseLoopHeader, pointsAtIngest } from '../../../shared/loop-guard.ts';
import { basicAuth, post, startCore, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

const cores: TestCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
});

async function core(dataDir?: string): Promise<TestCore> {
  const c = await startCore(dataDir ? { dataDir } : {});
  cores.push(c);
  return c;
}

/** A destination whose webhook posts the whole message to `ingest`'s /v1/track with `writeKey`. */
function forwardTo(name: string, ingestUrl: string, writeKey: string, sourceName: string) {
  return {
    name,
    sources: [sourceName],
    webhooks: [{ url: `${ingestUrl}/v1/track`, headers: { Authorization: basicAuth(writeKey) } }],
    options: { bodyShape: 'full' as const, concurrency: 8 },
  };
}

const settled = (c: TestCore) => c.deliveries.waitingCount() === 0;

describe('loop guard', () => {
  it('two destinations posting back to this Sluice: the loop stops at once, the message is stored once, nothing else is lost', async () => {
    const c = await core();
    const source = c.sources.list()[0]!;
    c.saveDestination(forwardTo('back-1', c.ingestUrl, c.writeKey, source.name));
    c.saveDestination(forwardTo('back-2', c.ingestUrl, c.writeKey, source.name));
    expect(c.configWarnings()).toHaveLength(2);
    expect(c.configWarnings()[0]).toMatch(/destination "back-1", webhook 1 .* own ingestion endpoint/);
    c.saveDestination({ name: 'forward-back', sources: [source.name], kind: 'tracking-api', trackingApi: { url: c.ingestUrl.replace('127.0.0.1', 'localhost'), writeKey: c.writeKey } } as never);
    expect(c.configWarnings()[2]).toMatch(/^destination "forward-back" \(forwards to http:\/\/localhost:\d+\) posts to this Sluice's own ingestion endpoint/);
    await c.operations['destinations.delete']({ id: c.destinations.byName('forward-back')!.id, dryRun: false });

    const res = await post(c, '/v1/track', { userId: 'u_1', event: 'Loop Me' });
    expect(res.status).toBe(200);
    const deliveries = await until(() => {
      const ds = c.deliveries.forMessage(c.messages.list()[0]!.id);
      return ds.length === 2 && ds.every((d) => d.status === 'failed') ? ds : undefined;
    });
    await new Promise((r) => setTimeout(r, 300)); // a loop, were there one, would show by now
    expect(c.messages.list()).toHaveLength(1);
    for (const delivery of deliveries) {
      expect(delivery.attemptCount).toBe(1); // a 4xx is final: not retried
      const [attempt] = c.deliveries.attempts(delivery.id);
      expect(attempt).toMatchObject({ responseStatus: 409, outcome: 'final' });
      expect(JSON.parse(attempt!.responseBody!).error.code).toBe('loop_detected');
      expect(attempt!.errorMessage).toMatch(/^refused by the loop guard \(409 loop_detected\): this request was sent by this Sluice and came back to it/);
      expect(delivery.lastError).toBe(attempt!.errorMessage);
      expect((attempt!.requestHeaders as Record<string, string>)[LOOP_HEADER]).toMatch(/^sl_[A-Za-z0-9_-]{12}$/);
    }

    // A message from a client (no loop header) is still accepted, while the loop is refused.
    expect((await post(c, '/v1/track', { userId: 'u_2', event: 'Fine' })).status).toBe(200);
    await until(() => c.messages.list().length === 2 && settled(c));
    expect(c.messages.list()).toHaveLength(2);
  });

  it('the id survives a restart: deliveries queued before it are still refused, under the same id', async () => {
    const first = await core();
    const dataDir = first.dataDir;
    const source = first.sources.list()[0]!;
    first.saveDestination(forwardTo('back', first.ingestUrl, first.writeKey, source.name));
    expect((await post(first, '/v1/track', { userId: 'u_1', event: 'Before' })).status).toBe(200);
    const before = await until(() => {
      const [d] = first.deliveries.forMessage(first.messages.list()[0]!.id);
      return d?.status === 'failed' ? d : undefined;
    });
    const id = (first.deliveries.attempts(before.id)[0]!.requestHeaders as Record<string, string>)[LOOP_HEADER];
    first.delivery.setHeld(true);
    expect((await post(first, '/v1/track', { userId: 'u_1', event: 'Queued' })).status).toBe(200);
    await until(() => first.messages.list().length === 2);
    await first.close();
    cores.splice(cores.indexOf(first), 1);
    try {
      // The webhook names the old port: point it at the new one after the restart, as a user would.
      const second = await startCore({ dataDir });
      try {
        second.saveDestination(forwardTo('back', second.ingestUrl, second.writeKey, source.name));
        const queued = second.messages.list().find((m) => m.event === 'Queued')!;
        const after = await until(() => {
          const [d] = second.deliveries.forMessage(queued.id);
          return d?.status === 'failed' ? d : undefined;
        });
        const [attempt] = second.deliveries.attempts(after.id);
        expect(attempt!.responseStatus).toBe(409);
        expect((attempt!.requestHeaders as Record<string, string>)[LOOP_HEADER]).toBe(id);
        expect(second.messages.list()).toHaveLength(2);
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a chain of two Sluices: A → B is delivered, B → A is refused; B passes on what it came through', async () => {
    const a = await core();
    const b = await core();
    const aSource = a.sources.list()[0]!;
    const bSource = b.sources.list()[0]!;
    a.saveDestination(forwardTo('to-b', b.ingestUrl, b.writeKey, aSource.name));
    b.saveDestination(forwardTo('to-a', a.ingestUrl, a.writeKey, bSource.name));
    expect(a.configWarnings()).toEqual([]);

    expect((await post(a, '/v1/track', { userId: 'u_1', event: 'Round Trip' })).status).toBe(200);
    await until(() => b.messages.list().length === 1 && settled(a) && settled(b));
    await new Promise((r) => setTimeout(r, 300));
    expect(a.messages.list()).toHaveLength(1);
    expect(b.messages.list()).toHaveLength(1);
    const [toB] = a.deliveries.forMessage(a.messages.list()[0]!.id);
    expect(toB!.status).toBe('delivered');
    const aId = (a.deliveries.attempts(toB!.id)[0]!.requestHeaders as Record<string, string>)[LOOP_HEADER]!;
    const [toA] = b.deliveries.forMessage(b.messages.list()[0]!.id);
    expect(toA!.status).toBe('failed');
    const [attempt] = b.deliveries.attempts(toA!.id);
    const chain = (attempt!.requestHeaders as Record<string, string>)[LOOP_HEADER] as string;
    expect(chain.split(', ')).toEqual([aId, expect.stringMatching(/^sl_/)]);
    expect(chain.split(', ')[1]).not.toBe(aId);
    expect(JSON.parse(attempt!.responseBody!).error.code).toBe('loop_detected');
  });

  it(`more than ${MAX_HOPS} Sluices in the header is refused (too_many_hops); malformed entries are ignored`, async () => {
    const c = await core();
    const ids = Array.from({ length: MAX_HOPS + 1 }, (_, i) => `sl_other${i}`);
    const refused = await post(c, '/v1/track', { userId: 'u_1', event: 'Far' }, { headers: { [LOOP_HEADER]: ids.join(', ') } });
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'too_many_hops' });
    const accepted = await post(c, '/v1/track', { userId: 'u_1', event: 'Near' }, { headers: { [LOOP_HEADER]: ids.slice(1).join(', ') } });
    expect(accepted.status).toBe(200);
    const junk = await post(c, '/v1/track', { userId: 'u_1', event: 'Junk' }, { headers: { [LOOP_HEADER]: 'no spaces allowed!, , ' } });
    expect(junk.status).toBe(200);
    await until(() => c.messages.list().length === 2);
    expect(c.messages.list().map((m) => m.event).sort()).toEqual(['Junk', 'Near']);
  });

  it('a static header may not set Sluice-Loop', async () => {
    const c = await core();
    expect(() =>
      c.saveDestination({ name: 'x', webhooks: [{ url: 'http://127.0.0.1:9/hook', headers: { 'sluice-loop': 'sl_x' } }] }),
    ).toThrow(/set by Sluice/);
  });
});

describe('parseLoopHeader and pointsAtIngest', () => {
  it('parses ids, drops malformed ones, caps the list', () => {
    expect(parseLoopHeader('sl_a, sl_b,sl_c')).toEqual(['sl_a', 'sl_b', 'sl_c']);
    expect(parseLoopHeader(['sl_a', 'sl_b'])).toEqual(['sl_a', 'sl_b']);
    expect(parseLoopHeader('a b, ,x')).toEqual(['x']);
    expect(parseLoopHeader(Array.from({ length: 100 }, (_, i) => `s${i}`).join(','))).toHaveLength(MAX_HOPS + 1);
    expect(parseLoopHeader(undefined)).toEqual([]);
  });

  it('recognizes the ingestion endpoint under its loopback names, not another port or scheme', () => {
    const ingest = 'http://127.0.0.1:8787';
    for (const url of ['http://127.0.0.1:8787/v1/track', 'http://localhost:8787/v1/batch', 'http://[::1]:8787/x', 'http://127.0.0.2:8787/', 'http://app.localhost:8787/']) {
      expect(pointsAtIngest(url, ingest), url).toBe(true);
    }
    for (const url of ['http://127.0.0.1:8788/v1/track', 'https://127.0.0.1:8787/', 'http://example.com:8787/', 'not a url']) {
      expect(pointsAtIngest(url, ingest), url).toBe(false);
    }
  });
});

