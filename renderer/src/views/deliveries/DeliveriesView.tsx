import { useState } from 'react';
import { OVERVIEW_WINDOWS, type DestinationFunnel, type OverviewWindow } from '../../../../shared/channels/overview.ts';
import { deliveryStepQuery } from '../../../../shared/message-query.ts';
import { ErrorText } from '../../components/ErrorText.tsx';
import { Field } from '../../components/Field.tsx';
import { absoluteTime, formatCount } from '../../lib/format.ts';
import { navigate } from '../../lib/route.ts';
import { useInspector } from '../../store/react.ts';
import { useLive } from '../../store/use-live.ts';
import { funnelLines, skipLabel, type FunnelLine } from './funnel-steps.ts';
import './deliveries.css';

const WINDOW_LABELS: Record<OverviewWindow, string> = { '10m': 'Last 10 minutes', '1h': 'Last hour', '24h': 'Last 24 hours', '7d': 'Last 7 days', all: 'All time' };

/**
 * The delivery overview: per destination, what became of the messages its sources routed to it in a
 * window — received, filtered or blocked (with each reason), attempted, delivered, retrying, failed.
 * Each count opens the stream on exactly its messages (delivery:"name:step" over the window's from–to).
 * Counted in the core's counting thread; read again as deliveries change (useLive: one load at a time).
 */
export function DeliveriesView() {
  const inspector = useInspector();
  const [window, setWindow] = useState<OverviewWindow>('24h');
  const { data, error } = useLive({
    load: () => inspector.call('overview.deliveries', { window }),
    concerns: (events) => events.some((e) => e.type === 'deliveries.changed' || e.type === 'messages.stored' || e.type === 'settings.changed' || e.type === 'store.reset'),
    what: 'the delivery overview',
    key: window,
    everyMs: 1000,
    keepAcrossKeys: true,
  });

  const open = (f: DestinationFunnel, line: FunnelLine) => {
    if (!data) return;
    inspector.setFilters({
      type: null,
      status: null,
      sourceId: null,
      violations: undefined,
      event: undefined,
      plan: undefined,
      search: deliveryStepQuery(f.name, line.step),
      time: { kind: 'between', from: data.from === null ? null : Date.parse(data.from), to: Date.parse(data.at) },
    });
    navigate('stream');
  };

  return (
    <section className="tool-view deliveries" aria-labelledby="deliveries-title">
      <header className="tool-view-head">
        <h2 id="deliveries-title">Delivery overview</h2>
        <p className="hint">
          What became of the messages each destination's sources sent it: filtered or blocked, attempted, delivered, retrying or failed. Each count
          opens the stream on exactly those messages.
        </p>
        <Field label="Window" className="overview-window">
          {(control) => (
            <select {...control} aria-label="Window" value={window} onChange={(e) => setWindow(e.target.value as OverviewWindow)}>
              {(Object.keys(OVERVIEW_WINDOWS) as OverviewWindow[]).map((w) => (
                <option key={w} value={w}>
                  {WINDOW_LABELS[w]}
                </option>
              ))}
            </select>
          )}
        </Field>
        {data ? (
          <p className="muted overview-when">
            {data.from ? `Received from ${whenText(data.from)} ` : 'Everything stored, received up '}to {whenText(data.at)}
          </p>
        ) : null}
      </header>
      <ErrorText error={error} />
      {data === null && !error ? <p className="muted">Counting…</p> : null}
      {data && data.destinations.length === 0 ? <p className="muted">No destination yet: add one under Destinations, and its deliveries show here.</p> : null}
      <div className="funnels">
        {data?.destinations.map((f) => <Funnel key={f.id} funnel={f} onOpen={(line) => open(f, line)} />)}
      </div>
    </section>
  );
}

/** A moment as a person reads it (the local date and time to the second); the ISO form on hover elsewhere. */
const whenText = (iso: string) => absoluteTime(Date.parse(iso)).split(' (')[0]!;

function Funnel({ funnel: f, onOpen }: { funnel: DestinationFunnel; onOpen: (line: FunnelLine) => void }) {
  const titleId = `funnel-${f.id}`;
  return (
    <section className="funnel" aria-labelledby={titleId}>
      <h3 id={titleId} className="section-title">
        {f.name}
        {f.enabled ? null : <span className="muted"> · disabled</span>}
      </h3>
      <table className="funnel-steps">
        <caption className="sr-only">Delivery steps of {f.name}</caption>
        <tbody>
          {funnelLines(f).map((line) => (
            <tr key={line.step} className={`funnel-line depth-${line.depth} tone-${line.tone}`}>
              <th scope="row">{line.label}</th>
              <td className="funnel-count">
                {line.count > 0 ? (
                  <button type="button" className="btn count-button" aria-label={`${formatCount(line.count)} ${line.label.toLowerCase()} — open in the stream (${f.name})`} onClick={() => onOpen(line)}>
                    {formatCount(line.count)}
                  </button>
                ) : (
                  <span>0</span>
                )}
              </td>
              <td className="funnel-bar" aria-hidden="true">
                <span style={{ width: `${f.received ? Math.max(line.count ? 1 : 0, Math.round((100 * line.count) / f.received)) : 0}%` }} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {f.reasons.length > 0 ? (
        <details className="funnel-reasons">
          <summary>Reasons not sent ({f.reasons.length})</summary>
          <ul aria-label={`Reasons ${f.name} did not send`}>
            {f.reasons.map((r) => (
              <li key={r.reason}>
                <span className="reason-count">{formatCount(r.count)}</span> <span className="muted">{skipLabel(r.kind)}:</span> {r.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}
