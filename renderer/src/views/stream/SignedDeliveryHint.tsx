import { useId, useState } from 'react';
import type { Responses } from '../../../../shared/contract.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

type Connected = NonNullable<Responses['receiver.connect']['destination']>;

/**
 * Messages stored but sent nowhere — no enabled destination receives their source — and the way to a
 * signed delivery (UI.md: empty states teach; this one after the first event, not only before it):
 * the built-in receiver in one click (`receiver.connect`: the "Built-in receiver" destination, signed,
 * as "Send sample events" makes it), or a webhook of one's own. Nothing when the source delivers
 * somewhere, unless this hint just connected it (then it says what happens next).
 */
export function SignedDeliveryHint({ sourceId }: { sourceId: number }) {
  const inspector = useInspector();
  const delivering = useInspectorState((s) => s.destinations.some((d) => d.enabled && d.sourceIds.includes(sourceId)));
  const source = useInspectorState((s) => s.info?.sources.find((x) => x.id === sourceId));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [connected, setConnected] = useState<Connected | null>(null);
  const titleId = useId();
  if (!source || (delivering && !connected)) return null;

  const connect = async () => {
    setBusy(true);
    setProblem(null);
    const result = await inspector.call('receiver.connect', { sourceId });
    setBusy(false);
    if (!result.ok) setProblem(`Could not connect the built-in receiver: ${result.error.message}`);
    else if (result.value.destination) setConnected(result.value.destination);
  };

  return (
    <section className="signed-hint" aria-labelledby={titleId}>
      <h3 id={titleId}>{connected ? 'Delivering to the built-in receiver' : 'Stored, but sent nowhere'}</h3>
      {connected ? (
        <p role="status">
          {connected.created ? 'Made' : 'Connected'} the destination “{connected.name}” (<code>{connected.hookUrl}</code>, signed with its shared
          secret): the next message of “{source.name}” is delivered to it and shows, with its signature verdict, under{' '}
          <a href="#/receiver">Receiver</a>. To send a message already stored, replay it from its Replay tab.
        </p>
      ) : (
        <>
          <p>
            No enabled destination receives source “{source.name}”, so its messages are stored without a webhook request. To see a signed
            delivery:
          </p>
          <div className="toolbar">
            <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void connect()}>
              {busy ? 'Connecting…' : 'Deliver to the built-in receiver'}
            </button>
            <span className="muted">a destination posting to Sluice’s own receiver, signed with a new shared secret</span>
          </div>
          <p className="hint">
            Or add your own webhook under <a href="#/destinations">Destinations</a> (or in the config of <code>sluice serve --config</code>).
          </p>
          {problem ? (
            <p role="alert" className="error-text">
              {problem}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
