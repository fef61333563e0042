// Where `npm run bench` saves a run's figures: a scale run of other sizes than the defaults must not
// overwrite bench-results/scale.json (the 10 million messages' figures the README quotes).
import { expect, it } from 'vitest';
import { resultsName } from '../bench/results-name.ts';

it('saves a scale run of the default sizes as scale.json, and one of other sizes under a name of its own, saying so', () => {
  expect(resultsName('scale', {})).toEqual({ name: 'scale', note: null });
  expect(resultsName('scale', { BENCH_SCALE_MESSAGES: '10000000', BENCH_SCALE_USERS: '1000000' })).toEqual({ name: 'scale', note: null });
  const small = resultsName('scale', { BENCH_SCALE_MESSAGES: '200000', BENCH_SCALE_USERS: '5000' });
  expect(small).toEqual({
    name: 'scale-200000-5000users',
    note:
      'scale: 200,000 messages over 5,000 users (BENCH_SCALE_*), not the default 10,000,000 over 1,000,000: ' +
      'the figures go to bench-results/scale-200000-5000users.json; scale.json (the figures the README quotes) stays as it is',
  });
  expect(resultsName('scale', { BENCH_SCALE_MESSAGES: '200000' }).name).toBe('scale-200000');
  expect(resultsName('scale', { BENCH_SCALE_USERS: '5000' }).name).toBe('scale-10000000-5000users');
  // The other benchmarks keep their names whatever the scale sizes are.
  expect(resultsName('search', { BENCH_SCALE_MESSAGES: '200000' })).toEqual({ name: 'search', note: null });
});

it('saves a latency run of some scenarios only, or the control without fan-out, under a name of its own, so latency.json keeps the whole run', () => {
  expect(resultsName('latency', {})).toEqual({ name: 'latency', note: null });
  expect(resultsName('latency', { BENCH_LATENCY_FANOUT: '1' })).toEqual({ name: 'latency', note: null });
  expect(resultsName('latency', { BENCH_LATENCY_SCENARIOS: 'small-loaded' }).name).toBe('latency-small-loaded');
  expect(resultsName('latency', { BENCH_LATENCY_SCENARIOS: 'small-loaded, large-idle' }).name).toBe('latency-large-idle-small-loaded');
  const control = resultsName('latency', { BENCH_LATENCY_FANOUT: '0', BENCH_LATENCY_SCENARIOS: 'small-loaded' });
  expect(control.name).toBe('latency-no-fan-out-small-loaded');
  expect(control.note).toMatch(/bench-results\/latency-no-fan-out-small-loaded\.json; latency\.json .* stays as it is/);
});
