/**
 * Errors that sluice/testing throws at a test point at the test. A wait that times out is rejected
 * from a timer inside the relay, and a refused filter or config from deep in the package, so their
 * stacks hold only `dist/chunks/…` frames and a test runner's code frame shows those, not the line of
 * the test that asked. Each public function therefore records where it was called (the stack at the
 * call, without its own frame: Error.captureStackTrace against the function the test called) and
 * gives every error it throws or rejects with that stack under the error's own name and message.
 */

/** The stack of a call, as V8 writes it, without the header line. */
export interface CallSite {
  stack?: string;
}

/**
 * `fn`, its errors (thrown, or its promise's rejection) carrying the stack of whoever called it.
 * A synchronous throw stays synchronous.
 */
export function withCallerStack<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  const publicFunction = (...args: A): R => {
    const site: CallSite = {};
    Error.captureStackTrace(site, publicFunction);
    let result: R;
    try {
      result = fn(...args);
    } catch (error) {
      throw atCaller(error, site);
    }
    if (result instanceof Promise) {
      return result.catch((error: unknown) => {
        throw atCaller(error, site);
      }) as R;
    }
    return result;
  };
  return publicFunction;
}

/** `error` with its name and message over the caller's frames (anything not an Error is left alone). */
export function atCaller(error: unknown, site: CallSite): unknown {
  if (!(error instanceof Error) || site.stack === undefined) return error;
  const frames = site.stack.slice(site.stack.indexOf('\n'));
  const own = error.stack ?? '';
  const firstFrame = own.search(/\n\s+at /);
  const header = firstFrame >= 0 ? own.slice(0, firstFrame) : `${error.name}: ${error.message}`;
  Object.defineProperty(error, 'stack', { value: `${header}${frames}`, writable: true, configurable: true, enumerable: false });
  return error;
}
