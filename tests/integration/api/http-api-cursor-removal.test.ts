// Paging and waits after the newest messages are removed (a clear, a purge), over the HTTP API against a
// real core and API server on loopback: SQLite gives those ids again (messages has no AUTOINCREMENT), so a
// page's cursor past what is left is refused (409 stale_cursor, as after a reset) rather than skipping the
// messages that take them, and a wait for messages after a sequence counts them. Before 2026-12-01 the
// cursor read on past them, and the wait timed out.
import { expect, it } from 'vitest';
import { closedAfterEach, relayWithApi } from '../../helpers/api-host.ts';
import { post } from '../../helpers/core.ts';
import { startReceiver } from '../../helpers/receiver.ts';

const closing = closedAfterEach();

async function setup() {
  const { core, api: call } = await relayWithApi(closing);
  const api = (path: string, body?: unknown) => call<{ next?: string | null; messages?: { messageId: string; sequence: number }[]; error?: { code: string } }>(path, body);
  const track = async (event: string, messageId: string) => expect((await post(core, '/v1/track', { userId: 'u', event, messageId })).status).toBe(200);
  return { core, api, track };
}

it("refuses a page's cursor past the messages a clear removed, and a wait after a sequence counts the messages that take their ids", async () => {
  const { core, api, track } = await setup();
  for (const id of ['m1', 'm2', 'm3']) await track('Old', id);
  const stored = await api('/messages/wait', { filter: { event: 'Old' }, count: 3, timeoutMs: 5_000 });
  const last = stored.json.messages!.at(-1)!.sequence;
  const first = await api('/messages?limit=2');
  expect(first.json.next).toBeTruthy();
  const waiting = api('/messages/wait', { filter: { event: 'New' }, afterSequence: last, timeoutMs: 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 100)); // the wait is pending

  await core.operations['storage.clear']({ scope: { all: true }, dryRun: false });
  await track('New', 'n1'); // takes id 1 again
  const waited = await waiting;
  expect(waited.status).toBe(200);
  expect(waited.json.messages!.map((m) => m.messageId)).toEqual(['n1']);
  const after = await api(`/messages?after=${encodeURIComponent(first.json.next!)}`);
  expect(after.status).toBe(409);
  expect(after.json.error!.code).toBe('stale_cursor');
  expect((await api('/messages')).json.messages!.map((m) => m.messageId)).toEqual(['n1']);
});

it('keeps a cursor when what was removed left the newest messages (retention, a clear of older ones): no id is given again', async () => {
  const { core, api, track } = await setup();
  for (const [event, id] of [['A', 'a1'], ['B', 'b1'], ['B', 'b2']]) await track(event!, id!);
  await api('/messages/wait', { filter: { event: 'B' }, count: 2, timeoutMs: 5_000 });
  const first = await api('/messages?limit=2');
  await core.operations['storage.clear']({ scope: { filter: { event: 'A' } }, dryRun: false });
  const rest = await api(`/messages?after=${encodeURIComponent(first.json.next!)}`);
  expect(rest.status).toBe(200);
  expect(rest.json.messages!.map((m) => m.messageId)).toEqual(['b2']);
});

it("refuses a page of deliveries' cursor past the deliveries a clear removed (their ids are given again too)", async () => {
  const hook = await startReceiver();
  try {
    const { core, api } = await relayWithApi(closing, {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'crm', enabled: true, sources: ['web'], webhooks: [{ url: `${hook.url}/crm`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
    });
    const get = (path: string) => api<{ next?: string | null; error?: { code: string } }>(path);
    for (const id of ['d1', 'd2', 'd3']) expect((await post(core, '/v1/track', { userId: 'u', event: 'E', messageId: id })).status).toBe(200);
    await core.queries.waitForDeliveries({}, { status: 'delivered', count: 3 });
    const first = await get('/deliveries?limit=2');
    expect(first.json.next).toBeTruthy();
    await core.operations['storage.clear']({ scope: { all: true }, dryRun: false });
    expect((await post(core, '/v1/track', { userId: 'u', event: 'E', messageId: 'd4' })).status).toBe(200);
    await core.queries.waitForDeliveries({ messageId: 'd4' }, { status: 'delivered' });
    const after = await get(`/deliveries?after=${encodeURIComponent(first.json.next!)}`);
    expect(after.status).toBe(409);
    expect(after.json.error!.code).toBe('stale_cursor');
  } finally {
    await hook.close();
  }
});
