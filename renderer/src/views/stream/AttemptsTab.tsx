import { useState } from 'react';
import type { DeliveryView, DestinationView, MessageDetail } from '../../../../shared/contract.ts';
import { absoluteTime, clockTime } from '../../lib/format.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { deliveryName, nextAttemptWords, stateWords } from '../../store/delivery-words.ts';
import { useInspector } from '../../store/react.ts';
import { AttemptsWaterfall } from '../../components/AttemptsWaterfall.tsx';
import { formatDuration } from '../../lib/format.ts';
import { OutputDiff, runTone, TransformRun } from '../transforms/TransformRun.tsx';

export function AttemptsTab({ message, delivery, destinations }: {
  message: MessageDetail;
  delivery: DeliveryView | null;
  destinations: readonly DestinationView[];
}) {
  const inspector = useInspector();
  const now = useSecondClock();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  if (!delivery) return <div className="tab-empty"><p>No delivery, so no attempts{message.status !== 'accepted' ? ` (the message is ${message.status})` : ''}.</p></div>;
  const act = async (what: 'deliveries.retryNow' | 'deliveries.cancel') => {
    setBusy(true);
    setProblem(null);
    const result = await inspector.call(what, { ids: [delivery.id] });
    setBusy(false);
    if (!result.ok) setProblem(result.error.message);
    inspector.refreshDetail();
  };
  const open = delivery.status === 'pending' || delivery.status === 'retrying';

  return (
    <div className="attempts-tab">
      <dl className="facts">
        <div className="fact">
          <dt>delivery</dt>
          <dd>{deliveryName(delivery, message.deliveries, destinations)}</dd>
        </div>
        <div className="fact">
          <dt>status</dt>
          <dd className={`status-${delivery.status}`}>{stateWords(delivery, now)}</dd>
        </div>
        {delivery.shaping ? (
          <div className="fact">
            <dt>filters, transform</dt>
            <dd>{delivery.shaping}</dd>
          </div>
        ) : null}
        {delivery.lastError ? (
          <div className="fact">
            <dt>last error</dt>
            <dd>{delivery.lastError}</dd>
          </div>
        ) : null}
        <div className="fact">
          <dt>first attempt</dt>
          <dd>{delivery.firstAttemptAt === null ? '—' : absoluteTime(delivery.firstAttemptAt)}</dd>
        </div>
        {/* Only a delivery still open has a next attempt and a time it retries until; a final one says why it ended (status). */}
        {open ? (
          <div className="fact">
            <dt>next attempt</dt>
            <dd>
              {nextAttemptWords(delivery, now)}
              {delivery.nextAttemptAt === null ? '' : ` (${clockTime(delivery.nextAttemptAt)})`}
            </dd>
          </div>
        ) : null}
        {open ? (
          <div className="fact">
            <dt>retries until</dt>
            <dd>{delivery.deadlineAt === null ? '4 h after the first attempt' : `${absoluteTime(delivery.deadlineAt)} (4 h after the first attempt)`}</dd>
          </div>
        ) : null}
      </dl>
      {open ? (
        <div className="toolbar">
          <button type="button" className="btn" disabled={busy} onClick={() => void act('deliveries.retryNow')}>
            Retry now
          </button>
          <button type="button" className="btn" disabled={busy} onClick={() => void act('deliveries.cancel')}>
            Cancel delivery
          </button>
          {problem ? <span role="alert" className="error-text">{problem}</span> : null}
        </div>
      ) : null}
      <AttemptsWaterfall attempts={delivery.attempts} />
      {delivery.transform ? (
        <section aria-label="Transform run">
          <h4 className="section-title">
            Transform run <span className="muted">version <code>{delivery.transform.version}</code> · ran in {formatDuration(delivery.transform.ms)}</span>
          </h4>
          <TransformRun run={delivery.transform} tone={runTone(delivery.transform.outcome)}>
            {message.message
              ? (delivery.transform.output ?? []).map((output, i, all) => <OutputDiff key={i} input={message.message!} output={output} index={i} count={all.length} />)
              : null}
            {delivery.transform.outputBytes ? <p className="hint">Its output ({delivery.transform.outputBytes} bytes) was too big to keep with the attempt.</p> : null}
          </TransformRun>
        </section>
      ) : null}
    </div>
  );
}
