// Holding deliveries through the contract (delivery.hold / delivery.state): while held a message's
// delivery stays pending and nothing reaches a real receiver; released, it is delivered. Every
// window hears `delivery.held` through the event stream. Real core, SQLite and receiver.
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreEvent, MessageSummary, Result } from '../../../shared/contract.ts';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { streamEvents } from '../../../electron/core/api/event-stream.ts';
import { post, startCore, waitForStored, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
let core: TestCore | undefined;
const offs: (() => void)[] = [];
afterEach(async () => {
  for (const off of offs.splice(0)) off();
  await core?.dispose();
  core = undefined;
});

function value<T>(result: Result<unknown>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as T;
}

describe('delivery.hold', () => {
  it('holds: the delivery stays pending and nothing is sent; resumed, it is delivered; every window is told', async () => {
    const hook = await receiver();
    core = await startCore({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: `${hook.url}/in`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
      },
    });
    core.writeKey = 'wk_web';
    const c = core;
    const handlers = createHandlers(c);
    const events: CoreEvent[] = [];
    offs.push(streamEvents(c.bus, (batch) => events.push(...batch), 5));

    expect(value(await invoke(handlers, 'delivery.state', {}))).toEqual({ held: false, waiting: 0 });
    expect(value(await invoke(handlers, 'delivery.hold', { held: true }))).toEqual({ held: true, waiting: 0 });
    expect(value(await invoke(handlers, 'delivery.hold', { held: true }))).toEqual({ held: true, waiting: 0 }); // again: no second event

    const stored = waitForStored(c, 1);
    expect((await post(c, '/v1/track', { userId: 'u_1', event: 'Held Order' })).status).toBe(200);
    const [message] = await stored;
    c.delivery.kick(); // as a settings change or a timer would: still nothing may start
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(hook.received).toHaveLength(0);
    expect(c.deliveries.forMessage(message!.id)).toMatchObject([{ status: 'pending', attemptCount: 0 }]);
    expect(value(await invoke(handlers, 'delivery.state', {}))).toEqual({ held: true, waiting: 1 });
    const listed = value<{ messages: MessageSummary[] }>(await invoke(handlers, 'messages.list', {})).messages;
    expect(listed[0]!.delivery).toMatchObject({ status: 'pending', attemptCount: 0 });

    expect(value(await invoke(handlers, 'delivery.hold', { held: false }))).toMatchObject({ held: false });
    const [request] = await hook.waitFor(1);
    expect(request!.path).toBe('/in');
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'track', event: 'Held Order' });
    const delivered = await until(() => c.deliveries.forMessage(message!.id).find((d) => d.status === 'delivered'), 10_000, 'the delivery');
    expect(delivered.attemptCount).toBe(1);
    expect(value(await invoke(handlers, 'delivery.state', {}))).toEqual({ held: false, waiting: 0 });
    // Read again as the stream announced it (what a window does after a reconnect); unknown ids are left out.
    expect(value(await invoke(handlers, 'deliveries.states', { ids: [delivered.id, 999_999] }))).toEqual({
      changes: [expect.objectContaining({ deliveryId: delivered.id, messageId: message!.id, status: 'delivered', attemptCount: 1, lastErrorCode: null })],
    });

    await new Promise((resolve) => setTimeout(resolve, 50)); // the stream's batch interval
    expect(events.filter((e) => e.type === 'delivery.held')).toEqual([
      { type: 'delivery.held', held: true },
      { type: 'delivery.held', held: false },
    ]);
  });

  it('refuses a request that is not {held: boolean}', async () => {
    core = await startCore();
    const handlers = createHandlers(core);
    const refused = await invoke(handlers, 'delivery.hold', { held: 'yes' });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(refused.ok ? '' : refused.error.message).toMatch(/held/);
    expect(core.delivery.held).toBe(false);
  });

  it('app.info tells where the store lives', async () => {
    core = await startCore();
    expect(value(await invoke(createHandlers(core), 'app.info', {}))).toMatchObject({ dataDir: core.dataDir });
  });
});
