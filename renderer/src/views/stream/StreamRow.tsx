import { memo } from 'react';
import type { MessageSummary } from '../../../../shared/contract.ts';
import { absoluteTime, relativeTime } from '../../lib/format.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { describeOutcome, outcomeOf } from '../../store/outcome.ts';
import { useInspectorState } from '../../store/react.ts';
import { blockedSentence, violationsLabel } from './violation-words.ts';
import { rowName } from './row-name.ts';

/**
 * The parts of a row that change with the clock render on their own, so the once-a-second tick
 * re-renders a few text nodes per row, not every row whole.
 */
const RowTime = memo(function RowTime({ at }: { at: number }) {
  const now = useSecondClock();
  return (
    <time className="row-time" dateTime={new Date(at).toISOString()} title={absoluteTime(at)}>
      {relativeTime(at, now)}
    </time>
  );
});

function OutcomeText({ row, now }: { row: MessageSummary; now: number }) {
  const outcome = describeOutcome(row, now);
  return (
    <span className={`row-outcome tone-${outcome.tone}`} title={outcome.title}>
      {outcome.label}
    </span>
  );
}

/** A retrying row counts down to its next attempt. */
function RetryOutcome({ row }: { row: MessageSummary }) {
  return <OutcomeText row={row} now={useSecondClock()} />;
}

export const StreamRow = memo(function StreamRow({ id, index, rowHeight, count, selected, open, sourceName, onActivate }: {
  id: number;
  index: number;
  /** The density's row height (density.ts). */
  rowHeight: number;
  count: number;
  selected: boolean;
  open: boolean;
  sourceName: (sourceId: number) => string;
  onActivate: (id: number) => void;
}) {
  const row = useInspectorState((s) => s.list.byId.get(id));
  const style = { transform: `translateY(${index * rowHeight}px)` };
  // A listed row the store has let go (far from the view) is being fetched again: same height, no jump.
  if (!row) {
    return (
      <div className="row row-missing" style={style} role="option" aria-selected={selected} aria-posinset={index + 1} aria-setsize={count} id={`msg-${id}`}>
        Loading…
      </div>
    );
  }
  const kind = outcomeOf(row);
  const who = row.userId ?? row.anonymousId;
  return (
    <div
      role="option"
      id={`msg-${id}`}
      aria-selected={selected}
      aria-posinset={index + 1}
      aria-setsize={count}
      data-id={id}
      data-outcome={kind}
      className={`row${selected ? ' row-selected' : ''}${open ? ' row-open' : ''}`}
      style={style}
      onClick={() => onActivate(id)}
    >
      <div className="row-line">
        <RowTime at={row.receivedAt} />
        <span className={`type-badge type-${row.type ?? 'invalid'}`}>{row.type ?? 'invalid'}</span>
        <span className="row-name" title={rowName(row)}>
          {rowName(row)}
        </span>
        {row.pinned ? (
          <span className="row-pinned" title="Pinned: kept through retention and clears">
            <span aria-hidden="true">⚑ </span>pinned
          </span>
        ) : null}
        {row.blocked ? (
          <span className="row-blocked" title={`${blockedSentence(row.blocked)} Stored and shown; its deliveries are skipped.`}>
            blocked
          </span>
        ) : null}
        {row.warning ? (
          <span className="row-segment-warning" title={`${row.warning}. Sluice accepted it.`}>
            <span aria-hidden="true">⚠ </span>
            Segment limit
          </span>
        ) : null}
        {row.violations > 0 ? (
          <span className="row-violations" title={`${violationsLabel(row.violations)} of a tracking plan: open the message's Violations tab`}>
            <span aria-hidden="true">⚠ </span>
            {violationsLabel(row.violations)}
          </span>
        ) : null}
        {row.audience ? (
          <span className="row-audience" title={`Sent by a sync of the ${row.audience.kind === 'audience' ? 'audience' : 'computed trait'} “${row.audience.audienceName ?? 'deleted'}” (${row.audience.change})`}>
            audience sync
          </span>
        ) : null}
      </div>
      <div className="row-line row-sub">
        <span className={`row-user${row.userId ? '' : ' row-anon'}`} title={who ? `${row.userId ? 'userId' : 'anonymousId'} ${who}` : 'no user'}>
          {who ?? '—'}
        </span>
        <span className="row-sep" aria-hidden="true">
          ·
        </span>
        <span className="row-source">{sourceName(row.sourceId)}</span>
        {/* Only a retrying row's words depend on the time. */}
        {kind === 'retrying' ? <RetryOutcome row={row} /> : <OutcomeText row={row} now={0} />}
      </div>
    </div>
  );
});
