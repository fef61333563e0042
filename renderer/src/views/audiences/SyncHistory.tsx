import { useState } from 'react';
import type { AudienceKind, AudienceSyncView } from '../../../../shared/audiences.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { absoluteTime, formatCount, formatDuration, plural, relativeTime } from '../../lib/format.ts';
import { countdown } from '../../store/outcome.ts';
import { formatValue } from './audience-form.ts';
import { historyEntries, quietSince, quietWords } from './sync-history.ts';
import { useSyncMessages } from './use-audiences.ts';

const STATUS_ORDER = ['delivered', 'pending', 'retrying', 'failed', 'cancelled', 'skipped'] as const;
const STATUS_TONE: Record<string, string> = { delivered: 'ok', pending: 'info', retrying: 'warn', failed: 'bad', cancelled: 'muted', skipped: 'muted' };

/** "3 delivered · 1 retrying", or why nothing was delivered. */
export function deliverySummary(sync: AudienceSyncView): { text: string; tone: string } {
  if (sync.messages === 0) return { text: 'nothing to send', tone: 'muted' };
  if (sync.deliveries === 0) return { text: 'not sent: no enabled destination is connected to the source', tone: 'warn' };
  const parts = STATUS_ORDER.filter((s) => (sync.deliveryStatus[s] ?? 0) > 0).map((s) => `${formatCount(sync.deliveryStatus[s]!)} ${s}`);
  const worst = [...STATUS_ORDER].reverse().find((s) => (sync.deliveryStatus[s] ?? 0) > 0 && s !== 'skipped' && s !== 'cancelled') ?? 'delivered';
  return { text: parts.join(' · '), tone: STATUS_TONE[worst] ?? 'muted' };
}

/**
 * Each sync that sent something (and the first, and every Sync now): when, why, who joined and left,
 * and how its identify messages fared — live. The scheduled checks that found nothing to send since
 * are one line above, not a row each (`lastSyncAt`: the audience's last sync, recorded or not).
 */
export function SyncHistory({ syncs, kind, lastSyncAt }: { syncs: AudienceSyncView[]; kind: AudienceKind; lastSyncAt: number | null }) {
  const now = useSecondClock();
  const [open, setOpen] = useState<number | null>(null);
  if (syncs.length === 0) return <p className="muted aud-empty">No sync yet. The first one sends an identify for every member.</p>;
  const joinedLabel = kind === 'audience' ? 'Joined' : 'New or changed';
  const leftLabel = kind === 'audience' ? 'Left' : 'Cleared';
  const checks = quietSince(lastSyncAt, syncs);
  return (
    <>
      {checks ? (
        <p className="muted aud-quiet" role="note" aria-label="Checks since the last sync">
          Nothing changed since the sync at {clock(checks.since)}: the scheduled checks since found nothing to send and are not listed. Last check{' '}
          <time dateTime={new Date(checks.last).toISOString()} title={absoluteTime(checks.last)}>
            {relativeTime(checks.last, now)}
          </time>
          .
        </p>
      ) : null}
      <table className="aud-table" aria-label="Sync history">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Sync</th>
            <th scope="col" className="num">Members</th>
            <th scope="col" className="num">{joinedLabel}</th>
            <th scope="col" className="num">{leftLabel}</th>
            <th scope="col">Identify messages</th>
            <th scope="col">
              <span className="aud-sr-only">Details</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {historyEntries(syncs).map((entry) => {
            if (entry.kind === 'quiet') {
              return (
                <tr key={`quiet-${entry.key}`} aria-label={`Checks until ${absoluteTime(entry.to)}`} className="aud-quiet-row">
                  <td>
                    <time dateTime={new Date(entry.to).toISOString()} title={absoluteTime(entry.to)}>
                      {relativeTime(entry.to, now)}
                    </time>
                  </td>
                  <td>scheduled · {quietWords(entry.checks, clock(entry.from))}</td>
                  <td className="num">{formatCount(entry.members)}</td>
                  <td className="num">0</td>
                  <td className="num">0</td>
                  <td className="tone-muted">nothing to send</td>
                  <td />
                </tr>
              );
            }
            const { sync } = entry;
            const summary = deliverySummary(sync);
            const expanded = open === sync.id;
            return [
              <tr key={sync.id} aria-label={`Sync at ${absoluteTime(sync.at)}`}>
                <td>
                  <time dateTime={new Date(sync.at).toISOString()} title={absoluteTime(sync.at)}>
                    {relativeTime(sync.at, now)}
                  </time>
                </td>
                <td>
                  {sync.initial ? 'initial' : sync.reason === 'manual' ? 'sync now' : 'scheduled'}
                  <span className="muted"> · {formatDuration(sync.durationMs)}</span>
                </td>
                <td className="num">{formatCount(sync.members)}</td>
                <td className="num">{formatCount(sync.joined)}</td>
                <td className="num">{formatCount(sync.left)}</td>
                <td className={`tone-${summary.tone}`}>
                  {plural(sync.messages, 'message')}
                  {sync.messages > 0 ? ` · ${summary.text}` : ''}
                </td>
                <td>
                  {sync.messages > 0 ? (
                    <button type="button" className="btn btn-small" aria-expanded={expanded} onClick={() => setOpen(expanded ? null : sync.id)}>
                      {expanded ? 'Hide messages' : 'Show messages'}
                    </button>
                  ) : null}
                </td>
              </tr>,
              expanded ? (
                <tr key={`${sync.id}-messages`} className="aud-messages-row">
                  <td colSpan={7}>
                    <SyncMessages syncId={sync.id} now={now} />
                  </td>
                </tr>
              ) : null,
            ];
          })}
        </tbody>
      </table>
    </>
  );
}

/** "10:02:11", local time. */
function clock(at: number): string {
  return new Date(at).toLocaleTimeString('en-GB', { hour12: false });
}

function SyncMessages({ syncId, now }: { syncId: number; now: number }) {
  const { messages, more, total, error } = useSyncMessages(syncId);
  if (error) return <p className="aud-error" role="alert">{error}</p>;
  if (!messages) return <div className="aud-loading" aria-busy="true" aria-label="Loading messages" />;
  return (
    <>
      <ul className="aud-messages" aria-label="Messages of this sync">
        {messages.map((m) => {
          const d = m.delivery;
          const status = d === null ? 'no destination' : d.status === 'retrying' && d.nextAttemptAt ? `retrying ${countdown(d.nextAttemptAt - now)}` : d.status;
          return (
            <li key={m.id}>
              <span className="mono">{m.userId}</span>
              <span className="mono">→ {formatValue(m.value)}</span>
              <span className="muted">{m.change}</span>
              <span className={`tone-${d ? (STATUS_TONE[d.status] ?? 'muted') : 'muted'}`} title={d?.lastError ?? undefined}>
                {status}
                {d && d.attemptCount > 1 ? ` · ${d.attemptCount} attempts` : ''}
                {m.deliveryCount > 1 ? ` (of ${m.deliveryCount} destinations)` : ''}
              </span>
            </li>
          );
        })}
      </ul>
      {more ? <p className="muted">Showing the first {formatCount(messages.length)} of {formatCount(total)} messages; the stream lists them all.</p> : null}
    </>
  );
}
