// Fault injection at the ingestion endpoint (issue 27, point 3): a real core on loopback, plain HTTP
// requests, an injected clock for `forMs`. The faults are added through the core's operations (the
// contract's `faults.*` channels), as the HTTP API and sluice/testing do.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { invoke } from '../../../electron/core/api/contract-handlers.ts';
import type { FaultsView, FaultView } from '../../../shared/channels/faults.ts';
import { basicAuth, post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function addFault(c: TestCore, fault: unknown): Promise<FaultView> {
  const result = await invoke(c.operations, 'faults.ingest', fault);
  if (!result.ok) throw new Error(result.error.message);
  return result.value as FaultView;
}
const list = (c: TestCore) => c.operations['faults.list']({}) as FaultsView;
const track = (c: TestCore, messageId: string, path = '/v1/track') => post(c, path, { userId: 'u1', event: 'Faulted?', messageId });
const storedIds = (c: TestCore) => storedMessages(c).map((m) => m.messageId);

/** Resolves once the fault has been applied to `count` requests (a request it holds has arrived): told by the core's faults.changed. */
async function applied(c: TestCore, id: number, count: number): Promise<void> {
  while ((list(c).faults.find((f) => f.id === id)?.applied ?? 0) < count) {
    await new Promise<void>((resolve) => {
      const off = c.bus.on('faults.changed', () => (off(), resolve()));
    });
  }
}

describe('an injected status', () => {
  it('answers 503 `times` requests with a JSON error, stores none of them, records each, then stores the next once', async () => {
    core = await startCore({ config: { sources: [{ name: 'shop', writeKey: 'wk_shop', kind: 'web' }], destinations: [] } });
    core.writeKey = 'wk_shop';
    const fault = await addFault(core, { status: 503, times: 2 });
    expect(fault).toMatchObject({ status: 503, times: 2, applied: 0, path: null, endsAt: null });
    const body = JSON.stringify({ userId: 'u1', event: 'Faulted?', messageId: 'm-1' });
    for (const attempt of [1, 2]) {
      const answer = await post(core, '/v1/track', body);
      expect(answer, `attempt ${attempt}`).toMatchObject({ status: 503, json: { success: false, error: { code: 'fault_injected', message: expect.stringMatching(/not stored/) } } });
      expect(answer.headers['retry-after']).toBeUndefined();
    }
    expect(list(core).faults).toEqual([]); // used up
    expect((await post(core, '/v1/track', body)).status).toBe(200);
    expect(storedIds(core)).toEqual(['m-1']);
    expect(storedMessages(core, 'all')).toHaveLength(1); // no rejected entry for the faulted ones either
    const { faulted } = list(core);
    expect(faulted).toHaveLength(2);
    for (const entry of faulted) {
      expect(entry).toMatchObject({ path: '/v1/track', source: 'shop', faultId: fault.id, outcome: 'answered', status: 503, delayMs: null, bytes: Buffer.byteLength(body), retryCount: null });
    }
  });

  it('sends Retry-After with a 429, and names the source a body-keyed request (analytics.js) gives', async () => {
    core = await startCore();
    await addFault(core, { status: 429, retryAfter: 7, times: 1 });
    const answer = await post(core, '/v1/t', { writeKey: core.writeKey, userId: 'u1', event: 'E', messageId: 'm-1' }, { writeKey: null, contentType: 'text/plain', headers: { 'x-retry-count': '2' } });
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('7');
    expect(list(core).faulted).toEqual([expect.objectContaining({ path: '/v1/t', source: core.sources.list()[0]!.name, status: 429, retryCount: 2 })]);
    expect(storedIds(core)).toEqual([]);
  });

  it('applies only to the Tracking API endpoints, and to the one its path names (a one-letter path counts as its endpoint)', async () => {
    core = await startCore();
    await addFault(core, { status: 500, path: '/v1/batch' });
    expect((await request(`${core.ingestUrl}/health`)).statusCode).toBe(200);
    const settings = await request(`${core.ingestUrl}/v1/projects/${core.writeKey}/settings`);
    expect(settings.statusCode).toBe(200);
    await settings.body.text();
    expect((await track(core, 'single')).status).toBe(200);
    expect((await post(core, '/v1/batch', { batch: [{ type: 'track', userId: 'u', event: 'E', messageId: 'b-1' }] })).status).toBe(500);
    expect((await post(core, '/v1/b', { batch: [{ type: 'track', userId: 'u', event: 'E', messageId: 'b-2' }] })).status).toBe(500);
    expect(storedIds(core)).toEqual(['single']);
    expect(list(core).faulted.map((f) => f.path)).toEqual(['/v1/batch', '/v1/b']);
  });
});

describe('faults in turn', () => {
  it('runs faults in the order they were added: a 503, then a dropped connection, then as usual', async () => {
    core = await startCore();
    await addFault(core, { status: 503, times: 1 });
    await addFault(core, { drop: true, times: 1 });
    expect((await track(core, 'm-1')).status).toBe(503);
    // Closed without an answer: the client sees its connection end, no status.
    await expect(track(core, 'm-1')).rejects.toThrow(/closed|reset|socket/i);
    expect((await track(core, 'm-1')).status).toBe(200);
    expect(storedIds(core)).toEqual(['m-1']);
    expect(list(core).faulted.map((f) => f.outcome)).toEqual(['answered', 'dropped']);
  });
});

describe('forMs on the relay clock', () => {
  it('ends a fault once its time has run out on the injected clock, however many requests it met', async () => {
    let now = Date.parse('2026-11-29T10:00:00Z');
    core = await startCore({ clock: { now: () => now } });
    const fault = await addFault(core, { status: 503, forMs: 30_000 });
    expect(fault).toMatchObject({ endsAt: '2026-11-29T10:00:30.000Z', remainingMs: 30_000 });
    expect((await track(core, 'm-1')).status).toBe(503);
    now += 29_999;
    expect(list(core).faults).toEqual([expect.objectContaining({ remainingMs: 1, applied: 1 })]);
    expect((await track(core, 'm-1')).status).toBe(503);
    now += 1;
    expect(list(core).faults).toEqual([]);
    expect((await track(core, 'm-1')).status).toBe(200);
    expect(storedIds(core)).toEqual(['m-1']);
    expect(list(core).faulted.map((f) => f.at)).toEqual(['2026-11-29T10:00:00.000Z', '2026-11-29T10:00:29.999Z']);
  });
});

describe('a delay', () => {
  it('holds a request unstored until the delay ends (here: cut short by a clear), then stores it once', async () => {
    core = await startCore();
    const fault = await addFault(core, { delayMs: 60_000 });
    const held = track(core, 'slow-1');
    await applied(core, fault.id, 1);
    expect(storedIds(core)).toEqual([]); // arrived, held
    expect(core.operations['faults.clear']({ forget: false })).toEqual({ cleared: 1 });
    expect((await held).status).toBe(200);
    expect(storedIds(core)).toEqual(['slow-1']);
    expect(list(core).faulted).toEqual([expect.objectContaining({ outcome: 'delayed', delayMs: 60_000, status: null })]);
  });

  it('a client that hangs up during the delay is not stored (it sends the request again)', async () => {
    core = await startCore();
    const fault = await addFault(core, { delayMs: 60_000 });
    const abandon = new AbortController();
    const held = request(`${core.ingestUrl}/v1/track`, {
      method: 'POST',
      headers: { authorization: basicAuth(core.writeKey), 'content-type': 'application/json' },
      body: JSON.stringify({ userId: 'u1', event: 'E', messageId: 'gave-up' }),
      signal: abandon.signal,
    });
    await applied(core, fault.id, 1);
    abandon.abort();
    await expect(held).rejects.toThrow();
    await expect.poll(() => list(core!).faulted).toEqual([expect.objectContaining({ outcome: 'delayed', path: '/v1/track' })]);
    core.operations['faults.clear']({ forget: false });
    expect((await track(core, 'after')).status).toBe(200);
    expect(storedIds(core)).toEqual(['after']);
  });

  it('says at once that a request met it (faults.changed): a used-up fault leaves the list while its request is still held', async () => {
    core = await startCore();
    await addFault(core, { delayMs: 60_000, times: 1 });
    const changed = new Promise<FaultsView>((resolve) => {
      const off = core!.bus.on('faults.changed', () => (off(), resolve(list(core!))));
    });
    const held = track(core, 'held-1');
    // Without the announcement the inspector would show the fault active until the held request ends.
    expect((await changed).faults).toEqual([]);
    expect(storedIds(core)).toEqual([]);
    core.operations['faults.clear']({ forget: false });
    expect((await held).status).toBe(200);
  });

  it('a delay before a status answers that status after it', async () => {
    core = await startCore();
    await addFault(core, { delayMs: 20, status: 503, times: 1 });
    expect((await track(core, 'm-1')).status).toBe(503);
    expect(list(core).faulted).toEqual([expect.objectContaining({ outcome: 'answered', delayMs: 20, status: 503 })]);
    expect(storedIds(core)).toEqual([]);
  });

  it('close() does not wait for a held request: it is answered 503 shutting_down, unstored', async () => {
    core = await startCore();
    const fault = await addFault(core, { delayMs: 60_000 });
    const held = track(core, 'slow-1');
    await applied(core, fault.id, 1);
    const closing = core.close();
    expect(await held).toMatchObject({ status: 503, json: { error: { code: 'shutting_down' } } });
    await closing;
  });
});

describe('reset', () => {
  it('ends every fault and forgets the record of faulted requests', async () => {
    core = await startCore();
    await addFault(core, { status: 503 });
    expect((await track(core, 'm-1')).status).toBe(503);
    await core.reset();
    expect(list(core)).toEqual({ faults: [], faulted: [] });
    expect((await track(core, 'm-1')).status).toBe(200);
  });

  it('refuses a request a delay holds (503 reset): nothing of the test that ended is stored or recorded after it', async () => {
    core = await startCore();
    const fault = await addFault(core, { delayMs: 60_000 });
    const held = track(core, 'held-1');
    await applied(core, fault.id, 1);
    await core.reset();
    expect(await held).toMatchObject({ status: 503, json: { error: { code: 'reset' } } });
    expect(storedIds(core)).toEqual([]);
    expect(list(core)).toEqual({ faults: [], faulted: [] });
    // The next test's requests go through as usual.
    expect((await track(core, 'next-1')).status).toBe(200);
    expect(storedIds(core)).toEqual(['next-1']);
  });
});

describe('the record of faulted requests', () => {
  it('keeps the most recent 100', async () => {
    core = await startCore();
    await addFault(core, { status: 503, times: 103 });
    for (let i = 0; i < 103; i++) {
      const res = await request(`${core.ingestUrl}/v1/track`, {
        method: 'POST',
        headers: { authorization: basicAuth(core.writeKey), 'content-type': 'application/json', 'x-retry-count': String(i) },
        body: '{}',
      });
      await res.body.text();
    }
    const { faulted } = list(core);
    expect(faulted).toHaveLength(100);
    expect([faulted[0]!.retryCount, faulted.at(-1)!.retryCount]).toEqual([3, 102]);
  });
});
