// When the writer thread indexes for search (writer/index-scheduler.ts): slice after slice until
// nothing is left, never while a group commit waits, a failure logged once and retried; under load,
// slices kept as short as LOADED_SLICE_MS; new messages gathered into one slice (INDEX_BATCH of them, or
// the first INDEX_DELAY_MS old), not a slice per commit; the indexes merged in steps of their own, after
// the slices and at their pace.
import { expect, it, vi } from 'vitest';
import { FIRST_LOADED_SLICE, INDEX_BATCH, INDEX_DELAY_MS, IndexScheduler, LOADED_SLICE_MS, MERGE_AFTER, MERGE_PAGES, MERGES_PER_SLICE, MIN_SLICE, SLICE } from '../../electron/core/writer/index-scheduler.ts';

/** Runs `test` on vitest's fake timers from 0 (the scheduler's clock: Date.now); real timers after. */
function onFakeTimers(test: () => void): void {
  vi.useFakeTimers({ now: 0 });
  try {
    test();
  } finally {
    vi.useRealTimers();
  }
}
/** Messages waiting to be indexed: a slice takes up to its limit of them. */
function unindexedMessages(left: number) {
  const messages = {
    left,
    take(limit: number): number {
      const n = Math.min(limit, messages.left);
      messages.left -= n;
      return n;
    },
  };
  return messages;
}
/** An indexer whose indexes never need merging. */
const slicesOnly = (step: (limit: number) => number) => ({ step, merge: () => false });

it('indexes slice after slice until nothing is left, then waits for the next commit', () =>
  onFakeTimers(() => {
    const limits: number[] = [];
    let left = 3;
    // No commit yet: the thread is idle (whole slices, no rest); slices take no time on this clock.
    const scheduler = new IndexScheduler(slicesOnly((limit) => (limits.push(limit), --left > 0 ? limit : 0)), () => false, undefined, () => Date.now());
    scheduler.backlog();
    vi.advanceTimersByTime(10);
    expect(limits).toEqual([SLICE, SLICE, SLICE]);
    vi.advanceTimersByTime(60_000);
    expect(limits).toHaveLength(3); // nothing left: no more slices until something is committed
    left = 1;
    scheduler.committed(INDEX_BATCH);
    vi.advanceTimersByTime(10);
    expect(limits).toEqual([SLICE, SLICE, SLICE, FIRST_LOADED_SLICE]); // a commit just now: a burst's first slice
    scheduler.stop();
  }));

it('under load keeps each slice near LOADED_SLICE_MS, and goes back to whole slices once the commits stop', () =>
  onFakeTimers(() => {
    // Each message takes 0.06 ms to index: a whole slice would take 30 ms, in the way of every request
    // that reaches the thread meanwhile. A large backlog: every slice is as long as its limit lets it be
    // (the clock moves on during it, no timer fires meanwhile).
    const PER_MESSAGE_MS = 0.06;
    const limits: number[] = [];
    const scheduler = new IndexScheduler(slicesOnly((limit) => {
      limits.push(limit);
      vi.setSystemTime(Date.now() + limit * PER_MESSAGE_MS);
      return limit;
    }), () => false, undefined, () => Date.now());
    // Commits keep coming: the thread is under load.
    const commits = setInterval(() => scheduler.committed(INDEX_BATCH), 2);
    vi.advanceTimersByTime(400);
    clearInterval(commits);
    const steady = Math.round(LOADED_SLICE_MS / PER_MESSAGE_MS);
    expect(steady).toBeGreaterThan(MIN_SLICE);
    expect(limits.length).toBeGreaterThan(3);
    expect(limits[0]).toBe(FIRST_LOADED_SLICE); // the first loaded slice is small until its pace is known
    expect(limits.slice(1)).toEqual(limits.slice(1).map(() => steady));
    // A slice of 3 ms, then a rest of 27: about one slice every 30 ms.
    expect(limits.length).toBeGreaterThan(400 / 30 - 2);
    expect(limits.length).toBeLessThan(400 / 30 + 2);
    // The commits stopped: once the thread has been quiet a while, whole slices again (and no rests between them).
    const before = limits.length;
    vi.setSystemTime(Date.now() + 1_000);
    vi.advanceTimersByTime(100);
    expect(limits.length).toBeGreaterThan(before + 3);
    expect(limits.slice(before + 1)).toEqual(limits.slice(before + 1).map(() => SLICE));
    // Commits again: the burst's first slice is small again (the pace may have changed while idle), then 3 ms' worth.
    const idle = limits.length;
    const again = setInterval(() => scheduler.committed(INDEX_BATCH), 2);
    vi.advanceTimersByTime(200);
    clearInterval(again);
    scheduler.stop();
    // (Whole slices ran on until the first commit came.)
    const first = limits.findIndex((limit, i) => i >= idle && limit !== SLICE);
    expect(first).toBeGreaterThan(0);
    expect(limits[first]).toBe(FIRST_LOADED_SLICE);
    expect(limits.slice(first + 1).length).toBeGreaterThan(1);
    expect(limits.slice(first + 1)).toEqual(limits.slice(first + 1).map(() => steady));
  }));

it('waits while a group commit is pending, and stops for good', () =>
  onFakeTimers(() => {
    let busy = true;
    let steps = 0;
    const scheduler = new IndexScheduler(slicesOnly(() => (steps++, 1)), () => busy, undefined, () => Date.now());
    scheduler.committed(INDEX_BATCH);
    vi.advanceTimersByTime(1_000);
    expect(steps).toBe(0);
    busy = false;
    vi.advanceTimersByTime(10);
    expect(steps).toBe(1); // the commit's messages, in one slice (short of its limit: nothing left)
    scheduler.stop();
    scheduler.committed(INDEX_BATCH);
    vi.advanceTimersByTime(60_000);
    expect(steps).toBe(1);
  }));

it('logs a failing slice once and retries later, not in a loop', () =>
  onFakeTimers(() => {
    const lines: string[] = [];
    let steps = 0;
    const scheduler = new IndexScheduler(slicesOnly(() => {
      steps++;
      throw new Error('database or disk is full');
    }), () => false, (line) => lines.push(line), () => Date.now());
    scheduler.committed(INDEX_BATCH);
    vi.advanceTimersByTime(100);
    scheduler.committed(INDEX_BATCH); // commits meanwhile do not bring the next try forward
    vi.advanceTimersByTime(9_000);
    expect(steps).toBe(1);
    vi.advanceTimersByTime(1_000); // 10 s after the failure: one more try, failing again, logged once
    expect(steps).toBe(2);
    expect(lines).toEqual(['sluice: indexing for search failed (database or disk is full); retrying every 10 s']);
    scheduler.stop();
  }));

it('starts a slice once INDEX_BATCH new messages wait, or once the first has waited INDEX_DELAY_MS: not one per commit', () =>
  // The scheduler's clock is the fake timers' (slices take no time on it).
  onFakeTimers(() => {
    const pending = unindexedMessages(0);
    const slices: number[] = [];
    const scheduler = new IndexScheduler(slicesOnly((limit) => {
      const n = pending.take(limit);
      slices.push(n);
      return n;
    }), () => false, undefined, () => Date.now());
    const tick = (ms: number) => vi.advanceTimersByTime(ms);
    const commit = (messages: number) => {
      pending.left += messages;
      scheduler.committed(messages);
    };
    // A test sending one message every 20 ms, and a results commit between them: no slice per commit.
    for (let t = 20; t < INDEX_DELAY_MS; t += 20) {
      commit(1);
      scheduler.committed(0);
      tick(20);
    }
    expect(slices).toEqual([]);
    commit(1);
    tick(20); // the first message has waited INDEX_DELAY_MS: all of them go in one slice
    expect(slices).toEqual([INDEX_DELAY_MS / 20]);
    expect(pending.left).toBe(0);
    // Results alone (no message) start no slice, even once INDEX_DELAY_MS has passed.
    scheduler.committed(0);
    tick(INDEX_DELAY_MS * 2);
    expect(slices).toHaveLength(1);
    // A burst of INDEX_BATCH starts at once (the thread is under load: a first slice of FIRST_LOADED_SLICE,
    // then the rest, this clock's slices taking no time).
    commit(INDEX_BATCH - 1);
    tick(1);
    expect(slices).toHaveLength(1);
    commit(1);
    tick(1);
    expect(slices.slice(1)).toEqual([FIRST_LOADED_SLICE, INDEX_BATCH - FIRST_LOADED_SLICE]);
    expect(pending.left).toBe(0);
    // And one message after a long quiet waits its INDEX_DELAY_MS too.
    const before = slices.length;
    commit(1);
    tick(INDEX_DELAY_MS - 1);
    expect(slices).toHaveLength(before);
    tick(1);
    expect(slices).toEqual([...slices.slice(0, before), 1]);
    scheduler.stop();
  }));

it('under load, new commits do not cut short the rest after a slice (indexing keeps to a tenth of the thread)', () =>
  onFakeTimers(() => {
    const slicesAt: number[] = [];
    // Each slice takes 3 ms (the system time moves on, no timer fires meanwhile) and leaves more to do:
    // a rest of 27 ms follows it.
    const scheduler = new IndexScheduler(slicesOnly((limit) => {
      slicesAt.push(Date.now());
      vi.setSystemTime(Date.now() + 3);
      return limit;
    }), () => false, undefined, () => Date.now());
    scheduler.committed(INDEX_BATCH);
    vi.advanceTimersByTime(1);
    expect(slicesAt).toEqual([0]);
    // Batches keep arriving during the rest (3 + 27 ms): none of them starts a slice before it ends.
    for (let i = 0; i < 25; i++) {
      scheduler.committed(INDEX_BATCH);
      vi.advanceTimersByTime(1);
    }
    expect(slicesAt).toEqual([0]);
    vi.advanceTimersByTime(5);
    expect(slicesAt).toEqual([0, 30]);
    scheduler.stop();
  }));

it('merges the indexes in steps after the slices that added segments, until nothing is left to merge', () =>
  onFakeTimers(() => {
    const log: string[] = [];
    const pending = unindexedMessages(0);
    let owed = 0;
    const scheduler = new IndexScheduler({
      step(limit) {
        const n = pending.take(limit);
        log.push(`slice ${n}`);
        if (n > 0) owed = 3; // new segments: three steps of merging
        return n;
      },
      merge(pages) {
        log.push(`merge ${pages}`);
        return --owed > 0;
      },
    }, () => false, undefined, () => Date.now());
    pending.left = INDEX_BATCH;
    scheduler.committed(INDEX_BATCH);
    vi.advanceTimersByTime(10);
    // Slices take no time on this clock: no rest. A burst's first slice is FIRST_LOADED_SLICE, the next takes the rest.
    expect(log).toEqual([`slice ${FIRST_LOADED_SLICE}`, `slice ${INDEX_BATCH - FIRST_LOADED_SLICE}`, ...Array(3).fill(`merge ${MERGE_PAGES}`)]);
    // Nothing left to merge and nothing to index: no more steps.
    vi.advanceTimersByTime(60_000);
    expect(log).toHaveLength(5);
    // A commit that stored no message owes no merge.
    scheduler.committed(0);
    vi.advanceTimersByTime(60_000);
    expect(log).toHaveLength(5);
    scheduler.stop();
  }));

it('small slices start no merge until MERGE_AFTER messages were indexed since the merges last caught up', () =>
  onFakeTimers(() => {
    const slices: number[] = [];
    let merges = 0;
    let owed = 0;
    const pending = unindexedMessages(0);
    const scheduler = new IndexScheduler({
      step(limit) {
        const n = pending.take(limit);
        slices.push(n);
        owed = 2;
        return n;
      },
      merge() {
        merges++;
        return --owed > 0;
      },
    }, () => false, undefined, () => Date.now());
    // A trickle: a few messages a second, each second's in a slice of its own.
    const PER = MERGE_AFTER / 4;
    const second = () => {
      pending.left += PER;
      scheduler.committed(PER);
      vi.advanceTimersByTime(INDEX_DELAY_MS + 10); // the slice, and any merge steps after it
    };
    for (let i = 0; i < 3; i++) second();
    expect(slices).toEqual([PER, PER, PER]);
    expect(merges).toBe(0);
    second(); // MERGE_AFTER indexed: the merges run until they report nothing left
    expect(merges).toBe(2);
    for (let i = 0; i < 3; i++) second(); // counted again from there
    expect(merges).toBe(2);
    second();
    expect(merges).toBe(4);
    scheduler.stop();
  }));

it('under load, merge steps keep the slices\' pace, and a slice owed waits for MERGES_PER_SLICE steps at most', () =>
  onFakeTimers(() => {
    const log: [string, number][] = [];
    const pending = unindexedMessages(0);
    // Each merge step takes 3 ms and there is always more to merge: a rest of 27 ms follows each.
    const scheduler = new IndexScheduler({
      step(limit) {
        const n = pending.take(limit);
        log.push(['slice', Date.now()]);
        return n;
      },
      merge() {
        log.push(['merge', Date.now()]);
        vi.setSystemTime(Date.now() + 3);
        return true;
      },
    }, () => false, undefined, () => Date.now());
    const commit = (messages: number) => {
      pending.left += messages;
      scheduler.committed(messages);
    };
    commit(INDEX_BATCH);
    vi.advanceTimersByTime(10); // two slices (taking no time), then the first merge step
    expect(log.map(([what]) => what)).toEqual(['slice', 'slice', 'merge']);
    const first = log[2]![1];
    // Commits keep coming every 5 ms (one message each: no slice is due before INDEX_DELAY_MS).
    while (Date.now() < first + 100) {
      commit(1);
      vi.advanceTimersByTime(5);
    }
    // A step every 30 ms: 3 ms of merging, then the rest (commits during it do not cut it short).
    expect(log.slice(2)).toEqual([0, 30, 60, 90].map((t) => ['merge', first + t]));
    // INDEX_BATCH wait now: the slice goes at the end of the rest, before the next merge step.
    commit(INDEX_BATCH);
    vi.advanceTimersByTime(first + 120 - Date.now());
    expect(log.slice(6)).toEqual([['slice', first + 120]]);
    // The slice took no time (no rest after it): merging goes on at once.
    vi.advanceTimersByTime(2);
    expect(log.slice(7).map(([what]) => what)).toEqual(['merge']);
    scheduler.stop();
  }));

it('logs a failing merge step once and retries it later, not in a loop, while slices go on', () =>
  onFakeTimers(() => {
    const lines: string[] = [];
    let merges = 0;
    let slices = 0;
    let failing = true;
    const pending = unindexedMessages(0);
    const scheduler = new IndexScheduler({
      step(limit) {
        slices++;
        const n = pending.take(limit);
        return n;
      },
      merge() {
        merges++;
        if (failing) throw new Error('database or disk is full');
        return false;
      },
    }, () => false, (line) => lines.push(line), () => Date.now());
    scheduler.committed(0, MERGE_AFTER); // a prune: merges owed
    vi.advanceTimersByTime(10);
    expect(merges).toBe(1);
    // New messages meanwhile are indexed as usual (and owe merges, which wait for the retry).
    pending.left = INDEX_BATCH;
    const slicesBefore = slices;
    scheduler.committed(INDEX_BATCH);
    vi.advanceTimersByTime(9_000);
    expect(slices).toBeGreaterThan(slicesBefore);
    expect(pending.left).toBe(0);
    expect(merges).toBe(1);
    failing = false;
    vi.advanceTimersByTime(1_001);
    expect(merges).toBe(2);
    expect(lines).toEqual(['sluice: merging the search indexes failed (database or disk is full); retrying every 10 s', 'sluice: merging the search indexes resumed']);
    scheduler.stop();
  }));

it('while a backlog is indexed, merge steps go between its slices (at most MERGES_PER_SLICE in a row), and the slices keep their own pace', () =>
  onFakeTimers(() => {
    const log: string[] = [];
    const pending = unindexedMessages(100_000);
    const PER_MESSAGE_MS = 0.06;
    const scheduler = new IndexScheduler({
      step(limit) {
        const n = pending.take(limit);
        log.push(`slice ${n}`);
        vi.setSystemTime(Date.now() + n * PER_MESSAGE_MS);
        return n;
      },
      merge() {
        log.push('merge');
        vi.setSystemTime(Date.now() + 10); // merge steps far longer than the slices: the slices' pace is their own
        return true; // always more to merge
      },
    }, () => false, undefined, () => Date.now());
    scheduler.backlog();
    // Commits keep coming (no message stored: results): the thread is under load, everything rests 9×.
    const commits = setInterval(() => scheduler.committed(0), 2);
    vi.advanceTimersByTime(3_000);
    clearInterval(commits);
    scheduler.stop();
    const kinds = log.map((entry) => (entry === 'merge' ? 'm' : 's')).join('');
    expect(kinds).toMatch(/^s(m{4}s)+m*$/); // MERGES_PER_SLICE merge steps between slices (none owed before the first)
    expect(MERGES_PER_SLICE).toBe(4);
    // The slices' limit follows their own pace (3 ms' worth: 50 of 0.06 ms), not the merge steps'.
    const sizes = log.filter((entry) => entry !== 'merge').map((entry) => Number(entry.slice(6)));
    // (The first ran before any commit: a whole slice; the next is the burst's first.)
    expect(sizes.slice(0, 2)).toEqual([SLICE, FIRST_LOADED_SLICE]);
    expect(sizes.slice(2)).toEqual(sizes.slice(2).map(() => Math.round(LOADED_SLICE_MS / PER_MESSAGE_MS)));
    expect(sizes.length).toBeGreaterThan(4);
  }));

it('no merge step while a group commit waits; removed messages owe merges as indexed ones do', () =>
  onFakeTimers(() => {
    let busy = true;
    let merges = 0;
    let owed = 0;
    const scheduler = new IndexScheduler({ step: () => 0, merge: () => (merges++, --owed > 0) }, () => busy, undefined, () => Date.now());
    // A prune removed MERGE_AFTER indexed messages: a segment of 'delete' entries in each index.
    owed = 2;
    scheduler.committed(0, MERGE_AFTER);
    vi.advanceTimersByTime(1_000);
    expect(merges).toBe(0);
    busy = false;
    vi.advanceTimersByTime(10);
    expect(merges).toBe(2);
    // Fewer removed than MERGE_AFTER since the merges caught up: none owed yet.
    scheduler.committed(0, MERGE_AFTER - 1);
    vi.advanceTimersByTime(1_000);
    expect(merges).toBe(2);
    owed = 1;
    scheduler.committed(0, 1);
    vi.advanceTimersByTime(10);
    expect(merges).toBe(3);
    scheduler.stop();
  }));
