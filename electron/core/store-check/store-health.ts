// What is known of the store's soundness while Sluice runs: the background check's progress
// (store-check.ts) and damage found — by that check, or by a read or a write that ran into it. Damage
// is noted beside the store (store/damage-marker.ts: the next start then checks all of it and refuses
// it), and this follows the note: whatever noted it, the core announces it once (`storage.health` on
// the bus), and every outlet says it — stderr and `--json` of `sluice serve`, the inspector's banner,
// `/api/v1/stats` — with the fix.
import path from 'node:path';
import type { StoreHealth } from '../../../shared/storage.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import { markDamaged, watchDamage } from '../store/damage-marker.ts';
import { damagedSentence } from '../store/integrity.ts';
import { StoreCheck, type StoreCheckTiming } from './store-check.ts';

export interface StoreHealthOptions {
  /** The store's database file. */
  file: string;
  bus: EventBus;
  clock: Clock;
  writer: { readonly lastCommitAt: number };
  /** The start read the whole store (store/integrity.ts wasCheckedWhole). */
  checkedAtStart: boolean;
  /** The background check's timing; false: no background check (it stays `waiting`). */
  check?: Partial<StoreCheckTiming> | false;
  log?: (line: string) => void;
  /** Tests only: holds the check's thread while it loads (worker-options.ts LoadGate). */
  gate?: Int32Array;
}

export class StoreHealthTracker {
  readonly #o: StoreHealthOptions;
  readonly #check: StoreCheck;
  readonly #unwatch: () => void;
  #damage: StoreHealth['damage'] = null;

  constructor(options: StoreHealthOptions) {
    this.#o = options;
    const { file } = options;
    this.#check = new StoreCheck({
      file,
      clock: options.clock,
      writer: options.writer,
      checkedAtStart: options.checkedAtStart,
      timing: options.check === false ? undefined : options.check,
      log: options.log,
      gate: options.gate,
      onFound: (finding) => markDamaged(file, damagedSentence(file, finding)),
      onState: () => this.#announce(),
    });
    this.#unwatch = watchDamage(file, (sentence, at) => {
      if (this.#damage !== null) return; // the first finding says it; the same store keeps failing after
      this.#damage = { message: sentence, foundAt: at.getTime(), fix: `sluice doctor --data-dir ${path.dirname(file)} --salvage` };
      this.#announce();
    });
  }

  view(): StoreHealth {
    return { check: this.#check.view(), damage: this.#damage === null ? null : { ...this.#damage } };
  }

  /** Begins the background check (a few seconds from now), unless it is off. */
  start(): void {
    if (this.#o.check !== false) this.#check.start();
  }

  /** Checks the whole store again now, unless a check is under way. */
  checkAgain(): void {
    this.#check.checkAgain();
  }

  async close(): Promise<void> {
    this.#unwatch();
    await this.#check.close();
  }

  #announce(): void {
    this.#o.bus.emit('storage.health', this.view());
  }
}
