import { useEffect, useRef, useState } from 'react';
import type { RequestOf, TransformTry } from '../../../../shared/contract.ts';
import { useInspector } from '../../store/react.ts';

export type TryState =
  | { kind: 'idle' }
  | { kind: 'running'; last: TransformTry | null }
  | { kind: 'done'; result: TransformTry }
  | { kind: 'error'; message: string };

/**
 * Asks the core what a destination would make of a message (transforms.try) whenever `request`
 * changes (its JSON), `delayMs` after the last change; `again()` asks once more. An answer to an
 * older request is dropped. Null: nothing to ask.
 */
export function useTry(request: RequestOf<'transforms.try'> | null, delayMs = 0): { state: TryState; again: () => void } {
  const inspector = useInspector();
  const [state, setState] = useState<TryState>({ kind: 'idle' });
  const [runs, setRuns] = useState(0);
  const seq = useRef(0);
  const key = request ? JSON.stringify(request) : null;
  useEffect(() => {
    if (!request) {
      setState({ kind: 'idle' });
      return;
    }
    const mine = ++seq.current;
    const timer = setTimeout(() => {
      setState((s) => ({ kind: 'running', last: s.kind === 'done' ? s.result : s.kind === 'running' ? s.last : null }));
      void inspector.call('transforms.try', request).then((result) => {
        if (mine !== seq.current) return;
        setState(result.ok ? { kind: 'done', result: result.value } : { kind: 'error', message: result.error.message });
      });
    }, delayMs);
    return () => clearTimeout(timer);
  }, [key, runs]); // the request by its JSON: a new object saying the same asks nothing
  return { state, again: () => setRuns((n) => n + 1) };
}
