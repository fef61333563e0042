// The legacy analytics-node (v6) ships no types; the tests use only this much of it.
declare module 'analytics-node' {
  export default class Analytics {
    constructor(writeKey: string, options?: Record<string, unknown>);
    identify(message: object, callback?: (error?: Error) => void): this;
    track(message: object, callback?: (error?: Error) => void): this;
    page(message: object, callback?: (error?: Error) => void): this;
    screen(message: object, callback?: (error?: Error) => void): this;
    group(message: object, callback?: (error?: Error) => void): this;
    alias(message: object, callback?: (error?: Error) => void): this;
    flush(callback?: (error?: Error, data?: { batch: Record<string, unknown>[] }) => void): Promise<unknown>;
  }
}
