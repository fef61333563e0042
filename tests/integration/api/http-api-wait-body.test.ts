// A wait's body over the HTTP API (POST /api/v1/messages/wait, /deliveries/wait) against a real core and
// API server on loopback: a field the wait does not take — a filter's field put beside `filter`, `timeout`
// for `timeoutMs`, a destination beside the deliveries' filter — is a 400 naming it. Before 2026-12-01 it
// was left out, so `{"event": "Signed Up"}` waited for any message and a test of an event never sent
// passed; a timeoutMs that was no number became 0 or 1 ms, one over 5 minutes was cut without a word.
import { describe, expect, it } from 'vitest';
import { closedAfterEach, relayWithApi } from '../../helpers/api-host.ts';
import { post } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';

const receiver = receiversClosedAfterEach();
const closing = closedAfterEach();

async function setup() {
  const [a, b] = await Promise.all([receiver(), receiver()]);
  const destination = (name: string, url: string) => ({ name, enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url, headers: {} }], options: { bodyShape: 'full' as const, concurrency: 4 } });
  const { core, api: call } = await relayWithApi(closing, {
    sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [destination('a', `${a.url}/a`), destination('b', `${b.url}/b`)],
  });
  const api = (path: string, body: unknown) => call<{ error?: { code: string; message: string } }>(path, body);
  return { core, api };
}

describe("a wait's body", () => {
  it('refuses a field it does not take, naming it, rather than waiting for anything', async () => {
    const { core, api } = await setup();
    await post(core, '/v1/track', { userId: 'u', event: 'Page Viewed', messageId: 'p-1' });
    await api('/messages/wait', { filter: { messageId: 'p-1' }, timeoutMs: 5_000 });

    const beside = await api('/messages/wait', { event: 'Signed Up', timeoutMs: 300 });
    expect(beside.status).toBe(400);
    expect(beside.json.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/unknown option "event" \(a field of the filter: give it there\)/) });
    const misspelt = await api('/messages/wait', { filter: { event: 'Page Viewed' }, timeout: 20_000 });
    expect(misspelt.status).toBe(400);
    expect(misspelt.json.error!.message).toContain('did you mean timeoutMs?');
    const afterOnDeliveries = await api('/deliveries/wait', { filter: { messageId: 'p-1' }, afterSequence: 1, timeoutMs: 300 });
    expect(afterOnDeliveries.status).toBe(400);
    expect(afterOnDeliveries.json.error!.message).toContain('"afterSequence"');
    // A destination beside the deliveries' filter: before, the wait resolved on another destination's delivery.
    const destinationBeside = await api('/deliveries/wait', { status: 'delivered', destination: 'nope', timeoutMs: 300 });
    expect(destinationBeside.status).toBe(400);
    expect(destinationBeside.json.error!.message).toMatch(/unknown option "destination" \(a field of the filter/);
    // In the filter it is what it says: a destination by name.
    expect((await api('/deliveries/wait', { filter: { destination: 'b' }, status: 'delivered', timeoutMs: 5_000 })).status).toBe(200);
  });

  it('refuses a timeoutMs that is no number of ms, or over 5 minutes, rather than changing it', async () => {
    const { api } = await setup();
    for (const timeoutMs of [[], '', true, '5000', -1]) {
      const answer = await api('/messages/wait', { filter: { event: 'Never' }, timeoutMs });
      expect(answer.status, JSON.stringify(timeoutMs)).toBe(400);
      expect(answer.json.error!.message).toContain('timeoutMs');
    }
    const long = await api('/deliveries/wait', { filter: { event: 'Never' }, timeoutMs: 600_000 });
    expect(long.status).toBe(400);
    expect(long.json.error!.message).toContain('at most 300000');
  });

  it('refuses an origin no message has (a filter that matched nothing, and a wait that timed out)', async () => {
    const { api } = await setup();
    const answer = await api('/messages/wait', { filter: { origin: 'plans' }, timeoutMs: 300 });
    expect(answer.status).toBe(400);
    expect(answer.json.error!.message).toMatch(/filter.origin must be one of ingest, audience, plan/);
  });
});
