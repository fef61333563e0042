import { useDeliveryHold } from './use-delivery-hold.ts';
import { ErrorText } from '../../components/ErrorText.tsx';

/** The Settings control for holding deliveries, with what holding means. */
export function HoldSwitch() {
  const { held, waiting, busy, error, setHeld } = useDeliveryHold();
  const known = held !== null;
  return (
    <div className="settings-row hold-switch">
      <label className="switch">
        <input
          type="checkbox"
          role="switch"
          checked={held === true}
          disabled={!known || busy}
          aria-describedby="hold-explained"
          onChange={(event) => void setHeld(event.target.checked)}
        />
        <span>Hold deliveries</span>
      </label>
      <p className="hint" id="hold-explained">
        {held
          ? `Held: ${waiting} waiting. Sluice keeps receiving and storing messages; nothing is sent to destinations until you resume. `
          : 'Stops Sluice sending to every destination (webhooks and Tracking APIs) while you look at what queued up; messages are still received and stored, and wait. '}
        Held in memory only: restarting Sluice resumes delivery. Not the stream’s Pause live view, which only freezes the list on screen.
      </p>
      <ErrorText error={error} />
    </div>
  );
}
