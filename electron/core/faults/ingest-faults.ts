// Fault injection's policy: which request gets which fault, counted and timed on the core's clock.
// The ingestion endpoint asks `take()` for each Tracking API request and carries the answer out
// (ingest/fault-answers.ts: the mechanism); the operations add, list and clear faults (the `faults.*`
// channels). Nothing here touches a socket or the store.
import { FAULT_LIMITS, type FaultedRequest, type FaultsView, type FaultView, type IngestFault } from '../../../shared/channels/faults.ts';
import type { Clock } from '../clock.ts';
import { OperationError } from '../operation-error.ts';

/** What the endpoint does to one request: delay it (then go on), answer a status, or drop it. */
export interface AppliedFault {
  id: number;
  status: number | null;
  drop: boolean;
  delayMs: number | null;
  retryAfter: number | null;
  /**
   * Aborted when the fault is cleared: a request it holds is let go at once. Its reason is
   * RELEASED_BY_RESET when a reset ended it: the request belongs to the test that ended, and is refused.
   */
  released: AbortSignal;
}

/** The `released` signal's reason when a reset (not a clear) let go of the requests the faults held. */
export const RELEASED_BY_RESET = 'reset';

interface ActiveFault {
  id: number;
  fault: IngestFault;
  addedAt: number;
  applied: number;
}

export class IngestFaults {
  readonly #clock: Clock;
  readonly #changed: () => void;
  #faults: ActiveFault[] = [];
  #faulted: FaultedRequest[] = [];
  #nextId = 1;
  /** Aborted (and replaced) at each clear: what the faults cleared hold is let go. */
  #release = new AbortController();

  /** `changed` is called whenever the faults or the record of faulted requests changed (the inspector reads them again). */
  constructor(clock: Clock, changed: () => void = () => {}) {
    this.#clock = clock;
    this.#changed = changed;
  }

  /** Whether any fault is active: the endpoint's cheap check before it asks for one. */
  get active(): boolean {
    return this.#faults.length > 0;
  }

  /** Adds a fault (validated by the contract's schema) after those already active. */
  add(fault: IngestFault): FaultView {
    const now = this.#clock.now();
    this.#expire(now);
    if (this.#faults.length >= FAULT_LIMITS.maxActive) {
      throw new OperationError(
        'too_many_faults',
        `${FAULT_LIMITS.maxActive} faults are active, the most at once; clear them (DELETE /api/v1/faults, sluice.faults.clear()) or give the next ones times or forMs`,
      );
    }
    const active: ActiveFault = { id: this.#nextId++, fault, addedAt: now, applied: 0 };
    this.#faults.push(active);
    this.#changed();
    return viewOf(active, now);
  }

  /**
   * The fault a request to `endpoint` (its canonical path, e.g. /v1/track for /v1/t) gets, counted as
   * applied; null when none. The first active fault whose path matches applies: faults added in turn run
   * in turn (`{status: 503, times: 2}` then `{drop: true, times: 1}`: two 503s, a drop, then as usual).
   */
  take(endpoint: string): AppliedFault | null {
    if (this.#faults.length === 0) return null;
    const now = this.#clock.now();
    this.#expire(now);
    const active = this.#faults.find((f) => f.fault.path === undefined || f.fault.path === endpoint);
    if (!active) return null;
    active.applied++;
    if (active.fault.times !== undefined && active.applied >= active.fault.times) this.#faults = this.#faults.filter((f) => f !== active);
    // Its count moved, or it is used up: the inspector's notice says so now, not once the request ends (a delay holds it up to a minute).
    this.#changed();
    return { id: active.id, ...answerOf(active.fault), released: this.#release.signal };
  }

  /** Records a request a fault was applied to (the most recent FAULT_LIMITS.recorded are kept). */
  note(request: Omit<FaultedRequest, 'at'>): void {
    this.#faulted.push({ at: new Date(this.#clock.now()).toISOString(), ...request });
    if (this.#faulted.length > FAULT_LIMITS.recorded) this.#faulted.splice(0, this.#faulted.length - FAULT_LIMITS.recorded);
    this.#changed();
  }

  list(): FaultsView {
    const now = this.#clock.now();
    this.#expire(now);
    return { faults: this.#faults.map((f) => viewOf(f, now)), faulted: [...this.#faulted] };
  }

  /** Ends every active fault and lets go of the requests they hold (then handled as usual); `forget` also empties the record. */
  clear(forget = false): { cleared: number } {
    return this.#end(forget, 'cleared');
  }

  /**
   * A reset's end of every fault: the record is forgotten, and the requests a delay holds are refused
   * rather than let go (fault-answers.ts), so that nothing of the test that ended is stored or recorded
   * after the reset, in the next test's view.
   */
  reset(): void {
    this.#end(true, RELEASED_BY_RESET);
  }

  #end(forget: boolean, reason: string): { cleared: number } {
    const cleared = this.#faults.length;
    this.#faults = [];
    if (forget) this.#faulted = [];
    this.#release.abort(reason);
    this.#release = new AbortController();
    this.#changed();
    return { cleared };
  }

  /** Drops the faults whose forMs has run out on the clock. */
  #expire(now: number): void {
    const before = this.#faults.length;
    this.#faults = this.#faults.filter((f) => endOf(f) === null || endOf(f)! > now);
    if (this.#faults.length !== before) this.#changed();
  }
}

/** What a fault makes ingestion answer: the part a request meets and the part a view shows alike. */
function answerOf(fault: IngestFault) {
  return { status: fault.status ?? null, drop: fault.drop === true, delayMs: fault.delayMs ?? null, retryAfter: fault.retryAfter ?? null };
}

function endOf(active: ActiveFault): number | null {
  return active.fault.forMs === undefined ? null : active.addedAt + active.fault.forMs;
}

function viewOf(active: ActiveFault, now: number): FaultView {
  const { fault } = active;
  const end = endOf(active);
  return {
    id: active.id,
    ...answerOf(fault),
    path: fault.path ?? null,
    times: fault.times ?? null,
    applied: active.applied,
    forMs: fault.forMs ?? null,
    addedAt: new Date(active.addedAt).toISOString(),
    endsAt: end === null ? null : new Date(end).toISOString(),
    remainingMs: end === null ? null : Math.max(0, end - now),
  };
}
