import { EVENT_BATCH_MS, type CoreEvent } from '../../../shared/contract.ts';
import type { EventBus } from '../bus/event-bus.ts';

/**
 * Subscribes to the core's bus and hands `send` the events in batches, at most one batch per
 * EVENT_BATCH_MS: a burst of thousands of messages costs a few sends, and a renderer applies each
 * batch in one update. Message ids of consecutive commits are merged into one event.
 * Returns the unsubscribe function.
 */
export function streamEvents(bus: EventBus, send: (events: CoreEvent[]) => void, intervalMs = EVENT_BATCH_MS): () => void {
  let pending: CoreEvent[] = [];
  let storedIds: number[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    if (storedIds.length > 0) pending.unshift({ type: 'messages.stored', ids: storedIds });
    storedIds = [];
    const events = pending;
    pending = [];
    if (events.length > 0) send(events);
  };
  const schedule = () => {
    timer ??= setTimeout(flush, intervalMs);
  };
  const offs = [
    bus.on('messages.stored', (committed) => {
      for (const request of committed) for (const id of request.ids) storedIds.push(id);
      schedule();
    }),
    bus.on('deliveries.changed', (changes) => {
      pending.push({ type: 'deliveries.changed', changes });
      schedule();
    }),
    bus.on('receiver.received', (entries) => {
      pending.push({ type: 'receiver.received', entries });
      schedule();
    }),
    bus.on('receiver.removed', (ids) => {
      pending.push({ type: 'receiver.removed', ids });
      schedule();
    }),
    bus.on('client.state', ({ sourceId, state }) => {
      pending = pending.filter((event) => !(event.type === 'client.state' && event.sourceId === sourceId));
      pending.push({ type: 'client.state', sourceId, state });
      schedule();
    }),
    bus.on('audiences.changed', ({ audienceId, reason }) => {
      pending.push({ type: 'audiences.changed', audienceId, reason });
      schedule();
    }),
    bus.on('delivery.held', ({ held }) => {
      pending.push({ type: 'delivery.held', held });
      schedule();
    }),
    bus.on('settings.changed', () => {
      pending.push({ type: 'settings.changed' });
      schedule();
    }),
    bus.on('plans.changed', () => {
      if (!pending.some((event) => event.type === 'plans.changed')) pending.push({ type: 'plans.changed' });
      schedule();
    }),
    bus.on('plans.recheck', (progress) => {
      // Only the latest progress of a re-check matters.
      pending = pending.filter((event) => !(event.type === 'plans.recheck' && event.progress.id === progress.id));
      pending.push({ type: 'plans.recheck', progress });
      schedule();
    }),
    bus.on('storage.pruned', (report) => {
      pending.push({ type: 'storage.pruned', report });
      schedule();
    }),
    bus.on('storage.health', (health) => {
      pending = pending.filter((event) => event.type !== 'storage.health'); // the latest says it all
      pending.push({ type: 'storage.health', health });
      schedule();
    }),
    bus.on('messages.purged', (purged) => {
      pending.push({ type: 'messages.purged', ...purged });
      schedule();
    }),
    bus.on('messages.pinned', (pinned) => {
      pending.push({ type: 'messages.pinned', ...pinned });
      schedule();
    }),
    bus.on('faults.changed', () => {
      if (!pending.some((event) => event.type === 'faults.changed')) pending.push({ type: 'faults.changed' });
      schedule();
    }),
    bus.on('issues.retryProgress', (progress) => {
      // Only the latest progress of a job matters.
      pending = pending.filter((event) => !(event.type === 'issues.retryProgress' && event.progress.jobId === progress.jobId));
      pending.push({ type: 'issues.retryProgress', progress });
      schedule();
    }),
    bus.on('store.reset', () => {
      storedIds = []; // gone: the reset's reload reads what is stored now
      pending.push({ type: 'store.reset' });
      schedule();
    }),
  ];
  return () => {
    for (const off of offs) off();
    clearTimeout(timer);
  };
}
