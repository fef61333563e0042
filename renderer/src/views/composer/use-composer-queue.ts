import { useEffect, useState } from 'react';
import type { ComposerState } from '../../../../shared/contract.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

export interface QueueSnapshot {
  state: ComposerState;
  /** Local time the snapshot arrived: countdowns run from here (the core's clock may differ from the page's). */
  at: number;
}

/**
 * The source's composer client queue, live: read once, then kept current by `client.state` events.
 * `replace` lets a call's own answer (send, flush) update it at once.
 */
export function useComposerQueue(sourceId: number | null): {
  queue: QueueSnapshot | null;
  error: string | null;
  replace: (state: ComposerState) => void;
} {
  const inspector = useInspector();
  const [queue, setQueue] = useState<QueueSnapshot | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Read when connected, and again after a reconnect (events may have been missed meanwhile).
  const open = useInspectorState((s) => s.connection.kind === 'open');
  useEffect(() => {
    setQueue(null);
    setError(null);
    if (sourceId === null || !open) return;
    let current = true;
    // Events first, so a change between the read and the subscription is not missed.
    const off = inspector.subscribe((events) => {
      for (const event of events) {
        if (event.type === 'client.state' && event.sourceId === sourceId) setQueue({ state: event.state, at: Date.now() });
      }
    });
    void inspector.call('composer.state', { sourceId }).then((result) => {
      if (!current) return;
      if (result.ok) setQueue((known) => known ?? { state: result.value, at: Date.now() });
      else setError(`Could not read the client's queue: ${result.error.message}`);
    });
    return () => {
      current = false;
      off();
    };
  }, [inspector, sourceId, open]);
  return { queue, error, replace: (state) => setQueue({ state, at: Date.now() }) };
}
