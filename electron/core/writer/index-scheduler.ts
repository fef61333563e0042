// When the writer thread indexes messages for the stream's search (store/search-index.ts indexes): only
// between group commits, a slice at a time. While requests keep coming it gives indexing at most a
// tenth of its time (a slice that took t ms is followed by a 9t ms pause), so ingestion keeps ~90 % of
// its rate under sustained load; once they stop it catches up slice after slice (still letting any
// message in between).
//
// While requests keep coming, a slice is also kept short: a request that reaches the thread during a
// slice waits for it to end, so the slice's length is added to that request's answer. Slices of SLICE
// messages took up to 31 ms under 2,000 events/s with a webhook and two forwards (a profile of the
// writer thread, issue 26), the thread's longest stretches after its group commits; so under load the
// number of messages per slice follows the time the last slices took, aiming at LOADED_SLICE_MS.
export const SLICE = 500;
/** Under load, the fewest messages a slice indexes: each slice is a transaction and a new segment of each index. */
export const MIN_SLICE = 25;
/** Under load, the first slice of a burst, before its pace is known. */
export const FIRST_LOADED_SLICE = 4 * MIN_SLICE;
/** Under load, how long a slice should take. */
export const LOADED_SLICE_MS = 3;
/** No commit for this long: the thread is idle, indexing goes at full speed. */
const QUIET_MS = 250;

/**
 * How long background work on the writer thread (indexing, a merge of the indexes) rests after a slice
 * that ran from `started` to `now`: under load (a commit within QUIET_MS) 9× the slice — at most a tenth
 * of the thread's time —, none once the thread is idle.
 */
export function restAfter(started: number, now: number, lastCommit: number): number {
  return now - lastCommit < QUIET_MS ? Math.ceil((now - started) * 9) : 0;
}
/** A slice failed (say, a full disk): the next try waits this long. */
const RETRY_MS = 10_000;

export class IndexScheduler {
  readonly #step: (limit: number) => number;
  readonly #busy: () => boolean;
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  /** The messages the next slice may index under load (SLICE when idle; the first slice of a burst is small until its pace is known). */
  #loadedLimit = FIRST_LOADED_SLICE;
  #timer: NodeJS.Timeout | undefined;
  #lastCommit = -Infinity;
  #failing = false;
  #stopped = false;

  /** `busy`: a group commit is waiting (indexing waits its turn). `now`: the clock (tests set one). */
  constructor(
    step: (limit: number) => number,
    busy: () => boolean,
    log: (line: string) => void = (line) => console.error(line),
    now: () => number = () => performance.now(),
  ) {
    this.#step = step;
    this.#busy = busy;
    this.#log = log;
    this.#now = now;
  }

  /** Messages were committed (or the thread started): there is something to index. */
  committed(): void {
    this.#lastCommit = this.#now();
    this.#later(0);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #later(ms: number): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#run();
    }, ms);
  }

  #run(): void {
    if (this.#stopped) return;
    if (this.#busy()) {
      this.#later(5);
      return;
    }
    const started = this.#now();
    const loaded = started - this.#lastCommit < QUIET_MS;
    // Idle, whole slices; the next burst's first slice is small again until its pace is known.
    if (!loaded) this.#loadedLimit = FIRST_LOADED_SLICE;
    const limit = loaded ? this.#loadedLimit : SLICE;
    let indexed: number;
    try {
      indexed = this.#step(limit);
      if (this.#failing) this.#log('sluice: indexing for search resumed');
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.#log(`sluice: indexing for search failed (${(error as Error).message}); retrying every ${RETRY_MS / 1000} s`);
      this.#failing = true;
      this.#later(RETRY_MS);
      return;
    }
    if (indexed === 0) return;
    const now = this.#now();
    // The next slice's limit: as many messages as LOADED_SLICE_MS holds at this slice's pace.
    if (loaded) this.#loadedLimit = Math.max(MIN_SLICE, Math.min(SLICE, Math.round((indexed * LOADED_SLICE_MS) / Math.max(now - started, 0.01))));
    this.#later(restAfter(started, now, this.#lastCommit));
  }
}
