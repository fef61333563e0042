/** Time as the core sees it. Injected so tests and demos can run hours of retries in milliseconds. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
