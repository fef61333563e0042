import { useEffect, useMemo, useState } from 'react';
import type { DeliveryView, DestinationView, MessageDetail as Detail } from '../../../../shared/contract.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Field } from '../../components/Field.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { Tabs, type TabDef } from '../../components/Tabs.tsx';
import { absoluteTime, plural } from '../../lib/format.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { describeOutcome } from '../../store/outcome.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { AttemptsTab } from './AttemptsTab.tsx';
import { attemptsCount, replaysCount } from './detail-counts.ts';
import { deliveryName } from '../../store/delivery-words.ts';
import { rowName } from './row-name.ts';
import { isForward } from './request-shown.ts';
import { WebhookTab } from './WebhookTab.tsx';
import { SignedDeliveryHint } from './SignedDeliveryHint.tsx';
import { ReplayTab } from '../replay/ReplayTab.tsx';
import { TryPanel } from '../transforms/TryPanel.tsx';
import { blockedSentence, violationAnnotations, violationsLabel } from './violation-words.ts';
import { ViolationsTab } from './ViolationsTab.tsx';
import { sourceLabel } from '../../../../shared/refused-request.ts';
import { JsonErrorExcerpt, storedJsonError } from './JsonErrorExcerpt.tsx';
import { useDetailTab, type DetailTab } from './detail-tab.ts';
import { keyboardHelpStore } from './stream-keys.ts';
import { togglePin, usePinError } from './pin.ts';

type TabKey = DetailTab;

/** The detail pane: the selected message, its webhook requests, their attempts, and its replays. */
export function MessageDetailPane() {
  const inspector = useInspector();
  // With no message open: the newest message's source, whose messages may go nowhere (SignedDeliveryHint).
  const newestSource = useInspectorState((s) => {
    const id = s.list.order[0];
    return id === undefined ? null : (s.list.byId.get(id)?.sourceId ?? null);
  });
  const detail = useInspectorState((s) => s.detail);
  const destinations = useInspectorState((s) => s.destinations);
  const sources = useInspectorState((s) => s.info?.sources);
  const [tab, setTab] = useDetailTab(inspector);
  const pinError = usePinError(inspector);
  const [deliveryId, setDeliveryId] = useState<number | null>(null);
  const now = useSecondClock();
  const data = detail?.data ?? null;

  // A new message: show the delivery its row shows.
  useEffect(() => {
    setDeliveryId(data?.delivery?.id ?? data?.deliveries[0]?.id ?? null);
  }, [data?.id]);

  if (!detail) {
    return (
      <section className="detail detail-empty" aria-label="Message detail">
        <p>Select a message to see its payload, the webhook request Sluice sends for it, and every delivery attempt.</p>
        <p className="hint">
          <kbd>↑</kbd> <kbd>↓</kbd> or <kbd>j</kbd> <kbd>k</kbd> move, <kbd>Enter</kbd> opens, <kbd>/</kbd> searches, <kbd>Esc</kbd> clears filters.{' '}
          <button type="button" className="btn btn-small btn-quiet" onClick={() => keyboardHelpStore(inspector).setState({ open: true })}>
            All keys (?)
          </button>
        </p>
        {newestSource !== null ? <SignedDeliveryHint sourceId={newestSource} /> : null}
      </section>
    );
  }
  if (!data) {
    return (
      <section className="detail" aria-label="Message detail" aria-busy={detail.loading}>
        {detail.error ? (
          <p role="alert" className="error-text">
            Could not load message {detail.id}: {detail.error}
          </p>
        ) : (
          <p className="muted">Loading message {detail.id}…</p>
        )}
      </section>
    );
  }

  const outcome = describeOutcome(data, now);
  const delivery = data.deliveries.find((d) => d.id === deliveryId) ?? data.deliveries[0] ?? null;
  // Each tab's number counts what the tab lists: Attempts the chosen delivery's, Replay the message's replays.
  const attempts = attemptsCount(delivery, data.deliveries.length);
  const replays = replaysCount(data.deliveries);
  const violationCount = Math.max(data.violations ?? 0, data.violationList?.length ?? 0);
  const tabs: TabDef<TabKey>[] = [
    { key: 'message', label: 'Message' },
    ...(violationCount > 0 ? [{ key: 'violations' as const, label: 'Violations', badge: String(violationCount) }] : []),
    // A forward to a Tracking API is no webhook: the tab says which the shown delivery is.
    { key: 'webhook', label: isForward(destinations.find((d) => d.id === delivery?.destinationId)) ? 'Forward request' : 'Webhook request' },
    { key: 'attempts', label: 'Attempts', badge: attempts.badge || undefined, title: attempts.title },
    { key: 'replay', label: 'Replay', badge: replays.badge || undefined, title: replays.title },
    { key: 'try', label: 'Try', title: 'Try on this message: what a destination’s filters and transform make of it' },
  ];
  const sourceName = sourceLabel(sources?.find((s) => s.id === data.sourceId)?.name, data.sourceId);
  // A message without violations has no such tab: its Message tab is shown instead.
  const shownTab: TabKey = tab === 'violations' && violationCount === 0 ? 'message' : tab;

  return (
    <section className="detail" aria-label="Message detail">
      <header className="detail-head">
        <div className="detail-title">
          <span className={`type-badge type-${data.type ?? 'invalid'}`}>{data.type ?? 'invalid'}</span>
          <h2>{rowName(data) || (data.userId ?? data.anonymousId ?? `message ${data.id}`)}</h2>
          <button
            type="button"
            className="btn btn-small btn-quiet pin-toggle"
            aria-pressed={data.pinned === true}
            title={data.pinned ? 'Pinned: kept through retention and clears. Click (or p) to un-pin' : 'Pin: keep it through retention and clears (p)'}
            onClick={() => void togglePin(inspector, data.id)}
          >
            <span aria-hidden="true">⚑ </span>
            {data.pinned ? 'Pinned' : 'Pin'}
          </button>
          <button type="button" className="btn btn-small btn-quiet" aria-label="Close detail" onClick={() => inspector.open(null)}>
            ✕
          </button>
        </div>
        <p className={`detail-outcome tone-${outcome.tone}`} title={outcome.title}>
          {outcome.label}
          <span className="muted"> · {sourceName} · received {absoluteTime(data.receivedAt)}</span>
        </p>
        {data.blocked ? (
          <p className="banner banner-bad detail-blocked" role="note">
            {blockedSentence(data.blocked)} It is stored and shown here; its deliveries are skipped with this reason.
          </p>
        ) : null}
        {data.warning ? (
          <p className="banner banner-warn detail-segment-warning" role="note">
            {data.warning}. Sluice accepted it; sent to Segment as is, it would be lost.
          </p>
        ) : null}
        {detail.error ? (
          <p role="alert" className="error-text">
            Could not refresh: {detail.error}
          </p>
        ) : null}
        {pinError ? (
          <p role="alert" className="error-text">
            {pinError}
          </p>
        ) : null}
      </header>
      {data.deliveries.length > 1 && shownTab !== 'message' && shownTab !== 'violations' && shownTab !== 'try' ? (
        <DeliveryPicker deliveries={data.deliveries} destinations={destinations} value={delivery?.id ?? null} onChange={setDeliveryId} />
      ) : null}
      <Tabs tabs={tabs} active={shownTab} onChange={setTab} label="Message detail">
        {shownTab === 'message' ? <MessageTab data={data} sourceName={sourceName} /> : null}
        {shownTab === 'violations' ? <ViolationsTab key={data.id} data={data} /> : null}
        {shownTab === 'webhook' ? <WebhookTab key={delivery?.id ?? `none ${data.id}`} message={data} delivery={delivery} destinations={destinations} /> : null}
        {shownTab === 'attempts' ? <AttemptsTab message={data} delivery={delivery} destinations={destinations} /> : null}
        {shownTab === 'replay' ? (
          <ReplayTab
            key={data.id}
            message={data}
            delivery={delivery}
            destinations={destinations}
            onShowAttempts={(id) => {
              setDeliveryId(id);
              setTab('attempts');
            }}
          />
        ) : null}
        {shownTab === 'try' ? <TryPanel key={data.id} message={data} destinations={destinations} /> : null}
      </Tabs>
    </section>
  );
}

function DeliveryPicker({ deliveries, destinations, value, onChange }: {
  deliveries: readonly DeliveryView[];
  destinations: readonly DestinationView[];
  value: number | null;
  onChange: (id: number) => void;
}) {
  const index = deliveries.findIndex((d) => d.id === value);
  return (
    <Field
      className="delivery-picker"
      label="Delivery"
      hint={`${index + 1} of ${plural(deliveries.length, 'delivery', 'deliveries')} of this message. The Webhook request and Attempts tabs show this one.`}
    >
      {(control) => (
        <select {...control} aria-label="Delivery" value={value ?? ''} onChange={(e) => onChange(Number(e.target.value))}>
          {deliveries.map((d) => (
            <option key={d.id} value={d.id}>
              {`${deliveryName(d, deliveries, destinations)} — ${d.status}`}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function MessageTab({ data, sourceName }: { data: Detail; sourceName: string }) {
  const [version, setVersion] = useState<'normalized' | 'received'>(data.message ? 'normalized' : 'received');
  const [view, setView] = useState<'tree' | 'raw'>('tree');
  const shown = version === 'normalized' && data.message ? data.message : null;
  const received = useMemo(() => {
    try {
      return { ok: true as const, value: JSON.parse(data.raw) as unknown };
    } catch {
      return { ok: false as const };
    }
  }, [data.raw]);
  const text = shown ? JSON.stringify(shown, null, 2) : data.raw;
  const jsonError = data.status === 'rejected' && received.ok ? storedJsonError(received.value) : null;
  // Violations point into the message as Sluice forwards it: they are shown on the normalized tree.
  const annotations = useMemo(() => violationAnnotations(data.violationList ?? []), [data.violationList]);
  const facts: [string, string | null][] = [
    ['messageId', data.messageId],
    ['userId', data.userId],
    ['anonymousId', data.anonymousId],
    ['source', sourceName],
    ['received', absoluteTime(data.receivedAt)],
    ['timestamp', data.timestamp === null ? null : absoluteTime(data.timestamp)],
    ...(data.violations > 0 ? [['tracking plan', `${violationsLabel(data.violations)} — see the Violations tab`] as [string, string]] : []),
    ['status', data.status === 'rejected' ? `rejected — ${data.rejectCode}: ${data.rejectReason}` : data.status],
    [
      'origin',
      data.audience
        ? `audience sync — ${data.audience.kind === 'audience' ? 'audience' : 'computed trait'} “${data.audience.audienceName ?? 'deleted'}”, ${data.audience.property} = ${JSON.stringify(data.audience.value)} (${data.audience.change})`
        : data.origin,
    ],
  ];
  return (
    <div className="message-tab">
      {data.status === 'rejected' ? (
        <p className="banner banner-bad" role="note">
          Rejected at ingestion: {data.rejectReason} ({data.rejectCode}). It is stored as received and never forwarded.
        </p>
      ) : null}
      {jsonError ? <JsonErrorExcerpt place={jsonError} /> : null}
      <dl className="facts">
        {facts.map(([k, v]) => (
          <div key={k} className="fact">
            <dt>{k}</dt>
            <dd>{v ?? <span className="muted">—</span>}</dd>
          </div>
        ))}
      </dl>
      <div className="toolbar">
        <div className="segmented" role="group" aria-label="Which message">
          <button type="button" className="btn btn-small" aria-pressed={version === 'normalized'} disabled={!data.message} onClick={() => setVersion('normalized')}>
            Normalized
          </button>
          <button type="button" className="btn btn-small" aria-pressed={version === 'received'} onClick={() => setVersion('received')}>
            As received
          </button>
        </div>
        <div className="segmented" role="group" aria-label="View">
          <button type="button" className="btn btn-small" aria-pressed={view === 'tree'} onClick={() => setView('tree')}>
            Tree
          </button>
          <button type="button" className="btn btn-small" aria-pressed={view === 'raw'} onClick={() => setView('raw')}>
            Raw
          </button>
        </div>
        <CopyButton text={text} label={version === 'normalized' ? 'Copy normalized message' : 'Copy message as received'} />
      </div>
      <p className="hint">
        {version === 'normalized'
          ? 'As Sluice forwards it: batch context merged, messageId and receivedAt set, timestamp corrected for clock skew.'
          : `Exactly the JSON the client sent, byte for byte.${data.violations > 0 ? ' Violations are marked on the normalized message.' : ''}`}
      </p>
      {view === 'raw' || (!shown && !received.ok) ? (
        <pre className="code-block" aria-label="Raw JSON">
          {text}
        </pre>
      ) : (
        <JsonTree
          value={shown ?? (received.ok ? received.value : null)}
          label={version === 'normalized' ? 'Normalized message' : 'Message as received'}
          annotations={shown ? annotations : undefined}
        />
      )}
    </div>
  );
}
