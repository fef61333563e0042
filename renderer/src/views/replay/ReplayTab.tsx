import { useEffect, useId, useMemo, useState } from 'react';
import type { DeliveryView, DestinationView, MessageDetail } from '../../../../shared/contract.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { useInspector } from '../../store/react.ts';
import { DeliveryCard, liveState, type CardDelivery } from './DeliveryCard.tsx';
import { checkJsonBody } from './json-check.ts';
import { JsonEditor } from './JsonEditor.tsx';
import { useReplayState, useReplayStore } from './replay-store.ts';
import { ReplayTarget, targetRequest, type TargetChoice } from './ReplayTarget.tsx';
import { bodyCaption, deliveryTarget, editedNote, replayBody, signingHint } from './replay-words.ts';
import { deliveryName } from '../../store/delivery-words.ts';
import './replay.css';
import { plural } from '../../lib/format.ts';

/**
 * Replays one message: the exact body the chosen destination would send, editable (validated as
 * typed; an edited body is re-signed by the core), to the destination's webhooks or a typed URL; each
 * replay then shows live beside the delivery it repeats.
 */
export function ReplayTab({ message, delivery, destinations, onShowAttempts }: {
  message: MessageDetail;
  /** The delivery selected in the detail: its destination is the default. */
  delivery: DeliveryView | null;
  destinations: readonly DestinationView[];
  onShowAttempts: (deliveryId: number) => void;
}) {
  const inspector = useInspector();
  const preferred = delivery?.destinationId ?? destinations.find((d) => d.sourceIds.includes(message.sourceId))?.id ?? destinations[0]?.id ?? null;
  const [choice, setChoice] = useState<TargetChoice>({ destinationId: preferred, sendTo: 'webhooks', url: '' });
  // Destinations may arrive after the tab opened.
  useEffect(() => {
    if (choice.destinationId === null && preferred !== null) setChoice((c) => ({ ...c, destinationId: preferred }));
  }, [preferred, choice.destinationId]);
  const destination = destinations.find((d) => d.id === choice.destinationId);

  // A tracking-api destination forwards the message itself (the 'forward' shape), not a webhook body.
  const mapped = useMemo(() => (message.message && destination ? replayBody(message.message, destination) : null), [message.message, destination]);
  const original = useMemo(() => (mapped ? JSON.stringify(mapped, null, 2) : ''), [mapped]);
  // null: not edited, the text follows the chosen destination's body.
  const [edits, setEdits] = useState<string | null>(null);
  const text = edits ?? original;
  const check = useMemo(() => checkJsonBody(text), [text]);
  const compact = check.ok ? JSON.stringify(check.value) : null;
  const edited = compact !== null && mapped !== null && compact !== JSON.stringify(mapped);
  const target = targetRequest(choice);

  // An edited body through the destination's transform (skipTransform: false), when it has one.
  const [throughTransform, setThroughTransform] = useState(false);
  const [sending, setSending] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState<number[]>([]);
  const blockerId = useId();

  if (!message.message) {
    return (
      <div className="tab-empty">
        <p>
          Nothing to replay: this message was rejected at ingestion ({message.rejectCode}: {message.rejectReason}), so Sluice never forwards it. Send a
          corrected message instead.
        </p>
      </div>
    );
  }
  if (destinations.length === 0) {
    return (
      <div className="tab-empty">
        <p>No destination yet. A replay is signed and shaped by a destination: add one under Destinations, then come back to replay this message.</p>
      </div>
    );
  }

  const blocker = !destination
    ? 'Choose the destination the replay goes through.'
    : !check.ok
      ? 'Fix the JSON above to send it.'
      : !target.ok
        ? 'Fix the URL above to send it.'
        : null;

  const send = async () => {
    if (blocker !== null || !target.ok || !check.ok) return;
    setSending(true);
    setProblem(null);
    const { ok: _ok, ...fields } = target;
    const transformed = edited && throughTransform && destination?.transform ? { skipTransform: false } : {};
    const result = await inspector.call('deliveries.replay', { messageIds: [message.id], ...fields, ...(edited ? { body: check.value, ...transformed } : {}) });
    setSending(false);
    if (!result.ok) {
      setProblem(`The replay was refused: ${result.error.message}.`);
      return;
    }
    setSent((ids) => [...result.value.deliveryIds, ...ids]);
    inspector.refreshDetail();
  };

  const bytes = compact === null ? 0 : new TextEncoder().encode(compact).length;
  return (
    <div className="replay-tab">
      <ReplayTarget destinations={destinations} choice={choice} onChange={setChoice} sourceId={message.sourceId} />
      <div className="replay-body-head">
        <h3 className="section-title">
          Body{' '}
          {edited ? <span className="badge badge-warn">edited</span> : <span className="muted">{bodyCaption(destination)}</span>}
        </h3>
        <div className="toolbar">
          <button type="button" className="btn btn-small" disabled={edits === null} onClick={() => setEdits(null)}>
            Reset body
          </button>
          <CopyButton text={text} label="Copy replay body" />
        </div>
      </div>
      <JsonEditor value={text} onChange={setEdits} check={check} label="Replay body (JSON)" />
      <p className="hint">
        Indented here; sent compact{compact !== null ? ` (${plural(bytes, 'byte')})` : ''}.{' '}
        {destination ? signingHint(destination, edited) : null}
      </p>
      {edited && destination?.transform ? (
        <label className="replay-transform">
          <input type="checkbox" checked={throughTransform} onChange={(e) => setThroughTransform(e.target.checked)} /> Run {destination.name}’s transform on the edited body
        </label>
      ) : null}
      <div className="toolbar">
        <button type="button" className="btn btn-primary" disabled={blocker !== null || sending} aria-describedby={blockerId} onClick={() => void send()}>
          {sending ? 'Sending…' : 'Send replay'}
        </button>
        <span id={blockerId} className="muted">
          {blocker ?? (edited ? editedNote(destination, throughTransform) : '')}
        </span>
      </div>
      {problem ? (
        <p role="alert" className="error-text">
          {problem}
        </p>
      ) : null}
      <Replays message={message} destinations={destinations} sent={sent} onShowAttempts={onShowAttempts} />
    </div>
  );
}

/** Every replay of the message, newest first, each beside the delivery it repeats; live. */
function Replays({ message, destinations, sent, onShowAttempts }: {
  message: MessageDetail;
  destinations: readonly DestinationView[];
  sent: readonly number[];
  onShowAttempts: (deliveryId: number) => void;
}) {
  useReplayState((s) => s.rev); // re-render on live changes
  const live = useReplayStore().getState().deliveries;
  const stored = new Map(message.deliveries.map((d) => [d.id, d]));
  const ids = [...new Set([...sent, ...message.deliveries.filter((d) => d.trigger === 'replay').map((d) => d.id)])].sort((a, b) => b - a);
  if (ids.length === 0) return null;
  const card = (d: DeliveryView | undefined, id: number): CardDelivery => ({
    id,
    // Named apart from the message's other deliveries: "myapp · replay 2 · 14:03:12".
    destinationName: d ? deliveryName(d, message.deliveries, destinations) : '…',
    target: d ? deliveryTarget(d, destinations.find((x) => x.id === d.destinationId)) : '…',
    state: liveState(d, live.get(id)),
    skipReason: d?.skipReason ?? null,
    createdAt: d?.createdAt ?? null,
  });
  return (
    <section className="replays" aria-label="Replays of this message">
      <h3 className="section-title">Replays of this message</h3>
      <ol className="replay-pairs">
        {ids.map((id) => {
          const replay = stored.get(id);
          const original = replay?.replayOf != null ? stored.get(replay.replayOf) : undefined;
          return (
            <li key={id} className="replay-pair">
              <DeliveryCard
                title="Original"
                message={message}
                delivery={original ? card(original, original.id) : null}
                onShowAttempts={original ? onShowAttempts : undefined}
                {...(replay ? {} : { emptyText: 'Loading…' })}
              />
              <span className="replay-arrow" aria-hidden="true">
                →
              </span>
              <DeliveryCard title="Replay" message={message} delivery={card(replay, id)} onShowAttempts={replay ? onShowAttempts : undefined} />
            </li>
          );
        })}
      </ol>
    </section>
  );
}
