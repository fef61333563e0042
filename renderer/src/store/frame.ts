/** What scheduling a frame needs from the browser (passed in, so that it can be tested without one). */
export interface FrameHost {
  hidden(): boolean;
  requestAnimationFrame(callback: () => void): void;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

/**
 * Runs `callback` once, before the next paint — or on a timer when there is no paint to wait for: a
 * hidden tab or a minimised window gets no animation frames at all, while core events keep arriving,
 * so waiting for a frame would let them pile up (and the rows to fetch with them) until the user
 * comes back.
 */
export function requestFrameOrTimeout(callback: () => void, host: FrameHost): void {
  if (host.hidden()) {
    // No frame will come: one asked for now would only run, with all the others, once the page shows.
    host.setTimeout(callback, HIDDEN_FRAME_MS);
    return;
  }
  // Visible: on the frame — unless the page is hidden before it comes; then the fallback runs it.
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    host.clearTimeout(timer);
    callback();
  };
  const timer = host.setTimeout(run, FRAME_FALLBACK_MS);
  host.requestAnimationFrame(run);
}

/** While hidden, events are applied this often (browsers may stretch timers in background tabs to a second or more). */
export const HIDDEN_FRAME_MS = 250;
/** A frame that does not come within this long (the page was hidden meanwhile) is not waited for. */
export const FRAME_FALLBACK_MS = 1_000;

export const browserFrameHost: FrameHost = {
  hidden: () => typeof document !== 'undefined' && document.hidden,
  requestAnimationFrame: (callback) => void requestAnimationFrame(() => callback()),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};
