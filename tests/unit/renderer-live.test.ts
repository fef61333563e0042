// The schedule of store/use-live.ts's loads (the audiences' and tracking plans' live data), without
// React: one load at a time, a request meanwhile loads again once the answer is in, every answer
// is delivered, the wait between loads grows with how long the last took, urgent requests skip it.
import { describe, expect, it } from 'vitest';
import { LiveLoader, type Loaded } from '../../renderer/src/store/use-live.ts';

function harness(everyMs = 100) {
  let now = 0;
  const timers: { at: number; callback: () => void; id: number }[] = [];
  let nextId = 0;
  const pending: ((answer: Loaded<number>) => void)[] = [];
  const answers: Loaded<number>[] = [];
  let loads = 0;
  const loader = new LiveLoader<number>({
    load: () => {
      loads++;
      return new Promise((resolve) => pending.push(resolve));
    },
    onAnswer: (answer) => answers.push(answer),
    everyMs,
    now: () => now,
    setTimer: (callback, ms) => {
      const id = ++nextId;
      timers.push({ at: now + ms, callback, id });
      return id;
    },
    clearTimer: (id) => {
      const index = timers.findIndex((t) => t.id === id);
      if (index >= 0) timers.splice(index, 1);
    },
  });
  const flush = () => new Promise((resolve) => setTimeout(resolve, 0));
  return {
    loader,
    answers,
    loads: () => loads,
    inFlight: () => pending.length,
    timers,
    /** Moves the clock on, firing timers due. */
    advance(ms: number) {
      now += ms;
      for (const t of [...timers].sort((a, b) => a.at - b.at)) {
        if (t.at > now) continue;
        timers.splice(timers.indexOf(t), 1);
        t.callback();
      }
    },
    /** Answers the oldest load in flight. */
    async answer(value: number) {
      pending.shift()!({ ok: true, value });
      await flush();
    },
  };
}

describe('live data loads', () => {
  it('loads one at a time: requests meanwhile make one more load once the answer is in, and every answer is shown', async () => {
    const h = harness(100);
    h.loader.request(true);
    expect(h.loads()).toBe(1);
    // A slow core: the timer would have fired many times; nothing more is asked while the load is out.
    for (let i = 0; i < 10; i++) {
      h.loader.request();
      h.advance(100);
    }
    expect(h.loads()).toBe(1);
    await h.answer(1); // it took 1,000 ms
    expect(h.answers).toEqual([{ ok: true, value: 1 }]);
    // Dirty: loads again after everyMs plus as long as the last load took.
    expect(h.loads()).toBe(1);
    expect(h.loader.delay).toBe(1100);
    h.advance(1099);
    expect(h.loads()).toBe(1);
    h.advance(1);
    expect(h.loads()).toBe(2);
    await h.answer(2);
    expect(h.answers.map((a) => a.ok && a.value)).toEqual([1, 2]);
    // Nothing asked meanwhile: no more loads.
    h.advance(10_000);
    expect(h.loads()).toBe(2);
  });

  it('makes one load of a burst of requests, after the wait', () => {
    const h = harness(300);
    for (let i = 0; i < 50; i++) h.loader.request();
    expect(h.loads()).toBe(0);
    expect(h.timers).toHaveLength(1);
    h.advance(300);
    expect(h.loads()).toBe(1);
  });

  it('starts an urgent load at once, or as soon as the one in flight answers', async () => {
    const h = harness(300);
    h.loader.request();
    h.loader.request(true); // a reconnect: no wait, and the timer is dropped
    expect(h.loads()).toBe(1);
    expect(h.timers).toHaveLength(0);
    h.loader.request(true); // another key while loading
    expect(h.loads()).toBe(1);
    await h.answer(1);
    expect(h.loads()).toBe(2);
    expect(h.inFlight()).toBe(1);
  });

  it('says a load that threw as an error, and goes on', async () => {
    const answers: Loaded<number>[] = [];
    let calls = 0;
    const loader = new LiveLoader<number>({
      load: async () => {
        calls++;
        if (calls === 1) throw new Error('socket closed');
        return { ok: true, value: calls };
      },
      onAnswer: (a) => answers.push(a),
      everyMs: 0,
    });
    loader.request(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    loader.request(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(answers).toEqual([{ ok: false, error: { message: 'socket closed' } }, { ok: true, value: 2 }]);
  });

  it('delivers nothing and loads nothing more once disposed', async () => {
    const h = harness(100);
    h.loader.request(true);
    h.loader.request();
    h.loader.dispose();
    await h.answer(1);
    expect(h.answers).toEqual([]);
    h.advance(10_000);
    h.loader.request(true);
    expect(h.loads()).toBe(1);
  });
});
