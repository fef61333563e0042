import { useCallback, useMemo, useRef, useState } from 'react';
import type { DeliveryView } from '../../../../shared/contract.ts';
import { useInspector } from '../../store/react.ts';

export interface WholeBody {
  /** The body as far as it is known: the whole body, or its start while `cut`. */
  text: string;
  /** Only the start is here (the detail carries at most BODY_PREVIEW_BYTES of a body). */
  cut: boolean;
  /** The whole body's size in bytes. */
  bytes: number;
  /** The whole body: read from the core (`deliveries.body`) the first time, then kept (the view stays as it is). */
  load: () => Promise<string>;
  /** Reads the whole body, then shows it ("Show all"). */
  showAll: () => void;
  loading: boolean;
  error: string | null;
}

/**
 * A delivery's body as the Webhook tab needs it: what the message's detail carries (`body`, or only
 * its start when `bodyBytes` says it is bigger), and the whole of it on request — for "Show all", a
 * copy, a curl command or a signature check. Kept per delivery and round (a round may send a new body).
 */
export function useWholeBody(delivery: DeliveryView | null, fallback: string): WholeBody {
  const inspector = useInspector();
  const id = delivery?.id ?? 0;
  const bodyBytes = delivery?.bodyBytes;
  const key = `${id}/${delivery?.attemptCount ?? 0}`;
  const [whole, setWhole] = useState<{ key: string; body: string } | null>(null);
  const [status, setStatus] = useState<{ key: string; loading: boolean; error: string | null } | null>(null);
  // The delivery and round whose whole body the reader asked to see (a check or a copy reads it without showing it).
  const [expanded, setExpanded] = useState<string | null>(null);
  const pending = useRef<{ key: string; body: Promise<string> } | null>(null);
  const known = delivery?.body ?? fallback;
  const all = expanded === key && whole?.key === key;
  const cut = bodyBytes !== undefined && !all;

  const load = useCallback((): Promise<string> => {
    if (bodyBytes === undefined) return Promise.resolve(known);
    if (whole?.key === key) return Promise.resolve(whole.body);
    if (pending.current?.key === key) return pending.current.body;
    setStatus({ key, loading: true, error: null });
    const body = inspector.call('deliveries.body', { id }).then((result) => {
      if (!result.ok) throw new Error(result.error.message);
      if (result.value.body === null) throw new Error('the body is no longer stored (a purge removed it)');
      return result.value.body;
    });
    pending.current = { key, body };
    body.then(
      (text) => {
        setWhole({ key, body: text });
        setStatus({ key, loading: false, error: null });
      },
      (error: unknown) => {
        if (pending.current?.key === key) pending.current = null; // a later try asks again
        setStatus({ key, loading: false, error: `Could not load the whole body: ${(error as Error).message}` });
      },
    );
    return body;
  }, [inspector, id, bodyBytes, key, known, whole]);

  const current = status?.key === key ? status : null;
  // Encoded once per body, not at each render (the detail renders every second).
  const knownBytes = useMemo(() => bodyBytes ?? new TextEncoder().encode(known).length, [bodyBytes, known]);
  return {
    text: all ? whole.body : known,
    cut,
    bytes: knownBytes,
    load,
    showAll: () => {
      load().then(
        () => setExpanded(key),
        () => {}, // the error is in `error`
      );
    },
    loading: current?.loading ?? false,
    error: current?.error ?? null,
  };
}
