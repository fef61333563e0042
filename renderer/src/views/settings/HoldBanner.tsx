import { useDeliveryHold } from './use-delivery-hold.ts';
import './settings.css';

/**
 * Under the top bar on every view while deliveries are held: how many wait, and Resume. The slot is
 * always there (empty when not held) so the panes below keep their grid row.
 */
export function HoldBanner() {
  const { held, waiting, busy, error, setHeld } = useDeliveryHold();
  return (
    <div className="hold-slot">
      {held ? (
        <div className="hold-banner" role="status" aria-label="Deliveries held">
          <span className="hold-icon" aria-hidden="true">
            ❚❚
          </span>
          <span className="hold-text">
            <strong>Deliveries held</strong> — {waiting} waiting; nothing is sent to destinations until you resume.{' '}
            <span className="muted">Held in memory only: restarting Sluice resumes delivery.</span>
          </span>
          {error ? <span className="error-text">{error}</span> : null}
          <button type="button" className="btn btn-small btn-primary" disabled={busy} onClick={() => void setHeld(false)}>
            Resume deliveries
          </button>
        </div>
      ) : null}
    </div>
  );
}
