import { useEffect, useId, useRef, useState } from 'react';
import type { DeliveryView } from '../../../../shared/contract.ts';
import type { DeliveryChange } from '../../store/model.ts';
import { useInspector, useInspectorState, useNow } from '../../store/react.ts';
import { AttemptsWaterfall } from '../../components/AttemptsWaterfall.tsx';
import { applyChange, applyDelivery, tell, testHint, type TestRun } from './test-run.ts';

/**
 * "Send test event": one track message through the delivery engine to the saved destination
 * (destinations.sendTest) — signed to its webhooks, or forwarded to its Tracking API (`forward`) —
 * its outcome followed live from `deliveries.changed` and read again (`deliveries.get`) after a
 * reconnect, when changes may have been missed; its attempts on demand.
 */
export function TestEventPanel({ destinationId, forward, blockedBy }: { destinationId: number; forward: boolean; blockedBy: string | null }) {
  const inspector = useInspector();
  const [run, setRun] = useState<TestRun | null>(null);
  const [body, setBody] = useState<string | null>(null);
  const [acting, setActing] = useState<string | null>(null);
  const now = useNow(1000);
  // Changes that arrive before sendTest answers (a fast receiver) are kept and applied to the run.
  const early = useRef<DeliveryChange[]>([]);
  const awaitingId = useRef(false);
  const open = useInspectorState((s) => s.connection.kind === 'open');
  const [showAttempts, setShowAttempts] = useState(false);
  const [delivery, setDelivery] = useState<{ view: DeliveryView | null; problem: string | null }>({ view: null, problem: null });
  const reads = useRef(0);
  const attemptsId = useId();
  const deliveryId = run?.phase === 'sent' ? run.deliveryId : null;
  // What the attempts shown depend on: read again when it changes while they are open.
  const progress = run?.phase === 'sent' ? `${run.status}:${run.attemptCount}` : null;

  // The delivery as stored: once its id is known, after every reconnect, and on each change while its attempts are shown.
  useEffect(() => {
    if (!open || deliveryId === null) return;
    const read = ++reads.current;
    void inspector.call('deliveries.get', { id: deliveryId }).then((result) => {
      if (read !== reads.current) return; // a newer read is under way
      if (!result.ok) {
        setDelivery((d) => ({ ...d, problem: `Could not read the test delivery: ${result.error.message}.` }));
        return;
      }
      setDelivery({ view: result.value, problem: null });
      setRun((current) => (current?.phase === 'sent' && current.deliveryId === deliveryId ? applyDelivery(current, result.value) : current));
    });
  }, [inspector, open, deliveryId, showAttempts ? progress : null]);

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
    setDelivery({ view: null, problem: null });
    const result = await inspector.call('destinations.sendTest', { id: destinationId });
    awaitingId.current = false;
    if (!result.ok) {
      setRun({ phase: 'refused', message: result.error.message });
      return;
    }
    setBody(result.value.body);
    const sent: TestRun = { phase: 'sent', deliveryId: result.value.deliveryId, status: 'pending', attemptCount: 0, nextAttemptAt: null, lastError: null, lastErrorCode: null, lastHttpStatus: null };
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

  const told = run ? tell(run, now, forward) : null;
  const retrying = run?.phase === 'sent' && run.status === 'retrying';
  const shownView = delivery.view?.id === deliveryId ? delivery.view : null;
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
          {blockedBy ?? testHint(forward)}
        </p>
      </div>
      <div className={`dst-test-outcome${told ? ` tone-${told.tone}` : ''}`} role="status" aria-label="Test event outcome">
        {told?.text ?? ''}
      </div>
      {deliveryId !== null ? (
        <div className="toolbar">
          <button
            type="button"
            className="btn btn-small"
            aria-expanded={showAttempts}
            aria-controls={attemptsId}
            onClick={() => setShowAttempts((shown) => !shown)}
          >
            {showAttempts ? 'Hide attempts' : 'Show attempts'}
          </button>
          {retrying ? (
            <>
              <button type="button" className="btn btn-small" disabled={acting !== null} onClick={() => void act('retry')}>
                Retry now
              </button>
              <button type="button" className="btn btn-small" disabled={acting !== null} onClick={() => void act('cancel')}>
                Stop retrying
              </button>
            </>
          ) : null}
        </div>
      ) : null}
      {deliveryId !== null && showAttempts ? (
        <section id={attemptsId} className="dst-test-attempts" aria-label={`Attempts of test delivery #${deliveryId}`}>
          {delivery.problem ? (
            <p className="dst-error" role="alert">
              {delivery.problem}
            </p>
          ) : shownView ? (
            <AttemptsWaterfall attempts={shownView.attempts} />
          ) : (
            <p className="muted">Reading its attempts…</p>
          )}
        </section>
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
