// What the long tasks of a UI benchmark's scroll are made of (a diagnostic, not a benchmark):
//   BENCH_UI_TRACE=/tmp/ui-trace.json npm run bench -- ui
//   node tests/bench/ui-trace-summary.ts /tmp/ui-trace.json [thresholdMs=50]
// Reads the Chromium trace for the renderer's main-thread tasks longer than the threshold and splits
// their time by trace event (script, style, layout, GC, ...), then the CPU profile's samples inside
// them by JS function (self and total), so a long task can be pinned on the code that made it.
import fs from 'node:fs';

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: any;
}

const [file, thresholdArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tests/bench/ui-trace-summary.ts <trace.json> [thresholdMs]');
  process.exit(2);
}
const threshold = Number(thresholdArg ?? 50) * 1000;
const raw = JSON.parse(fs.readFileSync(file, 'utf8'));
const events: TraceEvent[] = Array.isArray(raw) ? raw : raw.traceEvents;

// The renderer's main thread: the CrRendererMain with the most events.
const mains = events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
const perThread = new Map<string, number>();
for (const e of events) perThread.set(`${e.pid}:${e.tid}`, (perThread.get(`${e.pid}:${e.tid}`) ?? 0) + 1);
const main = mains.sort((a, b) => (perThread.get(`${b.pid}:${b.tid}`) ?? 0) - (perThread.get(`${a.pid}:${a.tid}`) ?? 0))[0];
if (!main) throw new Error('no CrRendererMain thread in the trace');
const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);

const isTask = (e: TraceEvent) => e.name === 'ThreadControllerImpl::RunTask' || e.name === 'RunTask';
const tasks = onMain.filter(isTask);
// Nested RunTasks (a task inside a task) count once: keep the outermost.
const top: TraceEvent[] = [];
for (const t of tasks) {
  const last = top[top.length - 1];
  if (last && t.ts < last.ts + last.dur!) continue;
  top.push(t);
}
const long = top.filter((t) => t.dur! > threshold);
const ms = (us: number) => Math.round(us / 100) / 10;
console.log(`main thread ${main.pid}:${main.tid}: ${top.length} tasks, ${long.length} over ${threshold / 1000} ms, ${ms(long.reduce((s, t) => s + t.dur!, 0))} ms in them`);

/** Self time by event name inside [start, end), nesting by containment. */
function selfTimes(start: number, end: number): Map<string, number> {
  const inside = onMain.filter((e) => e.ts >= start && e.ts + e.dur! <= end && !isTask(e));
  const self = new Map<string, number>();
  const stack: { e: TraceEvent; child: number }[] = [];
  const close = (until: number) => {
    while (stack.length && stack[stack.length - 1]!.e.ts + stack[stack.length - 1]!.e.dur! <= until) {
      const { e, child } = stack.pop()!;
      self.set(e.name, (self.get(e.name) ?? 0) + e.dur! - child);
      if (stack.length) stack[stack.length - 1]!.child += e.dur!;
    }
  };
  let covered = 0;
  for (const e of inside) {
    close(e.ts);
    if (!stack.length) covered += e.dur!;
    stack.push({ e, child: 0 });
  }
  close(Infinity);
  self.set('(task, not in a traced event)', end - start - covered);
  return self;
}

// All tasks: how busy the main thread was, and the spread of task lengths.
const span = top.length ? top[top.length - 1]!.ts + top[top.length - 1]!.dur! - top[0]!.ts : 0;
const busy = top.reduce((sum, t) => sum + t.dur!, 0);
const buckets = [4, 8, 16, 33, 50, 100, Infinity].map((limit) => ({ limit, count: 0 }));
for (const t of top) buckets.find((b) => t.dur! <= b.limit * 1000)!.count++;
console.log(`busy ${ms(busy)} ms of ${ms(span)} ms (${Math.round((busy / Math.max(1, span)) * 100)}%); tasks by length: ${buckets.map((b) => `≤${b.limit} ms: ${b.count}`).join(', ')}`);
const all = selfTimes(top[0]?.ts ?? 0, (top[0]?.ts ?? 0) + span);
all.delete('(task, not in a traced event)');
console.log(`all tasks, self time by trace event: ${[...all].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([n, d]) => `${n} ${ms(d)}`).join(', ')}\n`);

const total = new Map<string, number>();
for (const t of long) {
  const self = selfTimes(t.ts, t.ts + t.dur!);
  const topNames = [...self].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([n, d]) => `${n} ${ms(d)}`);
  console.log(`  task ${ms(t.dur!)} ms at ${ms(t.ts - long[0]!.ts)} ms: ${topNames.join(', ')}`);
  for (const [n, d] of self) total.set(n, (total.get(n) ?? 0) + d);
}
console.log('\nlong tasks, self time by trace event:');
for (const [n, d] of [...total].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`  ${String(ms(d)).padStart(8)} ms  ${n}`);

// The CPU profile (same monotonic clock as the trace, in µs).
const profileFile = `${file}.cpuprofile`;
if (fs.existsSync(profileFile)) {
  const profile = JSON.parse(fs.readFileSync(profileFile, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (id: number) => {
    const f = byId.get(id)!.callFrame;
    const where = f.url ? ` ${f.url.split('/').pop()}:${f.lineNumber + 1}` : '';
    return `${f.functionName || '(anonymous)'}${where}`;
  };
  const selfMs = new Map<string, number>();
  const totalMs = new Map<string, number>();
  let t = profile.startTime;
  let inLong = 0;
  let k = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    while (k < long.length && long[k]!.ts + long[k]!.dur! < t) k++;
    const task = long[k];
    if (!task || t < task.ts) continue;
    inLong += dt;
    const id = profile.samples[i]!;
    selfMs.set(label(id), (selfMs.get(label(id)) ?? 0) + dt);
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const l = label(n);
      if (seen.has(l)) continue;
      seen.add(l);
      totalMs.set(l, (totalMs.get(l) ?? 0) + dt);
    }
  }
  const show = (title: string, m: Map<string, number>) => {
    console.log(`\n${title}`);
    for (const [n, d] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${d.toFixed(1).padStart(8)} ms  ${n}`);
  };
  console.log(`\nCPU profile: ${inLong.toFixed(0)} ms of samples inside the long tasks`);
  show('self time by function:', selfMs);
  show('total time by function (with callees):', totalMs);
}
