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
//
// New messages are not indexed one commit at a time: a slice waits until INDEX_BATCH messages wait, or
// the first of them has waited INDEX_DELAY_MS (a search reads what is not indexed yet from the messages
// themselves, so nothing is missed meanwhile). Every slice is a new segment of each FTS5 index, and
// FTS5 merges its segments as they come (64 leaf pages of merging per level for every 64 pages written,
// a whole common word's list at a time): at 1,000,000 stored, indexed one a slice, new messages cost the
// thread 1.26 ms each and up to 80 ms at once, in the way of the requests behind it; 50 a slice 0.06 ms,
// 200 a slice 0.043 ms (the search benchmark's newMessagesBySlice). A test that sends and waits one
// message at a time made a slice of each. Under load a slice still holds about LOADED_SLICE_MS' worth:
// 200 that arrive together may take two.
export const SLICE = 500;
/** Under load, the fewest messages a slice indexes: each slice is a transaction and a new segment of each index. */
export const MIN_SLICE = 25;
/** Under load, the first slice of a burst, before its pace is known. */
export const FIRST_LOADED_SLICE = 4 * MIN_SLICE;
/** Under load, how long a slice should take. */
export const LOADED_SLICE_MS = 3;
/** No commit for this long: the thread is idle, indexing goes at full speed. */
const QUIET_MS = 250;
/** New messages wait for a slice until this many wait… */
export const INDEX_BATCH = 200;
/** …or the first of them has waited this long. */
export const INDEX_DELAY_MS = 1_000;

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
  /** When the timer fires, on the scheduler's clock. */
  #due = 0;
  /** Under load, no slice before this (the rest after the last one). */
  #restUntil = -Infinity;
  /** Messages committed since the last slice, and when the first of them was (null: none). */
  #waiting = 0;
  #waitingSince: number | null = null;
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

  /** The thread started: what an earlier run left unindexed (or a store from before the index) goes now. */
  backlog(): void {
    this.#later(0);
  }

  /**
   * A group committed, storing `messages` messages (its requests' and an audience sync's; 0 for results
   * and the other writes): indexed in a slice once INDEX_BATCH wait or the first has waited INDEX_DELAY_MS.
   */
  committed(messages: number): void {
    const now = this.#now();
    this.#lastCommit = now;
    if (messages <= 0) return;
    this.#waitingSince ??= now;
    this.#waiting += messages;
    this.#later(this.#waiting >= INDEX_BATCH ? 0 : this.#waitingSince + INDEX_DELAY_MS - now);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The next slice in `ms` (never before the rest ends); an earlier one already set stands. */
  #later(ms: number): void {
    if (this.#stopped) return;
    const now = this.#now();
    const due = Math.max(now + ms, this.#restUntil);
    if (this.#timer && this.#due <= due) return;
    clearTimeout(this.#timer);
    this.#due = due;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#run();
    }, Math.max(0, due - now));
  }

  #run(): void {
    if (this.#stopped) return;
    if (this.#busy()) {
      this.#later(5);
      return;
    }
    // What waits now goes in this slice (or, when it is full, the ones after it).
    this.#waiting = 0;
    this.#waitingSince = null;
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
      // The next try after RETRY_MS, which commits meanwhile do not bring forward.
      this.#restUntil = this.#now() + RETRY_MS;
      this.#later(0);
      return;
    }
    const now = this.#now();
    this.#restUntil = now + restAfter(started, now, this.#lastCommit);
    // A slice short of its limit indexed everything: the next waits for new messages (committed()).
    if (indexed < limit) return;
    // The next slice's limit: as many messages as LOADED_SLICE_MS holds at this slice's pace.
    if (loaded) this.#loadedLimit = Math.max(MIN_SLICE, Math.min(SLICE, Math.round((indexed * LOADED_SLICE_MS) / Math.max(now - started, 0.01))));
    this.#later(0);
  }
}
