// When the writer thread indexes for search (writer/index-scheduler.ts): slice after slice until
// nothing is left, never while a group commit waits, a failure logged once and retried.
import { expect, it } from 'vitest';
import { IndexScheduler, SLICE } from '../../electron/core/writer/index-scheduler.ts';

const settle = (ms = 60) => new Promise((r) => setTimeout(r, ms));

it('indexes slice after slice until nothing is left, then waits for the next commit', async () => {
  const limits: number[] = [];
  let left = 3;
  const scheduler = new IndexScheduler((limit) => (limits.push(limit), --left > 0), () => false);
  scheduler.committed();
  await settle();
  expect(limits).toEqual([SLICE, SLICE, SLICE]);
  await settle();
  expect(limits).toHaveLength(3); // nothing left: no more slices until something is committed
  left = 1;
  scheduler.committed();
  await settle();
  expect(limits).toHaveLength(4);
  scheduler.stop();
});

it('waits while a group commit is pending, and stops for good', async () => {
  let busy = true;
  let steps = 0;
  const scheduler = new IndexScheduler(() => (steps++, true), () => busy);
  scheduler.committed();
  await settle();
  expect(steps).toBe(0);
  busy = false;
  await settle();
  expect(steps).toBeGreaterThan(0);
  scheduler.stop();
  const stoppedAt = steps;
  scheduler.committed();
  await settle();
  expect(steps).toBe(stoppedAt);
});

it('logs a failing slice once and retries later, not in a loop', async () => {
  const lines: string[] = [];
  let steps = 0;
  const scheduler = new IndexScheduler(() => {
    steps++;
    throw new Error('database or disk is full');
  }, () => false, (line) => lines.push(line));
  scheduler.committed();
  await settle(200);
  expect(steps).toBe(1);
  expect(lines).toEqual(['sluice: indexing for search failed (database or disk is full); retrying every 10 s']);
  scheduler.stop();
});
