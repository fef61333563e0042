import { useEffect, useRef, useState } from 'react';
import type { CoreEvent } from '../../../../shared/contract.ts';
import { useInspector, useNow } from '../../store/react.ts';
import { applyChange, tell, type TestRun } from './test-run.ts';

type Change = Extract<CoreEvent, { type: 'deliveries.changed' }>['changes'][number];

/**
 * "Send test event": one signed track message through the delivery engine to the saved
 * destination (destinations.sendTest), its outcome followed live from `deliveries.changed`.
 */
export function TestEventPanel({ destinationId, blockedBy }: { destinationId: number; blockedBy: string | null }) {
  const inspector = useInspector();
  const [run, setRun] = useState<TestRun | null>(null);
  const [body, setBody] = useState<string | null>(null);
  const [acting, setActing] = useState<string | null>(null);
  const now = useNow(1000);
  // Changes that arrive before sendTest answers (a fast receiver) are kept and applied to the run.
  const early = useRef<Change[]>([]);
  const awaitingId = useRef(false);

  useEffect(
    () =>
      inspector.subscribe((events) => {
        const changes = events.flatMap((e) => (e.type === 'deliveries.changed' ? e.changes : []));
        if (changes.length === 0) return;
        if (awaitingId.current) early.current.push(...changes);
        setRun((current) => (current ? changes.reduce(applyChange, current) : current));
      }),
    [inspector],
  );

  const send = async () => {
    early.current = [];
    awaitingId.current = true;
    setRun({ phase: 'sending' });
    setBody(null);
    const result = await inspector.call('destinations.sendTest', { id: destinationId });
    awaitingId.current = false;
    if (!result.ok) {
      setRun({ phase: 'refused', message: result.error.message });
      return;
    }
    setBody(result.value.body);
    const sent: TestRun = { phase: 'sent', deliveryId: result.value.deliveryId, status: 'pending', attemptCount: 0, nextAttemptAt: null, lastError: null };
    setRun(early.current.reduce(applyChange, sent));
    early.current = [];
  };

  const act = async (what: 'retry' | 'cancel') => {
    if (run?.phase !== 'sent') return;
    setActing(what);
    const result = await inspector.call(what === 'retry' ? 'deliveries.retryNow' : 'deliveries.cancel', { ids: [run.deliveryId] });
    setActing(null);
    if (!result.ok) setRun({ phase: 'refused', message: result.error.message });
    else if (what === 'cancel' && result.value.changed > 0) setRun({ ...run, status: 'cancelled' });
  };

  const told = run ? tell(run, now) : null;
  const retrying = run?.phase === 'sent' && run.status === 'retrying';
  return (
    <section className="dst-test" aria-labelledby="dst-test-title">
      <h3 id="dst-test-title" className="section-title">
        Test
      </h3>
      <div className="dst-test-row">
        <button type="button" className="btn" disabled={blockedBy !== null || run?.phase === 'sending'} onClick={() => void send()}>
          Send test event
        </button>
        <p className="hint dst-test-hint">
          {blockedBy ?? 'Sends one signed track event (“Sluice Test Event”) to this destination’s webhooks only, with its headers and secret.'}
        </p>
      </div>
      <div className={`dst-test-outcome${told ? ` tone-${told.tone}` : ''}`} role="status" aria-label="Test event outcome">
        {told?.text ?? ''}
      </div>
      {retrying ? (
        <div className="toolbar">
          <button type="button" className="btn btn-small" disabled={acting !== null} onClick={() => void act('retry')}>
            Retry now
          </button>
          <button type="button" className="btn btn-small" disabled={acting !== null} onClick={() => void act('cancel')}>
            Stop retrying
          </button>
        </div>
      ) : null}
      {body ? (
        <details className="dst-test-body">
          <summary>Body sent</summary>
          <pre className="code-block">{body}</pre>
        </details>
      ) : null}
    </section>
  );
}
