import { createContext, useContext, useEffect, useState } from 'react';
import { useStore } from 'zustand';
import type { Inspector, InspectorState } from './inspector.ts';

export const InspectorContext = createContext<Inspector | null>(null);

export function useInspector(): Inspector {
  const inspector = useContext(InspectorContext);
  if (!inspector) throw new Error('useInspector outside <InspectorContext.Provider>');
  return inspector;
}

/** A slice of the inspector's state; the component re-renders only when the slice changes. */
export function useInspectorState<T>(selector: (state: InspectorState) => T): T {
  return useStore(useInspector().store, selector);
}

/** The time now, updated every `everyMs` (for relative times and countdowns). */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
