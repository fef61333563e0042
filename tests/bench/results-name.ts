// Which file of bench-results/ a run's figures go to. The scale benchmark's defaults (10 million
// messages over 1 million users) are the figures the README quotes, in scale.json; a run of other
// sizes (BENCH_SCALE_MESSAGES, BENCH_SCALE_USERS: a quick check) goes to a file named for its sizes,
// so that it does not overwrite them. So does a latency run of some scenarios only, or of the control
// without fan-out (BENCH_LATENCY_SCENARIOS, BENCH_LATENCY_FANOUT=0): latency.json keeps the whole run's.

const SCALE_DEFAULTS = { messages: 10_000_000, users: 1_000_000 };

/** The scale benchmark's sizes, from the environment (the defaults when unset). */
export function scaleSizes(env: NodeJS.ProcessEnv = process.env): { messages: number; users: number } {
  return {
    messages: Number(env.BENCH_SCALE_MESSAGES ?? SCALE_DEFAULTS.messages),
    users: Number(env.BENCH_SCALE_USERS ?? SCALE_DEFAULTS.users),
  };
}

/** `scale` for the default sizes; else `scale-<messages>`, with `-<users>users` when the users differ. */
function scaleResultsName(sizes = scaleSizes()): string {
  if (sizes.messages === SCALE_DEFAULTS.messages && sizes.users === SCALE_DEFAULTS.users) return 'scale';
  return `scale-${sizes.messages}${sizes.users === SCALE_DEFAULTS.users ? '' : `-${sizes.users}users`}`;
}

/**
 * The file name (without .json) for a benchmark's figures — its own name but for a scale run of other
 * sizes — and, when it is not the benchmark's own, the line that says so before the run.
 */
export function resultsName(bench: string, env: NodeJS.ProcessEnv = process.env): { name: string; note: string | null } {
  if (bench === 'latency') return latencyResultsName(env);
  if (bench !== 'scale') return { name: bench, note: null };
  const sizes = scaleSizes(env);
  const name = scaleResultsName(sizes);
  if (name === 'scale') return { name, note: null };
  const count = (n: number) => n.toLocaleString('en-US');
  return {
    name,
    note:
      `scale: ${count(sizes.messages)} messages over ${count(sizes.users)} users (BENCH_SCALE_*), not the default ` +
      `${count(SCALE_DEFAULTS.messages)} over ${count(SCALE_DEFAULTS.users)}: the figures go to bench-results/${name}.json; ` +
      'scale.json (the figures the README quotes) stays as it is',
  };
}

/** `latency` for the whole run; `latency-<scenarios>` for some only, `latency-no-fan-out[-…]` for the control. */
function latencyResultsName(env: NodeJS.ProcessEnv): { name: string; note: string | null } {
  const scenarios = (env.BENCH_LATENCY_SCENARIOS ?? '').split(',').map((s) => s.trim()).filter(Boolean).sort();
  const parts = [...(env.BENCH_LATENCY_FANOUT !== undefined && Number(env.BENCH_LATENCY_FANOUT) === 0 ? ['no-fan-out'] : []), ...scenarios];
  if (parts.length === 0) return { name: 'latency', note: null };
  const name = `latency-${parts.join('-')}`;
  return { name, note: `latency: ${parts.join(', ')} only: the figures go to bench-results/${name}.json; latency.json (the whole run's, which the docs quote) stays as it is` };
}
