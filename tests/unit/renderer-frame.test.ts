// The inspector applies core events once per frame — and on a timer while the page is hidden, where
// browsers run no frames at all (renderer/src/store/frame.ts). Driven with a scripted browser host.
import { describe, expect, it } from 'vitest';
import { FRAME_FALLBACK_MS, HIDDEN_FRAME_MS, requestFrameOrTimeout, type FrameHost } from '../../renderer/src/store/frame.ts';

/** A browser host whose frames and timers run when the test says. */
function scriptedHost(hidden: boolean) {
  const frames: (() => void)[] = [];
  const timers = new Map<number, { callback: () => void; ms: number }>();
  let next = 1;
  const host: FrameHost = {
    hidden: () => hidden,
    requestAnimationFrame: (callback) => void frames.push(callback),
    setTimeout: (callback, ms) => (timers.set(next, { callback, ms }), next++),
    clearTimeout: (timer) => void timers.delete(timer as number),
  };
  return { host, frames, timers, setHidden: (value: boolean) => void (hidden = value) };
}

describe('requestFrameOrTimeout', () => {
  it('runs once, on the frame, when the page is visible (the timer is cleared)', () => {
    const { host, frames, timers } = scriptedHost(false);
    let runs = 0;
    requestFrameOrTimeout(() => runs++, host);
    expect([...timers.values()].map((t) => t.ms)).toEqual([FRAME_FALLBACK_MS]);
    frames.shift()!();
    expect(runs).toBe(1);
    expect(timers.size).toBe(0);
  });

  it('runs on its short timer while the page is hidden, asking for no frame (none comes until the page shows)', () => {
    const { host, frames, timers } = scriptedHost(true);
    let runs = 0;
    requestFrameOrTimeout(() => runs++, host);
    expect(frames).toHaveLength(0);
    const [timer] = [...timers.values()];
    expect(timer!.ms).toBe(HIDDEN_FRAME_MS);
    timer!.callback();
    expect(runs).toBe(1);
  });

  it('does not wait for a frame that stopped coming because the page was hidden after it was asked for', () => {
    const { host, timers } = scriptedHost(false);
    let runs = 0;
    requestFrameOrTimeout(() => runs++, host);
    [...timers.values()][0]!.callback(); // hidden meanwhile: the frame never comes, the fallback runs it
    expect(runs).toBe(1);
  });
});
