// A bulk retry of an Issues group sends each message once: a failure a later replay to the destination's
// webhooks superseded — failed again in its own right, or delivered — is not reopened beside it. A real
// core, SQLite store and receiver on loopback.
import { afterEach, expect, it } from 'vitest';
import { createHandlers } from '../../../electron/core/api/contract-handlers.ts';
import { callOk } from '../../helpers/contract.ts';
import { coreWithFailedGroup } from '../../helpers/failed-group.ts';
import type { TestCore } from '../../helpers/core.ts';
import type { Receiver } from '../../helpers/receiver.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
let hook: Receiver | undefined;
afterEach(async () => {
  await core?.dispose();
  await hook?.close();
});

it('reopens only the last delivery of each message and destination: no message is sent twice', async () => {
  let issueId: number;
  ({ core, hook, issueId } = await coreWithFailedGroup(3));
  const handlers = createHandlers(core);
  const idOf = (messageId: string) => core!.messages.list().find((m) => m.messageId === messageId)!.id;
  // m-0 replayed while the receiver still refuses: the replay fails too, into the same group.
  await core.operations['deliveries.replay']({ messageIds: [idOf('m-0')] });
  await until(() => core!.deliveries.forMessage(idOf('m-0')).filter((d) => d.status === 'failed').length === 2 || undefined, 10_000, 'the replay of m-0 to fail');
  // m-1 replayed once the receiver takes it: delivered.
  hook.fallback = { status: 200 };
  await core.operations['deliveries.replay']({ messageIds: [idOf('m-1')] });
  await until(() => core!.deliveries.forMessage(idOf('m-1')).some((d) => d.status === 'delivered') || undefined, 10_000, 'the replay of m-1 delivered');
  const before = hook.received.length;

  const finished: number[] = [];
  core.bus.on('issues.retryProgress', (p) => {
    if (p.state === 'finished') finished.push(p.jobId);
  });
  const job = await callOk(handlers, 'issues.retry', { issueId });
  await until(() => finished.includes(job.jobId) || undefined, 10_000, 'the retry job to finish');
  await until(() => (core!.deliveries.countByStatus().retrying ?? 0) + (core!.deliveries.countByStatus().pending ?? 0) === 0 || undefined, 10_000, 'the retried deliveries to end');
  await core.delivery.idle();
  const sent = hook.received.slice(before).map((r) => (JSON.parse(r.body) as { messageId: string }).messageId).sort();
  // Before 2026-12-01: m-0 twice (the original and its replay reopened) and m-1 again (delivered by its replay).
  expect(sent).toEqual(['m-0', 'm-2']);
  expect(job.total).toBeGreaterThanOrEqual(2);
});
