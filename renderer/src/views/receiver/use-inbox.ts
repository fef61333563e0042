import { useCallback, useEffect, useState } from 'react';
import type { InboxEntry, ReceiverBehaviour } from '../../../../shared/receiver.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

/** Entries the view keeps (the receiver keeps more; this is what a person scrolls through). */
export const INBOX_SHOWN = 500;

/** Adds entries, newest first, without duplicates, capped. */
export function mergeEntries(current: readonly InboxEntry[], arrived: readonly InboxEntry[], cap = INBOX_SHOWN): InboxEntry[] {
  const seen = new Set(current.map((e) => e.id));
  const fresh = arrived.filter((e) => !seen.has(e.id)).sort((a, b) => b.id - a.id);
  return [...fresh, ...current].sort((a, b) => b.id - a.id).slice(0, cap);
}

/** The built-in receiver's inbox (newest first) and hook behaviours, kept live by `receiver.received` and `receiver.removed`. */
export function useInbox(): {
  entries: InboxEntry[] | null;
  behaviours: Record<string, ReceiverBehaviour>;
  error: string | null;
  setBehaviour: (hook: string, behaviour: ReceiverBehaviour) => Promise<string | null>;
} {
  const inspector = useInspector();
  const [entries, setEntries] = useState<InboxEntry[] | null>(null);
  const [behaviours, setBehaviours] = useState<Record<string, ReceiverBehaviour>>({});
  const [error, setError] = useState<string | null>(null);
  // Read when connected, and again after a reconnect (events may have been missed meanwhile).
  const open = useInspectorState((s) => s.connection.kind === 'open');
  useEffect(() => {
    if (!open) return;
    let current = true;
    let early: InboxEntry[] = [];
    // Removed (a purge of their user) before the inbox was read: the answer may still hold them.
    const gone = new Set<number>();
    let loaded = false;
    const off = inspector.subscribe((events) => {
      for (const event of events) {
        if (event.type === 'receiver.removed') {
          const ids = new Set(event.ids);
          if (loaded) setEntries((list) => list && list.filter((e) => !ids.has(e.id)));
          else for (const id of ids) gone.add(id);
          continue;
        }
        if (event.type !== 'receiver.received') continue;
        if (loaded) setEntries((list) => mergeEntries(list ?? [], event.entries));
        else early.push(...event.entries);
      }
    });
    void inspector.call('receiver.inbox', { limit: INBOX_SHOWN }).then((result) => {
      if (!current) return;
      loaded = true;
      if (!result.ok) {
        setError(`Could not read the receiver's inbox: ${result.error.message}`);
        setEntries(mergeEntries([], early).filter((e) => !gone.has(e.id)));
        return;
      }
      setEntries(mergeEntries(result.value.entries, early).filter((e) => !gone.has(e.id)));
      setBehaviours(result.value.behaviours);
      early = [];
    });
    return () => {
      current = false;
      off();
    };
  }, [inspector, open]);
  const setBehaviour = useCallback(
    async (hook: string, behaviour: ReceiverBehaviour) => {
      const result = await inspector.call('receiver.setBehaviour', { hook, behaviour });
      if (!result.ok) return `The receiver refused this behaviour: ${result.error.message}`;
      setBehaviours((all) => ({ ...all, [hook]: result.value.behaviour }));
      return null;
    },
    [inspector],
  );
  return { entries, behaviours, error, setBehaviour };
}
