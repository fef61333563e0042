import { useId, useState } from 'react';
import type { WebhookHealth } from '../../../../shared/contract.ts';
import { useSecondClock } from '../../lib/clock.ts';
import { useInspector } from '../../store/react.ts';
import { healthWords, hostOf } from './health.ts';

/**
 * One URL's health beside it (the destinations list, the editor's webhook cards): its circuit breaker
 * (open with the countdown to its probe, half-open, failures in a row) or 410 Gone with its reason and
 * Re-enable (destinations.reenableUrl). Nothing while the receiver is fine. The list behind it is read
 * again on `settings.changed`, which the core emits on every breaker move.
 */
export function HealthLine({ destinationId, health, named = false, compact = false }: {
  destinationId: number;
  health: WebhookHealth | undefined;
  /** Say which URL (a destination with several). */
  named?: boolean;
  /** The list's: the failures and the last error (or the 410's reason) in the tooltip and visually hidden text (for screen readers). */
  compact?: boolean;
}) {
  const inspector = useInspector();
  // The shared clock ticks once a second: a list refreshed between ticks would count from a stale second.
  const now = Math.max(useSecondClock(), Date.now());
  const [busy, setBusy] = useState(false);
  const detailId = useId();
  // What Re-enable answered, and the 410 it answered: it stays once the URL is no longer gone (the
  // refreshed list says nothing then), until the URL is gone again (a 410 at another time).
  const [answered, setAnswered] = useState<{ ok: boolean; text: string; goneAt: number | null } | null>(null);
  const outcome = answered && (!health?.gone || health.gone.at === answered.goneAt) ? answered : null;
  const words = health ? healthWords(health, now) : null;
  if (!health || (!words && !outcome)) return null;

  const reenable = async () => {
    const goneAt = health.gone?.at ?? null;
    setBusy(true);
    setAnswered(null);
    const result = await inspector.call('destinations.reenableUrl', { id: destinationId, url: health.url });
    setBusy(false);
    setAnswered(
      result.ok ? { ok: true, text: 'Re-enabled: deliveries to this URL go again.', goneAt } : { ok: false, text: `Could not re-enable it: ${result.error.message}.`, goneAt },
    );
  };

  return (
    <div className={`dst-health${compact ? ' dst-health-compact' : ''}`}>
      {words ? (
        <p className={`dst-health-line tone-${words.tone}`} title={words.detail}>
          {named ? <span className="mono">{hostOf(health.url)} </span> : null}
          <span className="dst-health-badge">{words.text}</span>
          {compact ? null : (
            <span className="dst-health-detail" id={detailId}>
              {words.detail}
            </span>
          )}
        </p>
      ) : null}
      {/* The list's detail: in the tooltip for the mouse, here for screen readers (and as Re-enable's description). */}
      {words && compact ? (
        <span className="sr-only" id={detailId}>
          {words.detail}
        </span>
      ) : null}
      {words?.gone ? (
        <button type="button" className="btn btn-small" aria-label={`Re-enable ${health.url}`} aria-describedby={detailId} disabled={busy} onClick={() => void reenable()}>
          {busy ? 'Re-enabling…' : 'Re-enable'}
        </button>
      ) : null}
      {outcome ? (
        <p className={`dst-health-outcome ${outcome.ok ? 'tone-ok' : 'tone-bad'}`} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.text}
        </p>
      ) : null}
    </div>
  );
}
