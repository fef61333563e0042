import { useEffect, useState } from 'react';
import type { DestinationView, MessageDetail } from '../../../../shared/contract.ts';
import { Field } from '../../components/Field.tsx';
import { TryResult } from './TryResult.tsx';
import { useTry } from './use-try.ts';
import './transforms.css';

/**
 * "Try on this message", on a message's detail: pick a destination (those of the message's source
 * first) and see what its filters and transform make of the message — decisions, input → output,
 * logs, time, the bodies — without sending or storing anything.
 */
export function TryPanel({ message, destinations }: { message: MessageDetail; destinations: readonly DestinationView[] }) {
  const own = destinations.filter((d) => d.sourceIds.includes(message.sourceId));
  const others = destinations.filter((d) => !d.sourceIds.includes(message.sourceId));
  const first = (message.deliveries[0] ? destinations.find((d) => d.id === message.deliveries[0]!.destinationId) : undefined) ?? own[0] ?? others[0];
  const [destinationId, setDestinationId] = useState<number | null>(first?.id ?? null);
  const [skipTransform, setSkipTransform] = useState(false);
  useEffect(() => {
    if (destinationId === null && first) setDestinationId(first.id);
  }, [first?.id]);
  const chosen = destinations.find((d) => d.id === destinationId) ?? null;
  const rejected = message.status === 'rejected';
  const request = chosen && !rejected ? { messageId: message.id, destinationId: chosen.id, ...(skipTransform ? { source: null } : {}) } : null;
  const { state, again } = useTry(request);

  return (
    <section className="tf-try" aria-label="Try on this message">
      <p className="hint">What a destination’s filters and transform make of this message, and the bodies it would send. Sluice sends and stores nothing; the transform runs for real, so what it fetches itself, it fetches.</p>
      {rejected ? (
        <p className="banner banner-bad" role="note">
          This message was rejected at ingestion: it is never delivered, so there is nothing to try.
        </p>
      ) : destinations.length === 0 ? (
        <p className="hint">There is no destination yet: add one under Destinations, then try its filters and transform here.</p>
      ) : (
        <div className="tf-try-controls">
          <Field label="Destination" className="tf-try-destination">
            {(control) => (
              <select {...control} value={destinationId ?? ''} onChange={(e) => setDestinationId(Number(e.target.value))}>
                {own.length > 0 ? (
                  <optgroup label="Of this message’s source">
                    {own.map((d) => (
                      <option key={d.id} value={d.id}>
                        {d.name}
                      </option>
                    ))}
                  </optgroup>
                ) : null}
                {others.length > 0 ? (
                  <optgroup label="Other destinations">
                    {others.map((d) => (
                      <option key={d.id} value={d.id}>
                        {d.name}
                      </option>
                    ))}
                  </optgroup>
                ) : null}
              </select>
            )}
          </Field>
          <label className="tf-check">
            <input type="checkbox" checked={skipTransform} onChange={(e) => setSkipTransform(e.target.checked)} />
            Skip the transform
          </label>
          <button type="button" className="btn btn-small" onClick={again} disabled={!request}>
            Try again
          </button>
        </div>
      )}
      <div aria-live="polite" aria-busy={state.kind === 'running'} className="tf-try-out">
        {state.kind === 'error' ? (
          <p role="alert" className="error-text">
            Could not try it: {state.message}
          </p>
        ) : state.kind === 'done' ? (
          <TryResult result={state.result} forward={chosen?.kind === 'tracking-api'} />
        ) : state.kind === 'running' ? (
          state.last ? <TryResult result={state.last} forward={chosen?.kind === 'tracking-api'} /> : <p className="muted">Trying…</p>
        ) : null}
      </div>
    </section>
  );
}
