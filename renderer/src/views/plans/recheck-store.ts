/**
 * The re-check of stored messages, one store per inspector, made on first use and kept as long as the
 * inspector: its progress comes as `plans.recheck` events, which keep coming while the user is on
 * another view, and the view shows where it got to on return.
 */
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { RecheckProgress } from '../../../../shared/tracking-plan.ts';
import type { Inspector } from '../../store/inspector.ts';
import { useInspector } from '../../store/react.ts';
import { mergeProgress } from './plan-words.ts';

export interface RecheckState {
  progress: RecheckProgress | null;
  /** The call is on its way. */
  starting: boolean;
  /** Why the re-check could not start. */
  error: string | null;
}

export interface RecheckController {
  store: StoreApi<RecheckState>;
  start(): Promise<void>;
}

const controllers = new WeakMap<Inspector, RecheckController>();

export function recheckOf(inspector: Inspector): RecheckController {
  const known = controllers.get(inspector);
  if (known) return known;
  const store = createStore<RecheckState>()(() => ({ progress: null, starting: false, error: null }));
  inspector.subscribe((events) => {
    let progress = store.getState().progress;
    for (const event of events) if (event.type === 'plans.recheck') progress = mergeProgress(progress, event.progress);
    if (progress !== store.getState().progress) store.setState({ progress });
  });
  const controller: RecheckController = {
    store,
    async start() {
      if (store.getState().starting || store.getState().progress?.state === 'running') return;
      store.setState({ starting: true, error: null });
      const result = await inspector.call('plans.recheck', {});
      if (result.ok) store.setState({ starting: false, progress: mergeProgress(store.getState().progress, result.value) });
      else store.setState({ starting: false, error: `Could not start the re-check: ${result.error.message}` });
    },
  };
  controllers.set(inspector, controller);
  return controller;
}

export function useRecheck(): RecheckState & { start: () => Promise<void> } {
  const controller = recheckOf(useInspector());
  return { ...useStore(controller.store), start: controller.start };
}
