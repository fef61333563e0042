/** Messages per second over a sliding window of whole seconds. */
export class RateMeter {
  readonly #buckets: number[];
  readonly #seconds: number;
  #second = -1;

  constructor(seconds = 3) {
    this.#seconds = seconds;
    this.#buckets = new Array(seconds + 1).fill(0);
  }

  record(now: number, count: number): void {
    this.#advance(now);
    this.#buckets[this.#second % this.#buckets.length]! += count;
  }

  /** The mean over the last `seconds` complete seconds. */
  rate(now: number): number {
    this.#advance(now);
    let sum = 0;
    for (let i = 1; i <= this.#seconds; i++) sum += this.#buckets[(this.#second - i + this.#buckets.length * 2) % this.#buckets.length]!;
    return sum / this.#seconds;
  }

  #advance(now: number): void {
    const second = Math.floor(now / 1000);
    if (this.#second < 0) this.#second = second;
    const steps = Math.min(second - this.#second, this.#buckets.length);
    for (let i = 1; i <= steps; i++) this.#buckets[(this.#second + i) % this.#buckets.length] = 0;
    if (second > this.#second) this.#second = second;
  }
}
