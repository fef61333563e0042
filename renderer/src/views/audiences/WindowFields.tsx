import { WINDOW_UNITS } from '../../../../shared/audiences.ts';
import type { WindowForm } from './audience-form.ts';

/** "within the last N days": an event condition's or a count's time window (off: all time). */
export function WindowFields({ label, window, invalid, onChange }: { label: string; window: WindowForm; invalid: boolean; onChange: (w: WindowForm) => void }) {
  return (
    <span className="aud-window">
      <label className="tool-check">
        <input type="checkbox" checked={window.on} onChange={(e) => onChange({ ...window, on: e.target.checked })} />
        within the last
      </label>
      <input
        type="text"
        inputMode="numeric"
        className="aud-number"
        aria-label={`${label} window length`}
        disabled={!window.on}
        value={window.amount}
        aria-invalid={invalid ? true : undefined}
        onChange={(e) => onChange({ ...window, amount: e.target.value })}
      />
      <select aria-label={`${label} window unit`} disabled={!window.on} value={window.unit} onChange={(e) => onChange({ ...window, unit: e.target.value as WindowForm['unit'] })}>
        {WINDOW_UNITS.map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </select>
    </span>
  );
}
