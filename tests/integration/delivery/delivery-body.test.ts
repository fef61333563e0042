// A big delivery body through the contract, over a real core, a real SQLite store and a real receiver
// on loopback: messages.get carries only the first BODY_PREVIEW_BYTES of it (cut at a character
// boundary) with the whole size, and deliveries.body returns every byte the receiver got; a body
// within the limit travels whole; a delivery not sent yet has no body; an unknown one is not found.
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { BODY_PREVIEW_BYTES } from '../../../shared/limits.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiverFor = receiversClosedAfterEach();
let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

/** About `bytes` of JSON, with two- and four-byte characters all along (so the cut falls inside one). */
function bigBody(bytes: number) {
  const item = (i: number) => ({ sku: `sku_${i}`, name: `Produit é ${i} 😀`, price: i / 100 });
  const count = Math.ceil(bytes / Buffer.byteLength(JSON.stringify(item(10_000))));
  return { type: 'track', event: 'Big Replay', userId: 'u_big', properties: { items: Array.from({ length: count }, (_, i) => item(i)) }, tail: 'END-OF-BODY' };
}

describe('a delivery’s body in the contract', () => {
  it('cuts a big body in the message’s detail and gives all of it on request, byte for byte as received', async () => {
    const receiver = await receiverFor();
    core = await startCore({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: `${receiver.url}/hook`, headers: {} }], sharedSecret: 's', options: { bodyShape: 'seed', concurrency: 4 } }],
      },
    });
    core.writeKey = 'wk_web';
    const handlers = createHandlers(core);
    expect((await post(core, '/v1/track', { userId: 'u_big', event: 'Small', properties: { note: 'ünïcode' } })).status).toBe(200);
    const [small] = await receiver.waitFor(1);
    const message = await until(() => core!.messages.list().find((m) => m.event === 'Small'));

    const replay = await callOk(handlers, 'deliveries.replay', { messageIds: [message.id], body: bigBody(200 * 1024) });
    const received = (await receiver.waitFor(2))[1]!;
    expect(received.bytes.length).toBeGreaterThan(200_000);
    await until(() => core!.deliveries.get(replay.deliveryIds[0]!)?.status === 'delivered');

    const detail = await callOk(handlers, 'messages.get', { id: message.id });
    const first = detail.deliveries.find((d) => d.trigger === 'automatic')!;
    const big = detail.deliveries.find((d) => d.id === replay.deliveryIds[0])!;
    // Within the limit: whole, and no size given.
    expect(first.body).toBe(small!.body);
    expect(first.bodyBytes).toBeUndefined();
    // Over it: the start, cut before a character that would not fit, and the whole size.
    expect(big.bodyBytes).toBe(received.bytes.length);
    const start = Buffer.from(big.body!, 'utf8');
    expect(start.length).toBeLessThanOrEqual(BODY_PREVIEW_BYTES);
    expect(start.length).toBeGreaterThan(BODY_PREVIEW_BYTES - 4);
    expect(received.bytes.subarray(0, start.length).equals(start)).toBe(true);
    expect(big.body).not.toContain('END-OF-BODY');

    const whole = await callOk(handlers, 'deliveries.body', { id: big.id });
    expect(Buffer.from(whole.body!, 'utf8').equals(received.bytes)).toBe(true);
    // The same delivery read on its own (deliveries.get) still carries its whole body.
    expect((await callOk(handlers, 'deliveries.get', { id: big.id })).body).toBe(whole.body);
  });

  it('has no body for a delivery not sent yet, and says so for an unknown one', async () => {
    const receiver = await receiverFor();
    core = await startCore({
      config: {
        sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
        destinations: [{ name: 'hooks', enabled: true, sources: ['web'], webhooks: [{ url: `${receiver.url}/hook`, headers: {} }], options: { bodyShape: 'seed', concurrency: 4 } }],
      },
    });
    core.writeKey = 'wk_web';
    core.delivery.setHeld(true);
    const handlers = createHandlers(core);
    expect((await post(core, '/v1/track', { userId: 'u_1', event: 'Held' })).status).toBe(200);
    const message = await until(() => core!.messages.list()[0]);
    const held = core.deliveries.forMessage(message.id)[0]!;
    expect(held.status).toBe('pending');
    expect(await callOk(handlers, 'deliveries.body', { id: held.id })).toEqual({ body: null });
    expect(await invoke(handlers, 'deliveries.body', { id: 999_999 })).toMatchObject({ ok: false, error: { code: 'not_found', message: 'there is no delivery 999999' } });
    expect(await invoke(handlers, 'deliveries.body', { id: 'one' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(receiver.received).toEqual([]);
  });
});
