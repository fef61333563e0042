// The latency benchmark's figures and how they are shown (latency.bench.ts): each measure's
// p50/p95/p99, the ratios of one relay's over another's, and the table printed per scenario.
import type { CpuSplit } from './cpu-split.ts';

export const round1 = (n: number) => Math.round(n * 10) / 10;

/** p50/p95/p99 over every sample, a timed-out one counted as infinitely slow (null when a percentile falls on one). */
export function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => {
    const v = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
    return v === undefined || !Number.isFinite(v) ? null : round1(v);
  };
  return { n: values.length, timeouts: values.filter((v) => !Number.isFinite(v)).length, p50: at(50), p95: at(95), p99: at(99) };
}
type Summary = ReturnType<typeof summary>;

export const RATIO_KEYS = ['track', 'webhook', 'forwardFlush0', 'forwardFlushDefault', 'waitHttp', 'waitTesting'] as const;
/** What the control (no fan-out) measures. */
const CONTROL_KEYS = ['track', 'waitHttp', 'waitTesting'] as const;
/** `over` ÷ `under` per measure, at p50, p95 and p99. */
export function ratios(over: Record<string, unknown>, under: Record<string, unknown>) {
  // Two significant digits: a ratio far below 1 (Sluice ÷ a floor whose deliveries back up) is not rounded to 0.
  const r = (a: number | null, b: number | null) => (a === null ? 'timeout' : b === null || b === 0 ? null : Number((a / b).toPrecision(2)));
  return Object.fromEntries(RATIO_KEYS.map((k) => {
    const s = over[k] as Summary;
    const f = under[k] as Summary;
    return [k, { p50: r(s.p50, f.p50), p95: r(s.p95, f.p95), p99: r(s.p99, f.p99) }];
  }));
}

const show = (s: Summary) => `${s.p50 ?? 'timeout'} / ${s.p95 ?? 'timeout'} / ${s.p99 ?? 'timeout'} ms${s.timeouts ? ` (${s.timeouts}/${s.n} timed out)` : ''}`;

/** What one relay or floor measured in a scenario (latency.bench.ts's measure()), as far as the table shows it. */
type Measured = Record<(typeof RATIO_KEYS)[number], Summary> & {
  storedAtStart: number;
  storedAtEnd: number;
  reads: Record<string, number> | null;
  drain: { backlogAtEnd: number; drainedMs: number; left: number; failedAttempts: number | null };
  background: {
    perSecond: number;
    perStream: Record<string, number>;
    cpuMicrosPerEvent: Record<string, number>;
    cpuSplits: Record<string, CpuSplit | null>;
    skipped: number | undefined;
    failed: number | undefined;
    unanswered: number | undefined;
  } | null;
};

/** Per stream: this process's CPU per event by thread kind, and how busy the machine was (cpu-split.ts). */
function splits(all: Record<string, CpuSplit | null>): string {
  const known = Object.values(all).filter((s): s is CpuSplit => s !== null);
  if (known.length === 0) return '';
  const list = (pick: (s: CpuSplit) => number) => known.map(pick).join(', ');
  return `; of which main thread ${list((s) => s.main)}, worker threads ${list((s) => s.workers)}, V8's helpers ${list((s) => s.v8Helpers)} µs; machine busy ${list((s) => Math.round(s.machineBusy * 100))} %`;
}

/** One scenario's table: each measure for Sluice beside the floors, the HTTP API's reads, then each one's backlog and load. */
export function printScenario(
  name: string,
  { sluice, floor, recordingFloor, schemaFloor }: { sluice: Measured; floor: Measured; recordingFloor: Measured | null; schemaFloor: Measured | null },
  fanOut: boolean,
) {
  console.log(`  ${name} (Sluice ${sluice.storedAtStart.toLocaleString('en-US')} → ${sluice.storedAtEnd.toLocaleString('en-US')} stored)`);
  console.log(`    ${'p50 / p95 / p99'.padEnd(20)} ${'Sluice'.padEnd(34)} ${'floor'.padEnd(34)} ${recordingFloor ? 'recording floor'.padEnd(34) : ''}${schemaFloor ? 'schema floor' : ''}`);
  for (const k of fanOut ? RATIO_KEYS : CONTROL_KEYS) {
    console.log(`    ${k.padEnd(20)} ${show(sluice[k]).padEnd(34)} ${show(floor[k]).padEnd(34)} ${recordingFloor ? show(recordingFloor[k]).padEnd(34) : ''}${schemaFloor ? show(schemaFloor[k]) : ''}`);
  }
  if (sluice.reads) console.log(`    HTTP API reads (ms, median of 5): ${JSON.stringify(sluice.reads)}`);
  const targets = { Sluice: sluice, floor, ...(recordingFloor ? { 'recording floor': recordingFloor } : {}), ...(schemaFloor ? { 'schema floor': schemaFloor } : {}) };
  for (const [who, m] of Object.entries(targets)) {
    const { backlogAtEnd, drainedMs, left, failedAttempts } = m.drain;
    const bg = m.background;
    const load = bg
      ? `; load took ${bg.perSecond}/s (fanOut, waitHttp, waitTesting: ${Object.values(bg.perStream).join(', ')}/s; this process's CPU ${Object.values(bg.cpuMicrosPerEvent).join(', ')} µs per event), ` +
        `${bg.skipped} skipped, ${bg.failed} failed, ${bg.unanswered} unanswered${splits(bg.cpuSplits)}`
      : '';
    console.log(`    ${`${who}:`.padEnd(17)} backlog at the end ${backlogAtEnd} (${left} left after ${drainedMs} ms; failed attempts ${failedAttempts ?? '-'})${load}`);
  }
}
