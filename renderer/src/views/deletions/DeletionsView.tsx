import type { DeletionRequestView } from '../../../../shared/contract.ts';
import { absoluteTime, relativeTime, plural } from '../../lib/format.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { useInspectorState } from '../../store/react.ts';
import { describeNotification } from './notification-status.ts';
import { deliveryName } from '../../store/delivery-words.ts';
import { useDeletions } from './use-deletions.ts';
import { ErrorText } from '../../components/ErrorText.tsx';
import { DeletionForm } from './DeletionForm.tsx';

/**
 * Deletion requests (seed §1.7): ask for a user's data to be deleted, and watch the `delete`
 * notification Sluice delivers to each affected destination — signed and retried like any delivery.
 */
export function DeletionsView() {
  const { requests, error, reload } = useDeletions();

  return (
    <section className="tool-view deletions" aria-labelledby="deletions-title">
      <header className="tool-view-head">
        <h2 id="deletions-title">Deletions</h2>
        <p className="hint">
          A deletion request sends a <code>delete</code> notification for the user to every enabled webhook destination of the sources that hold
          their messages. Each notification is signed and retried like any delivery. A purge also deletes what Sluice keeps of the user: it asks
          first, saying what it removes.
        </p>
      </header>
      <DeletionForm onSent={reload} />

      <h3 className="section-title">Requests</h3>
      <ErrorText error={error} />
      {requests === null ? (
        <div className="inbox-loading" aria-busy="true" aria-label="Loading deletion requests" />
      ) : requests.length === 0 ? (
        <p className="muted">No deletion request yet.</p>
      ) : (
        <ul className="deletion-requests" aria-label="Deletion requests">
          {requests.map((request) => (
            <RequestItem key={request.id} request={request} />
          ))}
        </ul>
      )}
    </section>
  );
}

function RequestItem({ request }: { request: DeletionRequestView }) {
  const now = useSecondClock();
  const sources = useInspectorState((s) => s.info?.sources ?? []);
  const destinations = useInspectorState((s) => s.destinations);
  const sourceNames = request.sourceIds.map((id) => sources.find((s) => s.id === id)?.name ?? `source ${id}`);
  return (
    <li className="deletion-request" aria-label={`Deletion request for ${request.userId}`}>
      <div className="deletion-head">
        <span className="type-badge type-delete">delete</span>
        <strong className="mono">{request.userId}</strong>
        <time className="muted" dateTime={new Date(request.requestedAt).toISOString()} title={absoluteTime(request.requestedAt)}>
          {relativeTime(request.requestedAt, now)}
        </time>
        <span className="muted">
          {sourceNames.length > 0 ? `sources: ${sourceNames.join(', ')}` : 'no source held messages of this user'}
          {request.purge ? ` · ${plural(request.purgedMessages, 'stored message')} deleted` : ''}
        </span>
      </div>
      {request.deliveries.length === 0 ? (
        <p className="muted deletion-none">No destination was notified.</p>
      ) : (
        <table className="deletion-table" aria-label={`Notifications for ${request.userId}`}>
          <thead>
            <tr>
              <th scope="col">Destination</th>
              <th scope="col">Status</th>
              <th scope="col">Last answer</th>
              <th scope="col">Attempts</th>
            </tr>
          </thead>
          <tbody>
            {request.deliveries.map((d) => {
              const text = describeNotification(d, now);
              const destination = destinations.find((x) => x.id === d.destinationId)?.name ?? `destination ${d.destinationId}`;
              return (
                <tr key={d.id}>
                  {/* "Replay all failed" replays a failed notification under its request: named apart ("myapp · replay 2 · 14:03:12"). */}
                  <td>{d.trigger === 'replay' ? deliveryName(d, request.deliveries, destinations) : destination}</td>
                  <td className={`tone-${text.tone}`} title={d.lastError ?? undefined}>
                    {text.label}
                  </td>
                  <td className="mono">{text.lastAnswer ?? '—'}</td>
                  <td>{d.attemptCount}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </li>
  );
}
