import type { RecheckProgress } from '../../../shared/tracking-plan.ts';
import type { EventBus } from '../bus/event-bus.ts';
import { OperationError } from '../operation-error.ts';
import type { PlanStatsRepo } from '../store/plan-stats.ts';
import type { StoreWriter } from '../writer/store-writer.ts';

/** Messages per slice: each is one unit of a group commit in the writer (ingestion goes on between slices). */
const SLICE = 2000;
/** Progress events at most this often (the last one always). */
const PROGRESS_MS = 250;

/**
 * Re-checks of the stored messages against the plans in use, one at a time, a slice per write
 * (plans/recheck-writes.ts), announcing progress as `plans.recheck` events. It goes through the
 * messages stored when it started, and ends there: messages stored meanwhile are checked at
 * ingestion anyway (a re-check that chased them might never end under steady traffic).
 */
export class Rechecks {
  readonly #writer: StoreWriter;
  readonly #bus: EventBus;
  readonly #stats: PlanStatsRepo;
  #running: RecheckProgress | null = null;
  #lastId = 0;
  #stopped = false;

  constructor(writer: StoreWriter, bus: EventBus, stats: PlanStatsRepo) {
    this.#writer = writer;
    this.#bus = bus;
    this.#stats = stats;
  }

  /** Starts a re-check and answers with its first progress; refused while one runs. */
  start(): RecheckProgress {
    if (this.#running) throw new OperationError('recheck_running', `a re-check is under way (${this.#running.done} of ${this.#running.total} messages); wait for it to finish`);
    // Ids that grow across restarts, so a page that saw an older re-check tells them apart.
    this.#lastId = Math.max(Date.now(), this.#lastId + 1);
    // The messages stored up to now, by id: progress is a position in that range (counting them would
    // scan the store); what arrives meanwhile was checked at ingestion already.
    const { min, max } = this.#stats.idRange();
    const progress: RecheckProgress = { id: this.#lastId, done: 0, total: max === 0 ? 0 : max - min + 1, changed: 0, state: 'running' };
    this.#running = progress;
    void this.#run(progress, min, max);
    return { ...progress };
  }

  /** The re-check under way, if any. */
  get running(): RecheckProgress | null {
    return this.#running ? { ...this.#running } : null;
  }

  /** Stops between slices (the core is closing). */
  stop(): void {
    this.#stopped = true;
  }

  async #run(progress: RecheckProgress, min: number, untilId: number): Promise<void> {
    let afterId = min - 1;
    let announced = 0;
    try {
      for (;;) {
        if (this.#stopped) throw new Error('Sluice stopped before it finished; start it again');
        const outcome = await this.#writer.write({ op: 'recheck', afterId, untilId, limit: SLICE });
        const [lastId, read] = outcome.ids as [number, number];
        if (read === 0) break;
        afterId = lastId;
        progress.changed += outcome.changed;
        progress.done = Math.min(progress.total, lastId - min + 1);
        if (Date.now() - announced >= PROGRESS_MS) {
          announced = Date.now();
          this.#bus.emit('plans.recheck', { ...progress });
        }
      }
      progress.done = progress.total;
      progress.state = 'finished';
    } catch (error) {
      progress.state = 'failed';
      progress.error = `the re-check stopped: ${(error as Error).message}`;
    }
    this.#running = null;
    this.#bus.emit('plans.recheck', { ...progress });
    if (progress.changed > 0) this.#bus.emit('plans.changed', null);
  }
}
