import { useState } from 'react';
import type { DeletionRequestView } from '../../../../shared/contract.ts';
import { absoluteTime, relativeTime } from '../../lib/format.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { describeNotification } from './notification-status.ts';
import { useDeletions } from './use-deletions.ts';
import { ErrorText } from '../../components/ErrorText.tsx';
import { Field } from '../../components/Field.tsx';

/**
 * Deletion requests (seed §1.7): ask for a user's data to be deleted, and watch the `delete`
 * notification Sluice delivers to each affected destination — signed and retried like any delivery.
 */
export function DeletionsView() {
  const inspector = useInspector();
  const { requests, error, reload } = useDeletions();
  const [userId, setUserId] = useState('');
  const [purge, setPurge] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async () => {
    const user = userId.trim();
    if (user === '') {
      setFormError('Enter the userId whose data should be deleted, e.g. u_123.');
      return;
    }
    setBusy(true);
    const result = await inspector.call('deletions.create', { userId: user, purge });
    setBusy(false);
    if (!result.ok) {
      setFormError(`The deletion request was refused: ${result.error.message}`);
      return;
    }
    const { sourceIds, deliveryIds, purgedMessages } = result.value;
    setFormError(null);
    setUserId('');
    setOutcome(
      sourceIds.length === 0
        ? `No source holds messages of ${user}, so there was no destination to notify. The request is recorded.`
        : `Requested: ${deliveryIds.length} delete notification${deliveryIds.length === 1 ? '' : 's'} queued` +
            (deliveryIds.length === 0 ? ' (no enabled destination is connected to the affected sources)' : '') +
            (purge ? `; ${purgedMessages} stored message${purgedMessages === 1 ? '' : 's'} deleted.` : '.'),
    );
    reload();
  };

  return (
    <section className="tool-view deletions" aria-labelledby="deletions-title">
      <header className="tool-view-head">
        <h2 id="deletions-title">Deletions</h2>
        <p className="hint">
          A deletion request sends a <code>delete</code> notification for the user to every enabled webhook destination of the sources that hold
          their messages. Each notification is signed and retried like any delivery.
        </p>
      </header>
      <form
        className="deletion-form"
        aria-label="New deletion request"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
      >
        <Field label="User ID">
          {(control) => (
            <input
              {...control}
              // Its problem shows under the whole form (#deletion-error), which stays on one line.
              aria-invalid={formError ? true : undefined}
              aria-describedby="deletion-error"
              type="text"
              value={userId}
              placeholder="u_123"
              maxLength={1024}
              autoComplete="off"
              onChange={(e) => {
                setUserId(e.target.value);
                setFormError(null);
              }}
            />
          )}
        </Field>
        <label className="tool-check">
          <input type="checkbox" checked={purge} onChange={(e) => setPurge(e.target.checked)} />
          Also delete the user’s stored messages from Sluice
        </label>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          Request deletion
        </button>
      </form>
      <p id="deletion-error" className="tool-field-error" role="alert">
        {formError ?? ''}
      </p>
      {outcome ? (
        <p className="muted" role="status">
          {outcome}
        </p>
      ) : null}

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
          {request.purge ? ` · ${request.purgedMessages} stored message${request.purgedMessages === 1 ? '' : 's'} deleted` : ''}
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
                  {/* "Replay all failed" replays a failed notification under its request. */}
                  <td>{d.trigger === 'replay' ? `${destination} (replay)` : destination}</td>
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
