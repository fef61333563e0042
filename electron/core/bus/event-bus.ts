import type { DeliveryChange as ContractDeliveryChange } from '../../../shared/contract.ts';
import type { DeliveryStatus, DeliveryTrigger } from '../store/delivery-types.ts';
import type { CommittedRequest } from '../store/stored-request.ts';
import type { InboxEntry } from '../../../shared/receiver.ts';
import type { ClientState } from '../../../shared/client-state.ts';
import type { RecheckProgress } from '../../../shared/tracking-plan.ts';
import type { IssueRetryProgress } from '../../../shared/channels/issues.ts';
import type { PruneReport, StoreHealth } from '../../../shared/storage.ts';

/** The contract's delivery change (shared/contract.ts), with the store's own status and trigger types. */
export type DeliveryChange = ContractDeliveryChange & { status: DeliveryStatus; trigger: DeliveryTrigger };

/** Everything the core announces. A state change is announced only after it is in the store. */
export interface CoreEvents {
  /**
   * Requests committed by one group commit, in arrival order: their message ids and statuses.
   * Listeners read what else they need from the store (MessagesRepo.byIds).
   */
  'messages.stored': CommittedRequest[];
  /** Deliveries whose state changed (an attempt round ended), after the change is stored. */
  'deliveries.changed': DeliveryChange[];
  /** Requests the built-in receiver got. */
  'receiver.received': InboxEntry[];
  /** Requests the built-in receiver let go of on request (a purge of their user), by id. */
  'receiver.removed': number[];
  /** Sources or destinations changed (stored). */
  'settings.changed': null;
  /** Every message and delivery was forgotten (a reset, stored); the configuration stays. */
  'store.reset': null;
  /** Deliveries were held or let go (in memory; the engine's state already changed). */
  'delivery.held': { held: boolean };
  /** The composer's client queue of a source changed. */
  'client.state': { sourceId: number; state: ClientState };
  /** An audience was saved, deleted or synced, or its sync failed (after the change is stored). */
  'audiences.changed': { audienceId: number; reason: 'saved' | 'deleted' | 'synced' | 'failed' };
  /** A tracking plan was loaded again, or could not be (plans/plan-registry.ts). */
  'plans.changed': null;
  /** A re-check of stored messages moved on or ended (plans/recheck.ts). */
  'plans.recheck': RecheckProgress;
  /**
   * A slice of a prune or a clear, or a deletion request's purge, removed messages, as its write committed (before anything stored
   * after it is announced): `topId` is the highest message id left (0: none). Ids are reused, so the
   * next message stored may take an id a follower already passed (queries/message-follow.ts).
   */
  'messages.removed': { topId: number };
  /** Messages were pruned (retention) or cleared, after the change is stored (retention/pruner.ts). */
  'storage.pruned': PruneReport;
  /** Damage was found while running, or the background check of the store began or ended (store-check/store-health.ts). */
  'storage.health': StoreHealth;
  /** A deletion request purged a user's stored messages, after the change is stored (deletions/deletion-requests.ts). */
  'messages.purged': { userId: string; messages: number };
  /** Messages were pinned or unpinned (messages.pin), after the change is stored. */
  'messages.pinned': { ids: number[]; pinned: boolean };
  /** Faults were added, used up, ended or cleared, or a request was faulted (faults/ingest-faults.ts): in memory only. */
  'faults.changed': null;
  /** A bulk retry of Issues moved on or ended (issues/bulk-retry.ts). */
  'issues.retryProgress': IssueRetryProgress;
}

type Listener<T> = (payload: T) => void;

/** A small typed event bus. A failing listener is reported, never allowed to break the emitter. */
export class EventBus {
  readonly #listeners = new Map<keyof CoreEvents, Set<Listener<never>>>();
  readonly #onListenerError: (error: unknown, event: string) => void;

  constructor(onListenerError: (error: unknown, event: string) => void = (error, event) => {
    console.error(`sluice: a listener of "${event}" failed:`, error);
  }) {
    this.#onListenerError = onListenerError;
  }

  on<K extends keyof CoreEvents>(event: K, listener: Listener<CoreEvents[K]>): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  emit<K extends keyof CoreEvents>(event: K, payload: CoreEvents[K]): void {
    const set = this.#listeners.get(event);
    if (!set) return;
    for (const listener of set) {
      try {
        (listener as Listener<CoreEvents[K]>)(payload);
      } catch (error) {
        this.#onListenerError(error, event);
      }
    }
  }
}
