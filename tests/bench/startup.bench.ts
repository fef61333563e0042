// `npm run bench -- startup`: Sluice as installed from its tarball, against the checkout's TypeScript.
//
// - Cold start: from spawning `sluice serve --json` (a fresh process, a fresh data folder, free ports)
//   to its ready line. Contenders, interleaved round by round: the installed package's `sluice` bin,
//   and the checkout run as it ran before this package existed (`node electron/cli.ts serve`: Node
//   strips the types of every module as it loads it).
// - Idle memory: resident set 3 s after the ready line, for both; and what a thread costs: a bare Node
//   process, and the same with one and with two idle worker threads.
// - `import('sluice/client')` on the machine's Node 20 (the client's oldest target) and on this Node:
//   the import alone, timed inside a fresh process, ES module and CommonJS.
// - Sizes: the tarball, unpacked, and an empty project after installing it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { startServing } from '../helpers/cli.ts';
import { checkoutRoot, findNode20, installInto, packSluice, pathWith, tempDir, treeBytes } from '../helpers/packed-sluice.ts';
import { median } from './median.ts';

const ROUNDS = 15;
const IMPORT_RUNS = 9;
const IDLE_MS = 3000;

interface Start {
  ms: number;
  rssMB: number | undefined;
}

/** Starts a relay, times it to its ready line, optionally samples its memory once idle, stops it. */
async function startOnce(command: string, args: string[], env: NodeJS.ProcessEnv, sampleRss: boolean): Promise<Start> {
  const dataDir = tempDir('sluice-bench-start-');
  const started = performance.now();
  const relay = await startServing(command, [...args, 'serve', '--json', '--data-dir', dataDir, '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'], { env });
  const ms = performance.now() - started;
  let rssMB: number | undefined;
  if (sampleRss) {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    rssMB = rssOf(relay.child.pid!);
  }
  await relay.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  // The next start is not to share the CPU with this one's exit (its threads, the OS's clean-up).
  await new Promise((r) => setTimeout(r, 300));
  return { ms, rssMB };
}

/** Resident set of a process, in MB (Linux: /proc; elsewhere ps). */
export function rssOf(pid: number): number {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
    return kb / 1024;
  } catch {
    return Number(spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim()) / 1024;
  }
}

/** RSS of a Node process that starts `workers` idle worker threads and then idles. */
async function idleNodeRss(workers: number): Promise<number> {
  const script = `
    const { Worker } = require('node:worker_threads');
    let ready = 0;
    for (let i = 0; i < ${workers}; i++) {
      new Worker("require('node:worker_threads').parentPort.postMessage('up'); setInterval(() => {}, 1000)", { eval: true })
        .once('message', () => { if (++ready === ${workers}) console.log('ready'); });
    }
    if (${workers} === 0) console.log('ready');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => readline.createInterface({ input: child.stdout }).once('line', () => resolve()));
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const rss = rssOf(child.pid!);
  child.kill();
  return rss;
}

/** Milliseconds `import('sluice/client')` (or require) takes inside a fresh process of `node`. */
function importMs(node: string, project: string, kind: 'esm' | 'cjs'): number {
  const code =
    kind === 'esm'
      ? "const t = performance.now(); await import('sluice/client'); console.log(performance.now() - t);"
      : "const t = performance.now(); require('sluice/client'); console.log(performance.now() - t);";
  const args = kind === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code];
  const run = spawnSync(node, args, { cwd: project, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${node} could not import sluice/client: ${run.stderr}`);
  return Number(run.stdout.trim());
}

const round1 = (n: number) => Math.round(n * 10) / 10;
const summary = (values: number[]) => ({ median: round1(median(values)), min: round1(Math.min(...values)), max: round1(Math.max(...values)), runs: values.map(round1) });

export async function runStartupBench(): Promise<unknown> {
  const work = tempDir('sluice-bench-startup-');
  try {
    console.log('startup benchmark: packing and installing the package…');
    const packed = packSluice(work);
    const project = path.join(work, 'consumer');
    installInto(project, packed.tarball);
    const bin = path.join(project, 'node_modules/.bin/sluice');
    const sizes = { tarballKB: Math.round(packed.size / 1024), unpackedMB: round1(packed.unpackedSize / 2 ** 20), installedProjectMB: round1(treeBytes(project) / 2 ** 20) };
    console.log(`  tarball ${sizes.tarballKB} KB, unpacked ${sizes.unpackedMB} MB, installed project ${sizes.installedProjectMB} MB`);

    // Node's compile cache off for both (NODE_COMPILE_CACHE in a user's environment would favour one).
    const env = { ...process.env, PATH: pathWith(process.execPath), NODE_DISABLE_COMPILE_CACHE: '1' };
    const INSTALLED = 'installed package (sluice bin)';
    const CHECKOUT = 'checkout (node electron/cli.ts: types stripped at load)';
    const contenders = {
      [INSTALLED]: (round: number) => startOnce(bin, [], env, round === 0),
      [CHECKOUT]: (round: number) => startOnce(process.execPath, [path.join(checkoutRoot, 'electron/cli.ts')], env, round === 0),
    };
    // One start of each first, so that every file is in the OS's cache for both.
    for (const start of Object.values(contenders)) await start(-1);
    const times: Record<string, number[]> = {};
    const rss: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, start] of Object.entries(contenders)) {
        const result = await start(round);
        (times[name] ??= []).push(result.ms);
        if (result.rssMB !== undefined) rss[name] = round1(result.rssMB);
      }
    }
    const coldStart = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, summary(values)]));
    for (const [name, s] of Object.entries(coldStart)) console.log(`  ${name.padEnd(62)} median ${s.median} ms (min ${s.min}, max ${s.max})`);

    const threads = { bareNodeMB: round1(await idleNodeRss(0)), oneWorkerMB: round1(await idleNodeRss(1)), twoWorkersMB: round1(await idleNodeRss(2)) };
    console.log(`  idle RSS: installed ${rss[INSTALLED]} MB, checkout ${rss[CHECKOUT]} MB; bare Node ${threads.bareNodeMB} MB, +1 idle worker ${threads.oneWorkerMB} MB, +2 ${threads.twoWorkersMB} MB`);

    const node20 = findNode20();
    const nodes: [string, string][] = [[`Node ${process.versions.node}`, process.execPath]];
    if ('binary' in node20) nodes.unshift([`Node ${node20.version}`, node20.binary]);
    else console.log(`  Node 20: ${node20.reason}`);
    const clientImport: Record<string, unknown> = {};
    for (const [label, node] of nodes) {
      for (const kind of ['esm', 'cjs'] as const) {
        importMs(node, project, kind); // once, so the files are in the OS cache
        const values = Array.from({ length: IMPORT_RUNS }, () => importMs(node, project, kind));
        clientImport[`${label}, ${kind === 'esm' ? "import('sluice/client')" : "require('sluice/client')"}`] = summary(values);
        console.log(`  ${label} ${kind}: sluice/client loads in ${round1(median(values))} ms (median of ${IMPORT_RUNS})`);
      }
    }

    const installed = median(times[INSTALLED]!);
    const checkout = median(times[CHECKOUT]!);
    return {
      rounds: ROUNDS,
      machine: { loadAverage: os.loadavg().map(round1) },
      sizes,
      coldStartMs: coldStart,
      installedOverCheckout: Math.round((installed / checkout) * 100) / 100,
      idleRssMB: {
        installed: rss[INSTALLED],
        checkout: rss[CHECKOUT],
        ...threads,
        oneWorkerThreadCostsMB: round1(threads.oneWorkerMB - threads.bareNodeMB),
      },
      clientImportMs: clientImport,
      targets: {
        coldStartUnder250ms: installed <= 250,
        idleRssUnder120MB: (rss[INSTALLED] ?? Infinity) <= 120,
        tarballUnder5MB: sizes.unpackedMB < 5,
        installedUnder30MB: sizes.installedProjectMB < 30,
      },
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
