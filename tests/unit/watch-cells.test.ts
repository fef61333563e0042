// The transform watchdog reads when a call's code began from an Int32 cell of ms since the worker's epoch
// (transforms/worker-pool.ts): the cell wraps after 24.8 days of one worker's life, and the elapsed time
// must not (before 2026-12-01 a wrapped cell read as weeks, and the running call was stopped).
import { describe, expect, it } from 'vitest';
import { elapsedSince } from '../../electron/core/transforms/worker-pool.ts';

/** What the worker writes: ms since the epoch, as an Int32Array element keeps it. */
const cell = (ms: number) => Int32Array.of(ms)[0]!;

describe('the watchdog\'s elapsed time', () => {
  const epoch = Date.parse('2026-01-01T00:00:00.000Z');
  it('is the time since the cell was written, early in a worker\'s life', () => {
    expect(elapsedSince(epoch, cell(5_000), epoch + 5_250)).toBe(250);
  });

  it('stays right once the cell has wrapped (a worker 30 days old), and across the wrap', () => {
    const day = 86_400_000;
    const started = 30 * day;
    expect(cell(started)).toBeLessThan(0); // wrapped
    expect(elapsedSince(epoch, cell(started), epoch + started + 1_000)).toBe(1_000);
    const justBefore = 2 ** 31 - 100;
    expect(elapsedSince(epoch, cell(justBefore), epoch + justBefore + 300)).toBe(300);
  });
});
