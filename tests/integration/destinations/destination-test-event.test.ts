// "Send test event" (contract channel destinations.sendTest) against a real core and real receivers:
// one signed track message to this destination only, recorded as a `test` delivery.
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { TEST_EVENT_NAME } from '../../../electron/core/delivery/test-event.ts';
import { signBody } from '../../../electron/core/signature/signature.ts';
import { startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup() {
  core = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
  return { c: core, handlers: createHandlers(core) };
}

describe('destinations.sendTest', () => {
  it('delivers one signed track message with the static headers to this destination only', async () => {
    const { c, handlers } = await setup();
    const mine = await receiver();
    const other = await receiver();
    const saved = c.saveDestination({
      name: 'hooks',
      sources: ['web'],
      sharedSecret: 's3cret',
      webhooks: [{ url: `${mine.url}/hook`, headers: { 'X-Env': 'test' } }],
    });
    c.saveDestination({ name: 'others', sources: ['web'], webhooks: [{ url: `${other.url}/hook` }] });

    const result = await invoke(handlers, 'destinations.sendTest', { id: saved.id });
    expect(result.ok).toBe(true);
    const { deliveryId, body } = (result as { ok: true; value: { deliveryId: number; body: string } }).value;
    const [arrived] = await mine.waitFor(1);
    expect(arrived!.path).toBe('/hook');
    expect(arrived!.body).toBe(body);
    expect(arrived!.headers['x-signature']).toBe(signBody(arrived!.body, 's3cret'));
    expect(arrived!.headers['x-env']).toBe('test');
    expect(JSON.parse(arrived!.body)).toMatchObject({ version: 1, type: 'track', event: TEST_EVENT_NAME, userId: 'sluice-test-user' });

    const delivery = await until(() => (c.deliveries.get(deliveryId)?.status === 'delivered' ? c.deliveries.get(deliveryId) : undefined));
    expect(delivery).toMatchObject({ trigger: 'test', messageId: null, destinationId: saved.id });
    expect(c.deliveries.attempts(deliveryId)).toHaveLength(1);
    await c.delivery.idle();
    expect(other.received).toHaveLength(0);
    expect(c.messages.list()).toHaveLength(0); // not a stored message: the stream stays as it was
  });

  it('shapes the body as the destination says (full) and announces the outcome on the bus', async () => {
    const { c, handlers } = await setup();
    const r = await receiver();
    r.script({ status: 404 });
    const saved = c.saveDestination({ name: 'full', webhooks: [{ url: r.url }], options: { bodyShape: 'full' } });
    const changes: { deliveryId: number; status: string; lastError: string | null }[] = [];
    c.bus.on('deliveries.changed', (batch) => changes.push(...batch));
    const result = await invoke(handlers, 'destinations.sendTest', { id: saved.id });
    if (!result.ok) throw new Error(result.error.message);
    const [arrived] = await r.waitFor(1);
    expect(arrived!.headers['x-signature']).toBeUndefined(); // no secret, no signature
    expect(JSON.parse(arrived!.body)).toMatchObject({ version: 1, type: 'track', messageId: expect.stringMatching(/^sluice-test-/) });
    // Announced when created (pending), then with the attempt's outcome.
    const id = (result.value as { deliveryId: number }).deliveryId;
    const change = await until(() => changes.find((ch) => ch.deliveryId === id && ch.status !== 'pending'));
    expect(change.status).toBe('failed');
    expect(change.lastError).toContain('404');
    expect(changes.filter((ch) => ch.deliveryId === id).map((ch) => ch.status)).toEqual(['pending', 'failed']);
  });

  it('refuses a disabled or unknown destination with a sentence saying what to do', async () => {
    const { c, handlers } = await setup();
    const r = await receiver();
    const saved = c.saveDestination({ name: 'off', enabled: false, webhooks: [{ url: r.url }] });
    const disabled = await invoke(handlers, 'destinations.sendTest', { id: saved.id });
    expect(disabled).toEqual({ ok: false, error: { code: 'destination_disabled', message: expect.stringContaining('enable it and save') } });
    const unknown = await invoke(handlers, 'destinations.sendTest', { id: 999 });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const invalid = await invoke(handlers, 'destinations.sendTest', { id: 'x' });
    expect(invalid).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(r.received).toHaveLength(0);
  });
});
