// A forwarded batch's results are announced together: one `deliveries.changed` for the round, not one
// per message (the inspector and waits get the same changes, in fewer events). A delivery cancelled
// while the batch was in flight is still announced as stored (cancelled), never in the state its round
// would have given it, while the others of its batch are announced delivered. Real core, real SQLite
// file, a real loopback receiver that answers when the test says.
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryChange } from '../../../electron/core/bus/event-bus.ts';
import { configFileSchema } from '../../../shared/settings.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const receiver = receiversClosedAfterEach();
const cores = new Set<TestCore>();
afterEach(async () => {
  for (const core of cores) await core.dispose();
  cores.clear();
});

describe('a forwarded batch\'s announcements', () => {
  it('one event for the round; a delivery cancelled in flight stays cancelled and is announced so, the others delivered', async () => {
    const r = await receiver();
    let answer!: () => void;
    r.script({ status: 200, body: '{"success":true}', after: new Promise<void>((resolve) => (answer = resolve)) });
    const core = await startCore({
      config: configFileSchema.parse({
        sources: [{ name: 'app', writeKey: 'wk_app' }],
        destinations: [{ name: 'api', sources: ['app'], kind: 'tracking-api', trackingApi: { url: r.url, writeKey: 'wk_api', flushMs: 0 } }],
      }),
    });
    cores.add(core);
    const events: DeliveryChange[][] = [];
    core.bus.on('deliveries.changed', (changes) => events.push(changes));
    const batch = Array.from({ length: 3 }, (_, i) => ({ type: 'track', userId: 'u', event: `E${i}`, messageId: `m-${i}` }));
    expect((await post(core, '/v1/batch', { batch })).status).toBe(200);
    const [request] = await r.waitFor(1); // the batch is in flight: the receiver has not answered
    expect((JSON.parse(request!.body) as { batch: unknown[] }).batch).toHaveLength(3);
    const ids = core.messages.list({ limit: 10 }).reverse().map((m) => core.deliveries.forMessage(m.id)[0]!.id);
    expect(await core.operations['deliveries.cancel']({ ids: [ids[1]!] })).toEqual({ changed: 1 });
    answer();
    await until(() => (core.deliveries.countByStatus().delivered === 2 ? true : undefined));
    await until(() => (events.flat().filter((c) => c.deliveryId === ids[1]).length === 2 ? true : undefined));

    // Each ends as before: two delivered, the cancelled one cancelled — its attempt recorded all the same.
    expect(ids.map((id) => core.deliveries.get(id)!.status)).toEqual(['delivered', 'cancelled', 'delivered']);
    for (const id of ids) expect(core.deliveries.attempts(id)).toMatchObject([{ responseStatus: 200, outcome: 'success' }]);
    // The cancelled one: announced by the cancel, then as stored after its round — never delivered.
    expect(events.flat().filter((c) => c.deliveryId === ids[1]).map((c) => c.status)).toEqual(['cancelled', 'cancelled']);
    // The round's delivered ones: once each, in one event.
    const delivered = events.filter((changes) => changes.some((c) => c.status === 'delivered'));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.map((c) => [c.deliveryId, c.status, c.attemptCount])).toEqual([
      [ids[0], 'delivered', 1],
      [ids[2], 'delivered', 1],
    ]);
  });
});
