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
// segments are merged four at a time, level after level, so what new messages cost follows how many
// slices hold them: at 1,000,000 stored, one a slice costs the thread 1.37 ms a message (slices and
// merges), 200 a slice 0.021 ms (the search benchmark's newMessagesBySlice). A test that sends and waits one
// message at a time made a slice of each. Under load a slice still holds about LOADED_SLICE_MS' worth:
// 200 that arrive together may take two.
//
// Merging is a step of its own (store/search-index.ts: FTS5's 'automerge' is off), MERGE_PAGES pages of
// each index at a time, at the slices' pace (rests under load, none once idle), between the slices (at
// most MERGES_PER_SLICE steps before a slice that is owed). FTS5's own merges ran inside the slice that
// crossed their threshold: at 1 M stored a slice of 200 took up to 39 ms, whatever it held. Now slices of
// 50 and 200 take at most 0.9 and 2.2 ms (the search benchmark); at 3.7 M, steps of 16 pages took 4.0 ms
// at p95 and 29 at p99, and a step that copies a common word's whole list at a high level up to 35–71 ms
// (as FTS5's own merges did: a merge stops only between words).
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
/** A step of merging writes about this many pages of each index (at 3.7 M stored: 4 ms at p95, 29 at p99). */
export const MERGE_PAGES = 16;
/**
 * Merge steps start once this many messages were indexed or removed since the merges last caught up, not
 * after every slice: a level is merged once it holds four segments, so slices of a message or two (a
 * trickle, a second apart) would have the levels merged over and over for a few messages each. FTS5 itself merges level 0
 * once it holds 16 segments ('crisismerge').
 */
export const MERGE_AFTER = INDEX_BATCH;
/**
 * While slices and merges are both owed (a backlog, or ingestion faster than indexing's share), at most
 * this many merge steps go between two slices, and at least one: with merges put off for as long as
 * slices are owed, FTS5 merged a level by itself once it reached 16 segments ('crisismerge'), a whole
 * level at once inside a slice (up to 0.46 s at a backlog of 300,000 messages: bench-results/issue26-automerge-experiment.json).
 */
export const MERGES_PER_SLICE = 4;
/** A slice or a merge step failed (say, a full disk): the next try of that kind waits this long. */
const RETRY_MS = 10_000;

/** Logs the first failure of one kind of work and its recovery, once each: not every retry. */
class FailureLog {
  readonly #what: string;
  readonly #log: (line: string) => void;
  #failing = false;
  constructor(what: string, log: (line: string) => void) {
    this.#what = what;
    this.#log = log;
  }

  failed(error: unknown): void {
    if (!this.#failing) this.#log(`sluice: ${this.#what} failed (${(error as Error).message}); retrying every ${RETRY_MS / 1000} s`);
    this.#failing = true;
  }

  ok(): void {
    if (this.#failing) this.#log(`sluice: ${this.#what} resumed`);
    this.#failing = false;
  }
}

/** The writer's side of the search indexes (store/search-index.ts searchIndexer). */
interface IndexWork {
  step(limit: number): number;
  merge(pages: number): boolean;
}

export class IndexScheduler {
  readonly #work: IndexWork;
  readonly #busy: () => boolean;
  readonly #now: () => number;
  readonly #slices: FailureLog;
  readonly #merges: FailureLog;
  /** The messages the next slice may index under load (SLICE when idle; the first slice of a burst is small until its pace is known). */
  #loadedLimit = FIRST_LOADED_SLICE;
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires, on the scheduler's clock. */
  #due = 0;
  /** Under load, no slice or merge step before this (the rest after the last one). */
  #restUntil = -Infinity;
  /** Messages committed since the last slice, and when the first of them was (null: none). */
  #waiting = 0;
  #waitingSince: number | null = null;
  #lastCommit = -Infinity;
  /** The last slice was full: more messages may wait to be indexed (or older ones: a store from before the index). */
  #more = false;
  /**
   * Messages indexed or removed (a removal is a new segment too) since the merges last caught up: merge
   * steps are owed from MERGE_AFTER on, until one finds nothing left to merge (then 0).
   */
  #unmerged = 0;
  /** Merge steps since the last slice. */
  #mergesSinceSlice = 0;
  /** A merge step failed: the next waits until then (slices go on meanwhile). */
  #mergeRetryAt = -Infinity;
  #stopped = false;

  /** `busy`: a group commit is waiting (indexing waits its turn). `now`: the clock (tests set one). */
  constructor(
    work: IndexWork,
    busy: () => boolean,
    log: (line: string) => void = (line) => console.error(line),
    now: () => number = () => performance.now(),
  ) {
    this.#work = work;
    this.#busy = busy;
    this.#now = now;
    this.#slices = new FailureLog('indexing for search', log);
    this.#merges = new FailureLog('merging the search indexes', log);
  }

  /**
   * The thread started: what an earlier run left unindexed (or a store from before the index) goes now.
   * Merges are owed once MERGE_AFTER messages were indexed or removed, as in any run: a start writes
   * nothing when nothing is left to index (a merge an earlier run left under way goes on with the next).
   */
  backlog(): void {
    this.#more = true;
    this.#later(0);
  }

  /**
   * A group committed, storing `messages` messages (its requests' and an audience sync's; 0 for results
   * and the other writes): indexed in a slice once INDEX_BATCH wait or the first has waited INDEX_DELAY_MS.
   * `removed` messages left the indexes (a prune, a purge): each such commit wrote a segment of 'delete'
   * entries, to be merged as new messages' are.
   */
  committed(messages: number, removed = 0): void {
    const now = this.#now();
    this.#lastCommit = now;
    this.#unmerged += removed;
    if (messages > 0) {
      this.#waitingSince ??= now;
      this.#waiting += messages;
    }
    if (messages > 0 || removed > 0) this.#next(now);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The next slice or merge step in `ms` (never before the rest ends); an earlier one already set stands. */
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
    const started = this.#now();
    const slicePending = this.#more || this.#sliceDue(started);
    const mergeReady = this.#mergeOwed() && started >= this.#mergeRetryAt;
    // Merges owed go between slices: a slice owed waits for MERGES_PER_SLICE steps at most.
    const slice = slicePending && (!mergeReady || this.#mergesSinceSlice >= MERGES_PER_SLICE);
    if (!slice && !mergeReady) return this.#next(started);
    const loaded = started - this.#lastCommit < QUIET_MS;
    // Idle, whole slices; the next burst's first slice is small again until its pace is known.
    if (!loaded) this.#loadedLimit = FIRST_LOADED_SLICE;
    const limit = loaded ? this.#loadedLimit : SLICE;
    let indexed = 0;
    if (slice) {
      try {
        // What waits now goes in this slice (or, when it is full, the ones after it).
        this.#waiting = 0;
        this.#waitingSince = null;
        this.#mergesSinceSlice = 0;
        indexed = this.#work.step(limit);
        // A slice short of its limit indexed everything: the next waits for new messages (committed()).
        this.#more = indexed >= limit;
        this.#unmerged += indexed;
        this.#slices.ok();
      } catch (error) {
        this.#slices.failed(error);
        this.#more = true; // the retry indexes whatever is there by then
        // The next try after RETRY_MS, which commits meanwhile do not bring forward.
        this.#restUntil = this.#now() + RETRY_MS;
        this.#later(0);
        return;
      }
    } else {
      try {
        this.#mergesSinceSlice++;
        if (!this.#work.merge(MERGE_PAGES)) this.#unmerged = 0;
        this.#merges.ok();
      } catch (error) {
        this.#merges.failed(error);
        // Slices go on meanwhile (a merge writes far more than a slice: a nearly full disk may refuse it alone).
        this.#mergeRetryAt = this.#now() + RETRY_MS;
      }
    }
    const now = this.#now();
    this.#restUntil = now + restAfter(started, now, this.#lastCommit);
    // The next slice's limit: as many messages as LOADED_SLICE_MS holds at this slice's pace.
    if (slice && loaded && this.#more) this.#loadedLimit = Math.max(MIN_SLICE, Math.min(SLICE, Math.round((indexed * LOADED_SLICE_MS) / Math.max(now - started, 0.01))));
    this.#next(now);
  }

  /** Merge steps are owed: MERGE_AFTER messages were indexed or removed since the merges last caught up. */
  #mergeOwed(): boolean {
    return this.#unmerged >= MERGE_AFTER;
  }

  /** New messages are due for a slice: INDEX_BATCH of them wait, or the first has waited INDEX_DELAY_MS. */
  #sliceDue(now: number): boolean {
    return this.#waitingSince !== null && (this.#waiting >= INDEX_BATCH || now >= this.#waitingSince + INDEX_DELAY_MS);
  }

  /** The next slice or merge step: now (after the rest) if one is owed, else when one will be. */
  #next(now: number): void {
    const mergeOwed = this.#mergeOwed();
    if (this.#more || this.#waiting >= INDEX_BATCH || (mergeOwed && now >= this.#mergeRetryAt)) return this.#later(0);
    const at = Math.min(this.#waitingSince !== null ? this.#waitingSince + INDEX_DELAY_MS : Infinity, mergeOwed ? this.#mergeRetryAt : Infinity);
    if (at < Infinity) this.#later(at - now);
  }
}
