import { useState } from 'react';
import { useInspector } from '../../store/react.ts';

/**
 * "Send sample events": a handful of realistic messages through the composer's client; if the source
 * delivers nowhere yet, the core first connects it to the built-in receiver with a shared secret, so a
 * first signed delivery is one click away.
 */
export function SampleEventsButton({ sourceId }: { sourceId: number | null }) {
  const inspector = useInspector();
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  return (
    <div className="sample-events">
      <button
        type="button"
        className="btn btn-primary"
        disabled={busy || sourceId === null}
        onClick={async () => {
          if (sourceId === null) return;
          setBusy(true);
          const result = await inspector.call('samples.send', { sourceId });
          setBusy(false);
          if (!result.ok) {
            setNote({ ok: false, text: `Could not send sample events: ${result.error.message}` });
            return;
          }
          const { sent, destination } = result.value;
          setNote({
            ok: true,
            text:
              `Sent ${sent} sample messages.` +
              (destination
                ? destination.created
                  ? ` Created the destination “${destination.name}” (${destination.hookUrl}) with a new shared secret, so they arrive signed.`
                  : ` Connected this source to the destination “${destination.name}” (${destination.hookUrl}).`
                : ''),
          });
        }}
      >
        {busy ? 'Sending…' : 'Send sample events'}
      </button>
      <span className="sample-note" role={note && !note.ok ? 'alert' : 'status'}>
        {note ? <span className={note.ok ? 'muted' : 'error-text'}>{note.text}</span> : 'Through the composer, to the built-in receiver if nothing else receives them.'}
      </span>
    </div>
  );
}
