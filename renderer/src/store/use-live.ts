/**
 * Data a view reads from the core and reads again as core events concern it (an audience's history,
 * a tracking plan's counts): one load at a time. An event that concerns the data while a load is in
 * flight marks it dirty, and it loads again once the answer is in; between loads it waits `everyMs`
 * plus as long as the last load took, so a core under load is asked less often, never more, and
 * every answer is shown. `LiveLoader` is the schedule without React (tested in Node); `useLive` the hook.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { CoreEvent } from '../../../shared/contract.ts';
import { useInspector, useInspectorState } from './react.ts';

export type Loaded<T> = { ok: true; value: T } | { ok: false; error: { message: string } };

export interface LiveLoaderOptions<T> {
  load: () => Promise<Loaded<T>>;
  /** Each answer, in order (one load at a time). */
  onAnswer: (answer: Loaded<T>) => void;
  /** The least wait between two loads an event asks for. */
  everyMs: number;
  now?: () => number;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/** One load at a time: asked for meanwhile, it loads again when the answer is in, after a wait that grows with how long a load takes. */
export class LiveLoader<T> {
  #inFlight = false;
  /** Asked for while a load was in flight: load again when it answers. */
  #dirty = false;
  /** The next load should not wait (a reconnect, another key, a reload asked for by the view). */
  #urgent = false;
  #timer: unknown = undefined;
  #lastMs = 0;
  #disposed = false;
  readonly #options: Required<LiveLoaderOptions<T>>;

  constructor(options: LiveLoaderOptions<T>) {
    this.#options = {
      now: () => performance.now(),
      setTimer: (callback, ms) => setTimeout(callback, ms),
      clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
      ...options,
    };
  }

  /** How long the next event-driven load waits: `everyMs`, plus the last load's duration. */
  get delay(): number {
    return this.#options.everyMs + this.#lastMs;
  }

  get loading(): boolean {
    return this.#inFlight;
  }

  /** Loads again: at once when `urgent`, else after `delay` (a burst of requests costs one load). */
  request(urgent = false): void {
    if (this.#disposed) return;
    if (this.#inFlight) {
      this.#dirty = true;
      if (urgent) this.#urgent = true;
      return;
    }
    if (urgent) {
      this.#cancelTimer();
      void this.#run();
    } else if (this.#timer === undefined) {
      this.#timer = this.#options.setTimer(() => {
        this.#timer = undefined;
        void this.#run();
      }, this.delay);
    }
  }

  dispose(): void {
    this.#disposed = true;
    this.#cancelTimer();
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return;
    this.#options.clearTimer(this.#timer);
    this.#timer = undefined;
  }

  async #run(): Promise<void> {
    if (this.#disposed || this.#inFlight) return;
    this.#inFlight = true;
    this.#dirty = false;
    this.#urgent = false;
    const started = this.#options.now();
    let answer: Loaded<T>;
    try {
      answer = await this.#options.load();
    } catch (error) {
      answer = { ok: false, error: { message: error instanceof Error ? error.message : String(error) } };
    }
    this.#lastMs = Math.max(0, this.#options.now() - started);
    this.#inFlight = false;
    if (this.#disposed) return;
    this.#options.onAnswer(answer);
    if (this.#dirty) this.request(this.#urgent);
  }
}

export interface LiveOptions<T> {
  load: () => Promise<Loaded<T>>;
  /** Whether an event batch concerns the data (`current`: the last answer, null before one). */
  concerns: (events: CoreEvent[], current: T | null) => boolean;
  /** "the tracking plans": said in the error ("Could not load the tracking plans: …"). */
  what: string;
  /** Loads again at once when this changes (another plan, a search). */
  key?: string;
  /** The least wait between two loads events ask for (default 300 ms). */
  everyMs?: number;
  /**
   * The last answer stays shown while another key loads (a search being typed); otherwise the data
   * is null until this key's answer comes (another plan's counts are never shown as this one's).
   */
  keepAcrossKeys?: boolean;
  /**
   * While set, also loads every this many ms (figures that change without an event, such as the
   * store's size): asked as an event asks, so one load at a time and never sooner than `everyMs`
   * plus the last load's time. Null or absent: only on events (pass null while the data is off screen).
   */
  pollMs?: number | null;
}

/**
 * Loads something from the core, again when an event batch concerns it, after a reconnect, when
 * `key` changes and every `pollMs` when asked; `reload()` loads again at once (after a change the view
 * made). One load at a time.
 */
export function useLive<T>({ load, concerns, what, key = '', everyMs = 300, keepAcrossKeys = false, pollMs = null }: LiveOptions<T>) {
  const inspector = useInspector();
  const connected = useInspectorState((s) => s.connection.kind === 'open');
  const [data, setData] = useState<{ key: string; value: T } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  const concernsRef = useRef(concerns);
  concernsRef.current = concerns;
  const keyRef = useRef(key);
  keyRef.current = key;
  const whatRef = useRef(what);
  whatRef.current = what;
  const current = useRef<T | null>(null);
  const loader = useRef<LiveLoader<{ key: string; answer: Loaded<T> }> | null>(null);

  useEffect(() => {
    const live = new LiveLoader<{ key: string; answer: Loaded<T> }>({
      load: async () => {
        const forKey = keyRef.current;
        const answer = await loadRef.current();
        return { ok: true, value: { key: forKey, answer } };
      },
      onAnswer: (result) => {
        if (!result.ok) return;
        const { key: forKey, answer } = result.value;
        // An answer for the key before: the load for this key is under way (the key change asked for it).
        if (forKey !== keyRef.current) return;
        if (answer.ok) {
          current.current = answer.value;
          setData({ key: forKey, value: answer.value });
          setError(null);
        } else {
          setError(`Could not load ${whatRef.current}: ${answer.error.message}`);
        }
      },
      everyMs,
    });
    loader.current = live;
    const off = inspector.subscribe((events) => {
      if (concernsRef.current(events, current.current)) live.request();
    });
    return () => {
      off();
      live.dispose();
      if (loader.current === live) loader.current = null;
    };
  }, [inspector, everyMs]);

  useEffect(() => {
    if (connected) loader.current?.request(true);
  }, [connected, key, everyMs, inspector]);

  useEffect(() => {
    if (!pollMs || !connected) return;
    const timer = setInterval(() => loader.current?.request(), pollMs);
    return () => clearInterval(timer);
  }, [pollMs, connected]);

  const reload = useCallback(() => loader.current?.request(true), []);
  const shown = data === null ? null : keepAcrossKeys || data.key === key ? data.value : null;
  return { data: shown, error, reload };
}
