// "Send sample events" through the contract: realistic messages through the composer's client, and a
// signed destination at the built-in receiver when the source delivers nowhere yet — made once.
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { BUILTIN_DESTINATION, SAMPLES_HOOK } from '../../../electron/core/composer/samples.ts';
import { verifyAsSeedReceiver } from '../../../electron/core/signature/signature.ts';
import { callOk } from '../../helpers/contract.ts';
import { startCore, storedMessages, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
const startReceiver = receiversClosedAfterEach(); // registered first, so it closes them after the core stops
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup() {
  core = await startCore({
    config: {
      sources: [
        { name: 'web', writeKey: 'wk_web', kind: 'web' },
        { name: 'mobile', writeKey: 'wk_mobile', kind: 'mobile' },
      ],
      destinations: [],
    },
  });
  const handlers = createHandlers(core);
  const sourceId = (name: string) => core!.sources.byName(name)!.id;
  const send = (name: string) => callOk(handlers, 'samples.send', { sourceId: sourceId(name) });
  return { core, handlers, sourceId, send };
}

describe('samples.send', () => {
  it('creates a signed built-in receiver destination, then the samples arrive there with valid signatures', async () => {
    const { core, send, sourceId } = await setup();
    const result = await send('web');
    expect(result.sent).toBe(6);
    expect(result.destination).toMatchObject({ name: BUILTIN_DESTINATION, created: true, hookUrl: `sluice://receiver/${SAMPLES_HOOK}` });
    // Flushed before answering: nothing waits in the client, everything is stored.
    expect(result.state).toMatchObject({ queued: 0, inFlightBatches: 0, sent: 6 });
    const stored = storedMessages(core);
    expect(stored.map((m) => m.type)).toEqual(['page', 'track', 'identify', 'alias', 'track', 'group']);
    expect(stored.every((m) => m.sourceId === sourceId('web'))).toBe(true);
    expect(stored.map((m) => m.event).filter(Boolean)).toEqual(['Pricing', 'Signed Up', 'Order Completed']);

    const [destination] = core.destinations.list();
    expect(destination).toMatchObject({ name: BUILTIN_DESTINATION, enabled: true, sourceIds: [sourceId('web')] });
    expect(destination!.sharedSecret).toMatch(/^whsec_[0-9a-f]{36}$/);
    const inbox = await until(() => (core.receiver.inbox(SAMPLES_HOOK).length === 6 ? core.receiver.inbox(SAMPLES_HOOK) : undefined));
    expect(inbox.map((e) => e.signature)).toEqual(Array(6).fill('valid'));
    expect(inbox.every((e) => verifyAsSeedReceiver(e.body, String(e.headers['x-signature']), destination!.sharedSecret!))).toBe(true);
    await until(() => (core.deliveries.countByStatus().delivered === 6 ? true : undefined), 10_000, 'six delivered');
  });

  it('is idempotent: repeats and other sources reuse the one destination', async () => {
    const { core, send, sourceId } = await setup();
    const first = await send('web');
    const secret = core.destinations.list()[0]!.sharedSecret;
    const again = await send('web');
    expect(again.destination).toBeNull(); // web already delivers to it
    const mobile = await send('mobile');
    expect(mobile.destination).toMatchObject({ id: first.destination!.id, created: false });
    const destinations = core.destinations.list();
    expect(destinations).toHaveLength(1);
    expect(destinations[0]!.sourceIds.sort()).toEqual([sourceId('web'), sourceId('mobile')].sort());
    expect(destinations[0]!.sharedSecret).toBe(secret); // the secret is kept, so earlier signatures still verify
    expect(storedMessages(core)).toHaveLength(18);
    await until(() => (core.receiver.inbox(SAMPLES_HOOK).length === 18 ? true : undefined));
  });

  it('leaves a source that already delivers somewhere alone', async () => {
    const { core, send } = await setup();
    const receiver = await startReceiver();
    core.saveDestination({ name: 'mine', sources: ['web'], webhooks: [{ url: `${receiver.url}/hook` }] });
    const result = await send('web');
    expect(result.destination).toBeNull();
    expect(core.destinations.list().map((d) => d.name)).toEqual(['mine']);
    const arrived = await receiver.waitFor(6);
    expect(arrived.map((r) => JSON.parse(r.body).type)).toEqual(['page', 'track', 'identify', 'alias', 'track', 'group']);
    expect(core.receiver.inbox()).toHaveLength(0);
  });

  it('re-enables its destination and points it at this run’s receiver when the user had disabled it', async () => {
    const { core, send } = await setup();
    core.saveDestination({ name: BUILTIN_DESTINATION, enabled: false, sources: ['web'], sharedSecret: 'kept', webhooks: [{ url: 'http://127.0.0.1:1/hooks/demo' }] });
    const result = await send('web');
    expect(result.destination).toMatchObject({ created: false });
    const [destination] = core.destinations.list();
    expect(destination).toMatchObject({ enabled: true, sharedSecret: 'kept', webhooks: [{ url: `sluice://receiver/${SAMPLES_HOOK}`, headers: {} }] });
    await until(() => (core.receiver.inbox(SAMPLES_HOOK).length === 6 ? true : undefined));
  });

  it('refuses an unknown source and a malformed request with typed errors', async () => {
    const { handlers } = await setup();
    expect(await invoke(handlers, 'samples.send', { sourceId: 999 })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringContaining('no source 999') } });
    expect(await invoke(handlers, 'samples.send', {})).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(core!.destinations.list()).toHaveLength(0);
  });
});
