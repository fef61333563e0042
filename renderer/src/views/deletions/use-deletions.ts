import { useCallback, useEffect, useRef, useState } from 'react';
import type { DeletionRequestView } from '../../../../shared/contract.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

/** A burst of delivery changes costs one reload at most this often. */
const RELOAD_MS = 250;

/**
 * Recent deletion requests with their notifications, reloaded when a delivery without a message (a
 * delete notification, a test event) changes.
 */
export function useDeletions(): { requests: DeletionRequestView[] | null; error: string | null; reload: () => void } {
  const inspector = useInspector();
  const [requests, setRequests] = useState<DeletionRequestView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const generation = useRef(0);

  const load = useCallback(async () => {
    const number = ++generation.current;
    const result = await inspector.call('deletions.list', {});
    if (number !== generation.current) return; // a newer load is on its way
    if (result.ok) {
      setRequests(result.value.requests);
      setError(null);
    } else {
      setError(`Could not load deletion requests: ${result.error.message}`);
    }
  }, [inspector]);

  const reload = useCallback(() => {
    if (timer.current !== undefined) return;
    timer.current = setTimeout(() => {
      timer.current = undefined;
      void load();
    }, RELOAD_MS);
  }, [load]);

  // Read when connected, and again after a reconnect (events may have been missed meanwhile).
  const open = useInspectorState((s) => s.connection.kind === 'open');
  useEffect(() => {
    if (!open) return;
    const off = inspector.subscribe((events) => {
      if (events.some((e) => e.type === 'deliveries.changed' && e.changes.some((c) => c.messageId === null))) reload();
      if (events.some((e) => e.type === 'settings.changed')) reload();
    });
    void load();
    return () => {
      off();
      clearTimeout(timer.current);
      timer.current = undefined;
      generation.current++;
    };
  }, [inspector, load, reload, open]);

  return { requests, error, reload: () => void load() };
}
