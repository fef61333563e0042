// Crash safety of webhook delivery with the real CLI: deliveries are rows created in the same
// transaction as their messages, and a round's result is committed before the delivery leaves the
// engine's in-flight set. So after SIGKILL mid-delivery and a restart on the same data, every
// acknowledged message reaches the receiver at least once, and the only messages sent twice are
// those whose round was in flight (sent, maybe answered, result not yet durable) at the kill.
//
// The bound on duplicates: a delivery is in the engine's in-flight set from the moment it is picked
// until its result's commit (the "commit group" the engine batches results into) has resolved, and
// the destination's `concurrency` caps that set. Rounds awaiting their group's commit are still in
// the set, so a commit group adds nothing on top: at most `concurrency` deliveries can have been
// sent without a durable result, and each is sent once more after the restart. Precisely, the
// messages sent twice must be exactly those the receiver got before the kill whose delivery the
// store still had pending after it.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_IN_FLIGHT } from '../../../electron/core/delivery/delivery-engine.ts';
import { DATABASE_FILE } from '../../../electron/core/store/database.ts';
import type { ConfigFile } from '../../../shared/settings.ts';
import { startCli, type RunningCli } from '../../helpers/cli.ts';
import { basicAuth, startCore, tempDir } from '../../helpers/core.ts';
import { startSlowReceiver, type SlowReceiver } from '../../helpers/slow-receiver.ts';

const MESSAGES = 3_000;
const PER_BATCH = 100;
/** Batch requests sent at once while ingesting. */
const STREAMS = 4;
const CONCURRENCY = 32;
/** Each webhook request is answered after 30–50 ms: at most ~800 deliveries/s with 32 in flight. */
const MIN_DELAY_MS = 30;
const MAX_DELAY_MS = 50;
/** Kill once the receiver has this many distinct messages (and ingestion is done). */
const KILL_AFTER = 600;
const DELIVER_ALL_MS = 30_000;

const running: RunningCli[] = [];
const receivers: SlowReceiver[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const cli of running.splice(0)) {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
    await cli.exited;
  }
  for (const r of receivers.splice(0)) await r.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(configFile: string, dataDir: string): Promise<RunningCli> {
  const cli = await startCli(['--config', configFile, '--data-dir', dataDir]);
  running.push(cli);
  return cli;
}

/** Posts MESSAGES track events in /v1/batch requests of PER_BATCH; returns the acknowledged messageIds. */
async function ingest(ingestUrl: string, writeKey: string): Promise<{ acked: Set<string>; sent: Set<string>; errors: string[] }> {
  const runId = randomUUID();
  const acked = new Set<string>();
  const sent = new Set<string>();
  const errors: string[] = [];
  let next = 0;
  const batches = MESSAGES / PER_BATCH;
  const stream = async () => {
    for (let b = next++; b < batches; b = next++) {
      const ids = Array.from({ length: PER_BATCH }, (_, i) => `${runId}-${b}-${i}`);
      for (const id of ids) sent.add(id);
      const res = await request(`${ingestUrl}/v1/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: basicAuth(writeKey) },
        body: JSON.stringify({
          batch: ids.map((messageId, i) => ({
            type: 'track',
            userId: `user-${b}`,
            event: 'Crash Test',
            messageId,
            properties: { batch: b, i },
          })),
        }),
      });
      const text = await res.body.text();
      if (res.statusCode === 200 && text === '{"success":true}') for (const id of ids) acked.add(id);
      else errors.push(`${res.statusCode} ${text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: STREAMS }, stream));
  return { acked, sent, errors };
}

interface DeliveryState {
  status: string;
  attemptCount: number;
}

/**
 * Each message's delivery state, read straight from the store with a read-only connection (no
 * engine: opening the core would start delivering). Safe while a CLI runs or after it was killed.
 */
function deliveryStates(dataDir: string): Map<string, DeliveryState[]> {
  const db = new DatabaseSync(path.join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    const rows = db
      .prepare(
        `SELECT m.message_id AS messageId, d.status, d.attempt_count AS attemptCount
         FROM deliveries d JOIN messages m ON m.id = d.message_id ORDER BY d.id`,
      )
      .all() as unknown as (DeliveryState & { messageId: string })[];
    const states = new Map<string, DeliveryState[]>();
    for (const { messageId, status, attemptCount } of rows) {
      states.set(messageId, [...(states.get(messageId) ?? []), { status, attemptCount }]);
    }
    return states;
  } finally {
    db.close();
  }
}

function countStatuses(states: Map<string, DeliveryState[]>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const list of states.values()) for (const { status } of list) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** Polls the store until every one of `total` deliveries is delivered (or throws after `ms`). */
async function allDelivered(dataDir: string, total: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    const counts = countStatuses(deliveryStates(dataDir));
    if (counts.delivered === total) return;
    if (Date.now() > until) throw new Error(`not every delivery was delivered within ${ms} ms: ${JSON.stringify(counts)}`);
    await sleep(100);
  }
}

const sorted = (ids: Iterable<string>) => [...ids].sort();

describe('delivery crash safety of the CLI', () => {
  it('after SIGKILL mid-delivery and a restart, delivers every acknowledged message, re-sending only what was in flight', { timeout: 60_000 }, async () => {
    const started = Date.now();
    const receiver = await startSlowReceiver({ minDelayMs: MIN_DELAY_MS, maxDelayMs: MAX_DELAY_MS });
    receivers.push(receiver);
    const dataDir = tempDir('sluice-delivery-crash-');
    const configDir = tempDir('sluice-delivery-crash-config-');
    dirs.push(dataDir, configDir);
    const config: ConfigFile = {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [
        {
          name: 'hooks',
          enabled: true,
          sources: ['web'],
          webhooks: [{ url: `${receiver.url}/hook`, headers: {} }],
          options: { bodyShape: 'full', concurrency: CONCURRENCY },
        },
      ],
    };
    const configFile = path.join(configDir, 'sluice.json');
    fs.writeFileSync(configFile, JSON.stringify(config));

    // Run 1: ingest everything, let delivery get going, then SIGKILL it mid-delivery.
    const first = await serve(configFile, dataDir);
    expect(first.ready.sources.map((s) => s.writeKey)).toContain('wk_web');
    const load = await ingest(first.ready.ingest, 'wk_web');
    expect(load.errors).toEqual([]);
    expect(load.acked.size).toBe(MESSAGES);
    const ingestedAt = Date.now();
    await receiver.waitForDistinct(KILL_AFTER, 20_000);
    const atKill = { requests: receiver.received.length, distinct: receiver.counts.size, open: receiver.open() };
    first.child.kill('SIGKILL');
    await first.exited;
    expect(first.child.signalCode).toBe('SIGKILL');
    // Requests the dead process had already written may still be read by the receiver: wait for them,
    // then tag what arrives on new connections as run 2.
    await sleep(100);
    receiver.phase = 2;
    const phase1 = receiver.received.filter((r) => r.phase === 1);
    const phase1Ids = new Set(phase1.map((r) => r.messageId!));

    // The scenario really was mid-delivery: some but far from all delivered, requests in flight.
    expect(atKill.distinct, 'delivered before the kill').toBeLessThan(MESSAGES * 0.8);
    expect(atKill.open, 'webhook requests open at the receiver at the kill').toBeGreaterThan(0);
    // Within one run a delivery is never sent twice (no retries: the receiver answers 200).
    expect(phase1.length, 'requests of run 1').toBe(phase1Ids.size);

    // The store as the crash left it: every message has its one delivery; delivered ones were received.
    const afterCrash = deliveryStates(dataDir);
    expect(afterCrash.size).toBe(MESSAGES);
    expect([...afterCrash.values()].filter((list) => list.length !== 1)).toEqual([]);
    const deliveredAtCrash = new Set([...afterCrash].filter(([, [d]]) => d!.status === 'delivered').map(([id]) => id));
    const pendingAtCrash = new Set([...afterCrash].filter(([, [d]]) => d!.status === 'pending').map(([id]) => id));
    expect(countStatuses(afterCrash), 'statuses after the crash').toEqual({ delivered: deliveredAtCrash.size, pending: pendingAtCrash.size });
    expect(sorted(deliveredAtCrash).filter((id) => !phase1Ids.has(id)), 'delivered in the store but never received').toEqual([]);
    // Received before the kill but not durably delivered: exactly what was in flight.
    const uncommitted = new Set([...phase1Ids].filter((id) => pendingAtCrash.has(id)));
    // At most the engine's in-flight cap: the destination's slots, plus sent rounds awaiting their commit.
    expect(uncommitted.size, 'sent in run 1 without a durable result').toBeLessThanOrEqual(DEFAULT_MAX_IN_FLIGHT);

    // Run 2 on the same data and config: everything still pending is sent, once.
    const second = await serve(configFile, dataDir);
    await receiver.waitForAll(load.acked, DELIVER_ALL_MS);
    await allDelivered(dataDir, MESSAGES, DELIVER_ALL_MS);
    second.child.kill('SIGTERM');
    expect(await second.exited, second.stderr()).toBe(0);
    const deliveredAt = Date.now();

    const phase2 = receiver.received.filter((r) => r.phase === 2);
    const phase2Ids = new Set(phase2.map((r) => r.messageId!));
    expect(receiver.received.filter((r) => r.messageId === null), 'webhook bodies without a messageId').toEqual([]);
    expect(phase2.length, 'requests of run 2').toBe(phase2Ids.size);
    expect(sorted(phase2Ids), 'run 2 sends exactly the deliveries pending after the crash').toEqual(sorted(pendingAtCrash));

    // At least once: every acknowledged message reached the receiver, nothing unknown did.
    expect(sorted(load.acked).filter((id) => !receiver.counts.has(id)), 'acknowledged but never delivered').toEqual([]);
    expect(sorted(receiver.counts.keys()).filter((id) => !load.sent.has(id)), 'delivered but never sent').toEqual([]);
    // At most once more, and only what was in flight at the kill.
    const duplicates = new Set([...receiver.counts].filter(([, n]) => n > 1).map(([id]) => id));
    expect(Math.max(...receiver.counts.values()), 'most copies of one message').toBeLessThanOrEqual(2);
    expect(sorted(duplicates), 'messages sent twice').toEqual(sorted(uncommitted));
    expect(duplicates.size).toBeLessThanOrEqual(DEFAULT_MAX_IN_FLIGHT);
    expect(receiver.received.length).toBe(MESSAGES + duplicates.size);
    // The destination's concurrency held in both runs.
    expect(receiver.maxOpen.get(1) ?? 0).toBeLessThanOrEqual(CONCURRENCY);
    expect(receiver.maxOpen.get(2) ?? 0).toBeLessThanOrEqual(CONCURRENCY);

    // The store after completion, through the core (createCore via startCore: free ports; no CLI
    // holds the store now): every delivery delivered, with the one attempt that was committed.
    const requestsBefore = receiver.received.length;
    const core = await startCore({ dataDir });
    try {
      expect(core.deliveries.countByStatus()).toEqual({ delivered: MESSAGES });
      const stored = core.messages.list({ status: 'accepted', limit: 10_000 });
      expect(stored).toHaveLength(MESSAGES);
      expect(sorted(stored.map((m) => m.messageId!))).toEqual(sorted(load.acked));
      const wrong: string[] = [];
      for (const message of stored) {
        const deliveries = core.deliveries.forMessage(message.id);
        const [delivery] = deliveries;
        const attempts = delivery ? core.deliveries.attempts(delivery.id) : [];
        if (
          deliveries.length !== 1 ||
          delivery!.status !== 'delivered' ||
          delivery!.attemptCount !== 1 ||
          attempts.length !== 1 ||
          attempts[0]!.outcome !== 'success' ||
          attempts[0]!.responseStatus !== 200
        ) {
          wrong.push(`${message.messageId}: ${JSON.stringify({ deliveries, attempts })}`);
        }
      }
      expect(wrong.slice(0, 5), `${wrong.length} messages whose delivery is not one committed success`).toEqual([]);
    } finally {
      await core.dispose(); // closes the core; the data folder is ours (afterEach removes it)
    }
    expect(receiver.received.length, 'nothing left to send on the next start').toBe(requestsBefore);

    console.log(
      `delivery crash: ${MESSAGES} acknowledged; ingested ${ingestedAt - started} ms after the start; at the kill the receiver had ` +
        `${atKill.distinct} distinct / ${atKill.requests} requests with ${atKill.open} open; store after the crash: ` +
        `${deliveredAtCrash.size} delivered, ${pendingAtCrash.size} pending; ${uncommitted.size} sent without a durable result; ` +
        `${duplicates.size} duplicates; max open ${receiver.maxOpen.get(1)}/${receiver.maxOpen.get(2)}; ` +
        `total ${deliveredAt - started} ms`,
    );
  });
});
