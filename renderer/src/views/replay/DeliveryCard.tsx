import type { DeliveryView, MessageSummary } from '../../../../shared/contract.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { absoluteTime } from '../../lib/format.ts';
import { describeOutcome } from '../../store/outcome.ts';
import type { DeliveryState } from './bulk-progress.ts';

/** What a card shows of a delivery: the stored view, overtaken by a newer live state when there is one. */
export interface CardDelivery {
  id: number;
  /** The delivery's name (store/delivery-words.ts deliveryName): its destination, and which replay it is. */
  destinationName: string;
  /** Where it goes: a replay's own URL, or the destination's webhooks. */
  target: string;
  state: DeliveryState;
  skipReason: string | null;
  createdAt: number | null;
}

/** The live state wins when it is at least as far along (more attempts, or a final state at the same count). */
export function liveState(stored: DeliveryView | undefined, live: DeliveryState | undefined): DeliveryState {
  const base: DeliveryState = stored
    ? {
        status: stored.status,
        attemptCount: stored.attemptCount,
        nextAttemptAt: stored.nextAttemptAt,
        lastError: stored.lastError,
        lastErrorCode: stored.lastErrorCode,
        lastHttpStatus: stored.lastHttpStatus,
      }
    : { status: 'pending', attemptCount: 0, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null };
  if (!live || live.attemptCount < base.attemptCount) return base;
  return live;
}

/** One delivery's status, attempts and countdown, in the stream's words. */
export function DeliveryCard({ title, message, delivery, onShowAttempts, emptyText = 'No earlier delivery to this destination.' }: {
  title: string;
  message: MessageSummary;
  delivery: CardDelivery | null;
  onShowAttempts?: ((deliveryId: number) => void) | undefined;
  /** What the card says without a delivery. */
  emptyText?: string;
}) {
  const now = useSecondClock();
  if (!delivery) {
    return (
      <section className="delivery-card delivery-card-none" aria-label={title}>
        <h4>{title}</h4>
        <p className="muted">{emptyText}</p>
      </section>
    );
  }
  const { state } = delivery;
  const outcome = describeOutcome(
    { ...message, status: 'accepted', delivery: { id: delivery.id, ...state, skipReason: delivery.skipReason }, deliveryCount: 1 },
    now,
  );
  return (
    <section className="delivery-card" aria-label={`${title} #${delivery.id}`} data-status={state.status}>
      <h4>
        {title} <span className="muted">#{delivery.id}</span>
      </h4>
      <p className={`delivery-card-status tone-${outcome.tone}`} title={outcome.title}>
        {outcome.label}
      </p>
      <dl className="facts">
        <div className="fact">
          <dt>delivery</dt>
          <dd>{delivery.destinationName}</dd>
        </div>
        <div className="fact">
          <dt>sent to</dt>
          <dd>
            <code>{delivery.target}</code>
          </dd>
        </div>
        <div className="fact">
          <dt>attempts</dt>
          <dd>{state.attemptCount}</dd>
        </div>
        {state.lastError ? (
          <div className="fact">
            <dt>last error</dt>
            <dd>{state.lastError}</dd>
          </div>
        ) : null}
        {delivery.createdAt !== null ? (
          <div className="fact">
            <dt>created</dt>
            <dd>{absoluteTime(delivery.createdAt)}</dd>
          </div>
        ) : null}
      </dl>
      {onShowAttempts ? (
        <button type="button" className="btn btn-small" onClick={() => onShowAttempts(delivery.id)}>
          Show attempts
        </button>
      ) : null}
    </section>
  );
}
