// When the writer thread indexes messages for the stream's search (store/search-index.ts indexes): only
// between group commits, a slice at a time. While requests keep coming it gives indexing at most a
// tenth of its time (a slice that took t ms is followed by a 9t ms pause), so ingestion keeps ~90 % of
// its rate under sustained load; once they stop it catches up slice after slice (still letting any
// message in between).
export const SLICE = 500;
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
  readonly #step: (limit: number) => boolean;
  readonly #busy: () => boolean;
  readonly #log: (line: string) => void;
  #timer: NodeJS.Timeout | undefined;
  #lastCommit = -Infinity;
  #failing = false;
  #stopped = false;

  /** `busy`: a group commit is waiting (indexing waits its turn). */
  constructor(step: (limit: number) => boolean, busy: () => boolean, log: (line: string) => void = (line) => console.error(line)) {
    this.#step = step;
    this.#busy = busy;
    this.#log = log;
  }

  /** Messages were committed (or the thread started): there is something to index. */
  committed(): void {
    this.#lastCommit = performance.now();
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
    const started = performance.now();
    let more: boolean;
    try {
      more = this.#step(SLICE);
      if (this.#failing) this.#log('sluice: indexing for search resumed');
      this.#failing = false;
    } catch (error) {
      if (!this.#failing) this.#log(`sluice: indexing for search failed (${(error as Error).message}); retrying every ${RETRY_MS / 1000} s`);
      this.#failing = true;
      this.#later(RETRY_MS);
      return;
    }
    if (!more) return;
    this.#later(restAfter(started, performance.now(), this.#lastCommit));
  }
}
