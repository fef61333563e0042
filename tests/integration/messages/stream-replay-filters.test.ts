// The stream's time range on `messages.list` and replays selected by the stream's own filters
// (search, delivery state, time range), with dry-run counts for the inspector's confirmation.
// Real core (SQLite file, ingestion over HTTP), real receivers, an injected clock for receivedAt.
import { DatabaseSync } from 'node:sqlite';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import type { Responses } from '../../../shared/contract.ts';
import { post, startCore, type TestCore } from '../../helpers/core.ts';
import { receiversClosedAfterEach } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const HOUR = 3_600_000;

let core: TestCore | undefined;
const receiver = receiversClosedAfterEach();
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

/** A core whose clock the test moves; `web` is connected to `hooks` (the receiver), `ios` to nothing. */
async function setup(hookUrl: string) {
  const clock = { t: T0, now: () => clock.t };
  core = await startCore({
    clock,
    config: {
      sources: [
        { name: 'web', writeKey: 'wk_web', kind: 'web' },
        { name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
      ],
      destinations: [{ name: 'hooks', enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: hookUrl, headers: {} }], options: { bodyShape: 'seed', concurrency: 8 } }],
    },
  });
  core.writeKey = 'wk_web';
  return { c: core, clock, handlers: createHandlers(core) };
}

async function list(handlers: ReturnType<typeof createHandlers>, request: Record<string, unknown>) {
  const result = await invoke(handlers, 'messages.list', request);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as Responses['messages.list'];
}

describe('messages.list with a time range', () => {
  it('returns only messages received within the bounds, inclusive, newest first, and pages within them', async () => {
    const r = await receiver();
    const { c, clock, handlers } = await setup(r.url);
    // Five messages an hour apart: T0 .. T0+4h.
    for (let i = 0; i < 5; i++) {
      clock.t = T0 + i * HOUR;
      await post(c, '/v1/track', { userId: `u${i}`, event: `E${i}` });
    }
    await until(() => (c.deliveries.countByStatus().delivered === 5 ? true : undefined));
    const events = (page: Responses['messages.list']) => page.messages.map((m) => m.event);

    expect(events(await list(handlers, {}))).toEqual(['E4', 'E3', 'E2', 'E1', 'E0']);
    expect(events(await list(handlers, { from: T0 + 3 * HOUR }))).toEqual(['E4', 'E3']);
    expect(events(await list(handlers, { to: T0 + HOUR }))).toEqual(['E1', 'E0']);
    expect(events(await list(handlers, { from: T0 + HOUR, to: T0 + 3 * HOUR }))).toEqual(['E3', 'E2', 'E1']);
    // One ms past a message's receivedAt leaves it out on either side.
    expect(events(await list(handlers, { from: T0 + HOUR + 1, to: T0 + 3 * HOUR - 1 }))).toEqual(['E2']);

    // Paging inside the range: the cursor continues below, never outside the bounds.
    const first = await list(handlers, { from: T0 + HOUR, limit: 2 });
    expect(events(first)).toEqual(['E4', 'E3']);
    const second = await list(handlers, { from: T0 + HOUR, limit: 2, beforeId: first.next });
    expect(events(second)).toEqual(['E2', 'E1']);
    expect(second.next).not.toBeNull();
    const third = await list(handlers, { from: T0 + HOUR, limit: 2, beforeId: second.next });
    expect(events(third)).toEqual([]);

    // Combined with the other filters.
    expect(events(await list(handlers, { from: T0 + 2 * HOUR, search: 'u3' }))).toEqual(['E3']);
    expect(events(await list(handlers, { to: T0 + 2 * HOUR, delivery: 'delivered' }))).toEqual(['E2', 'E1', 'E0']);
    expect(events(await list(handlers, { to: T0 + 2 * HOUR, delivery: 'failed' }))).toEqual([]);
  });

  it('refuses a range whose start is after its end, and a negative bound, with the field named', async () => {
    const r = await receiver();
    const { handlers } = await setup(r.url);
    const reversed = await invoke(handlers, 'messages.list', { from: T0 + 1, to: T0 });
    expect(reversed).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(!reversed.ok && reversed.error.message).toMatch(/from.*must not be after to/);
    const negative = await invoke(handlers, 'messages.list', { from: -5 });
    expect(negative).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(!negative.ok && negative.error.message).toMatch(/^from/);
  });

  it('is served by an index on received_at (schema migration 3)', async () => {
    const r = await receiver();
    const { c } = await setup(r.url);
    const db = new DatabaseSync(path.join(c.dataDir, DATABASE_FILE), { readOnly: true });
    try {
      const indexes = (db.prepare('PRAGMA index_list(messages)').all() as { name: string }[]).map((i) => i.name);
      expect(indexes).toContain('messages_received');
      const columns = (db.prepare('PRAGMA index_info(messages_received)').all() as { name: string }[]).map((i) => i.name);
      expect(columns).toEqual(['received_at']);
      expect((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBeGreaterThanOrEqual(3);
    } finally {
      db.close();
    }
  });
});

describe('replay by the stream\'s filters', () => {
  it('replays exactly the messages the stream shows for search + delivery state + time range; a dry run only counts', async () => {
    const r = await receiver();
    const { c, clock, handlers } = await setup(r.url);
    r.fallback = { status: 400 }; // final: each delivery fails at once
    clock.t = T0;
    await post(c, '/v1/batch', { batch: [{ type: 'track', userId: 'old-alice', event: 'Old' }] });
    clock.t = T0 + 2 * HOUR;
    await post(c, '/v1/batch', {
      batch: [
        { type: 'track', userId: 'alice', event: 'Checkout' },
        { type: 'track', userId: 'alice', event: 'Browse' },
        { type: 'track', userId: 'bob', event: 'Checkout' },
      ],
    });
    await until(() => (c.deliveries.countByStatus().failed === 4 ? true : undefined));
    r.fallback = { status: 200 };
    // Alice's "Browse" is then delivered by a replay, which supersedes its failed original: its row
    // shows "delivered" and leaves the failed set — the store's query and the list agree on that.
    const browse = c.messages.list({ search: 'alice' }).find((m) => m.event === 'Browse')!.id;
    const single = await c.operations['deliveries.replay']({ messageIds: [browse] });
    await until(() => (c.deliveries.get(single.deliveryIds[0]!)?.status === 'delivered' ? true : undefined));
    const filter = { search: 'alice', delivery: 'failed', from: T0 + HOUR };
    const streamRows = await list(handlers, filter);
    expect(streamRows.messages.map((m) => m.event)).toEqual(['Checkout']);
    const delivered = await list(handlers, { search: 'alice', delivery: 'delivered' });
    expect(delivered.messages.map((m) => [m.event, m.delivery?.id, m.delivery?.trigger])).toEqual([['Browse', single.deliveryIds[0], 'replay']]);

    const dry = await invoke(handlers, 'deliveries.replay', { filter, dryRun: true });
    expect(dry).toEqual({ ok: true, value: { deliveryIds: [], messages: 1, deliveries: 1, leftOut: { rejected: 0, noDestination: 0 } } });
    expect(c.deliveries.countByStatus().pending ?? 0).toBe(0); // the dry run created nothing

    const done = await invoke(handlers, 'deliveries.replay', { filter });
    expect(done.ok).toBe(true);
    const outcome = (done as { value: Responses['deliveries.replay'] }).value;
    expect(outcome).toMatchObject({ messages: 1, deliveries: 1 });
    for (const id of outcome.deliveryIds) await until(() => (c.deliveries.get(id)?.status === 'delivered' ? true : undefined));
    const replayedIds = outcome.deliveryIds.map((id) => c.deliveries.get(id)!.messageId).sort();
    expect(replayedIds).toEqual(streamRows.messages.map((m) => m.id).sort());
    const arrived = r.received.slice(5).map((req) => JSON.parse(req.body).event);
    expect(arrived).toEqual(['Checkout']);
  });

  it('leaves out (and counts) rejected messages and sources without a destination; allFailed counts failed deliveries', async () => {
    const r = await receiver();
    r.fallback = { status: 400 };
    const { c, handlers } = await setup(r.url);
    await post(c, '/v1/batch', {
      batch: [
        { type: 'track', userId: 'carol', event: 'Good' },
        { type: 'track', event: 'No user' }, // rejected: neither userId nor anonymousId
      ],
    });
    await post(c, '/v1/track', { userId: 'carol', event: 'From iOS' }, { writeKey: 'wk_ios' });
    await until(() => (c.deliveries.countByStatus().failed === 1 ? true : undefined));
    expect(c.messages.countByStatus()).toMatchObject({ accepted: 2, rejected: 1 });

    const dry = await invoke(handlers, 'deliveries.replay', { filter: {}, dryRun: true });
    expect(dry).toEqual({ ok: true, value: { deliveryIds: [], messages: 1, deliveries: 1, leftOut: { rejected: 1, noDestination: 1 } } });
    const failed = await invoke(handlers, 'deliveries.replay', { allFailed: true, dryRun: true });
    expect(failed).toEqual({ ok: true, value: { deliveryIds: [], messages: 1, deliveries: 1, leftOut: { rejected: 0, noDestination: 0 } } });
    // Listing the iOS message by id still refuses it: the user asked for that one.
    const ios = c.messages.list({ sourceId: c.sources.byName('ios')!.id })[0]!.id;
    expect(await invoke(handlers, 'deliveries.replay', { messageIds: [ios] })).toMatchObject({ ok: false, error: { code: 'no_destination' } });
    expect(await invoke(handlers, 'deliveries.replay', { filter: { delivery: 'sent' } })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });
});
