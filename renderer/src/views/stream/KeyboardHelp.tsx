import { useId, useRef } from 'react';
import { Dialog } from '../../components/Dialog.tsx';
import { useInspector } from '../../store/react.ts';
import { STREAM_KEYS, useKeyboardHelp } from './stream-keys.ts';
import './keys.css';

/** The keyboard map (`?`): the stream's keys as stream-keys.ts acts on them. */
export function KeyboardHelp() {
  const inspector = useInspector();
  const [open, setOpen] = useKeyboardHelp(inspector);
  const textId = useId();
  const close = useRef<HTMLButtonElement>(null);
  if (!open) return null;
  return (
    <Dialog title="Keyboard shortcuts" className="keys-dialog" describedBy={textId} initialFocus={close} onClose={() => setOpen(false)}>
      <p id={textId}>On the stream, when you are not typing in a field. The list also takes Page Up/Down, Home and End while it has focus.</p>
      <table className="keys-table">
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Does</th>
          </tr>
        </thead>
        <tbody>
          {STREAM_KEYS.map((k) => (
            <tr key={k.action}>
              <td>
                {k.shown.map((s, i) => (
                  <span key={s}>
                    {i > 0 ? ' or ' : ''}
                    <kbd>{s}</kbd>
                  </span>
                ))}
              </td>
              <td>{k.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="dialog-actions">
        <button ref={close} type="button" className="btn" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
