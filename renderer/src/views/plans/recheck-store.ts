/**
 * The re-check of stored messages, one store per inspector, made on first use and kept as long as the
 * inspector: its progress comes as `plans.recheck` events, which keep coming while the user is on
 * another view, and the view shows where it got to on return. `plans.list` says which re-check the
 * core runs now: `follow` merges it, and ends one the core no longer runs (its last event was missed:
 * a reconnect, a restart of the core).
 */
import { useStore } from 'zustand';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { RecheckProgress } from '../../../../shared/tracking-plan.ts';
import type { Inspector } from '../../store/inspector.ts';
import { useInspector } from '../../store/react.ts';
import { mergeProgress } from './plan-words.ts';

export interface RecheckState {
  progress: RecheckProgress | null;
  /**
   * The re-check in `progress` was running, and the core said it runs none: it ended, how is not
   * known (its last event did not arrive). Cleared by any later news of it or of another.
   */
  lost: boolean;
  /** The call is on its way. */
  starting: boolean;
  /** Why the re-check could not start. */
  error: string | null;
}

export interface RecheckController {
  store: StoreApi<RecheckState>;
  start(): Promise<void>;
  /** A token to take before asking `plans.list`, for `follow` (the re-checks learnt of so far). */
  seen(): number;
  /**
   * `plans.list`'s re-check under way (`running`; null: none), asked after `seen()` answered `since`.
   * A re-check learnt of after the question was sent (started meanwhile) is not ended by its answer.
   */
  follow(running: RecheckProgress | null, since: number): void;
}

/** Whether a re-check is under way, as far as the page knows (the button waits for it). */
export function isRunning(state: Pick<RecheckState, 'progress' | 'lost' | 'starting'>): boolean {
  return state.starting || (state.progress?.state === 'running' && !state.lost);
}

const controllers = new WeakMap<Inspector, RecheckController>();

export function recheckOf(inspector: Inspector): RecheckController {
  const known = controllers.get(inspector);
  if (known) return known;
  const store = createStore<RecheckState>()(() => ({ progress: null, lost: false, starting: false, error: null }));
  /** Goes up whenever news of a re-check other than the one in `progress` arrives. */
  let learnt = 0;
  const merge = (incoming: RecheckProgress) => {
    const { progress, lost } = store.getState();
    const next = mergeProgress(progress, incoming);
    if (next.id !== progress?.id) learnt++;
    // News of the lost re-check (further along, or its end) or of another: it is no longer lost.
    const found = lost && next !== progress;
    if (next !== progress || found) store.setState({ progress: next, ...(found ? { lost: false } : {}) });
  };
  inspector.subscribe((events) => {
    for (const event of events) if (event.type === 'plans.recheck') merge(event.progress);
  });
  const controller: RecheckController = {
    store,
    async start() {
      if (isRunning(store.getState())) return;
      store.setState({ starting: true, error: null });
      const result = await inspector.call('plans.recheck', {});
      if (result.ok) {
        store.setState({ starting: false });
        merge(result.value);
      } else store.setState({ starting: false, error: `Could not start the re-check: ${result.error.message}` });
    },
    seen: () => learnt,
    follow(running, since) {
      if (running) {
        merge(running);
        return;
      }
      const { progress, lost } = store.getState();
      if (progress?.state === 'running' && !lost && since === learnt) store.setState({ lost: true });
    },
  };
  controllers.set(inspector, controller);
  return controller;
}

export function useRecheck(): RecheckState & { start: () => Promise<void> } {
  const controller = recheckOf(useInspector());
  return { ...useStore(controller.store), start: controller.start };
}
