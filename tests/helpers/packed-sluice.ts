// Sluice as a user gets it: `npm pack` (whose prepack builds the package) in a copy of this checkout,
// then `npm install <tarball>` into an empty project outside the checkout. Used by tests/packaging and
// by the start-up benchmark. The copy keeps the pack's build (dist/, out/renderer/) out of the
// checkout, where other tests read out/ while this runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const checkoutRoot = path.resolve(import.meta.dirname, '../..');

export interface PackedTarball {
  /** The .tgz `npm pack` wrote. */
  tarball: string;
  /** Paths inside the package (without the leading `package/`), as npm lists them. */
  files: string[];
  /** Bytes of the tarball, and of its files unpacked (npm's own figures). */
  size: number;
  unpackedSize: number;
}

/** Files of the checkout as git sees them: tracked and new, not ignored, not deleted. */
function checkoutFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: checkoutRoot, encoding: 'utf8' });
  return out.split('\0').filter((file) => file && fs.existsSync(path.join(checkoutRoot, file)));
}

/**
 * The checkout packed as `npm pack` packs it, into `work`. The test files of one run share one pack: the
 * first to ask packs into a folder named for the checkout's files (their paths, sizes and times) under the
 * system's temporary folder, the others wait for it and copy its tarball. Each pack builds the whole package
 * (~35 s here), and three test files need it.
 */
export function packSluice(work: string): PackedTarball {
  const shared = sharedPack();
  const tarball = path.join(work, path.basename(shared.tarball));
  fs.copyFileSync(shared.tarball, tarball);
  return { ...shared, tarball };
}

/** How long a test file waits for another's pack before it gives up. */
const PACK_WAIT_MS = 300_000;

function sharedPack(): PackedTarball {
  const files = checkoutFiles();
  const hash = createHash('sha256').update(process.version);
  for (const file of files) {
    const stat = fs.statSync(path.join(checkoutRoot, file));
    hash.update(`${file}\0${stat.size}\0${stat.mtimeMs}\0`);
  }
  const dir = path.join(os.tmpdir(), `sluice-pack-${hash.digest('hex').slice(0, 16)}`);
  const report = path.join(dir, 'report.json');
  const failed = path.join(dir, 'failed.txt');
  let mine = false;
  try {
    fs.mkdirSync(dir); // the first test file to get here packs; mkdir is the lock
    fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
    mine = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (!mine && fs.existsSync(failed) && fs.statSync(failed).mtimeMs < Date.now() - process.uptime() * 1000) {
    fs.rmSync(dir, { recursive: true, force: true }); // a failure from before this process: pack again
    return sharedPack();
  }
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  for (const start = Date.now(); !mine; Atomics.wait(sleeper, 0, 0, 200)) {
    if (fs.existsSync(report)) return JSON.parse(fs.readFileSync(report, 'utf8')) as PackedTarball;
    if (fs.existsSync(failed)) throw new Error(`npm pack failed in another test file: ${fs.readFileSync(failed, 'utf8')}`);
    // Its packer was killed mid-pack (a run stopped): one of those waiting takes the folder over.
    if (takeOver(dir)) mine = true;
    else if (Date.now() - start >= PACK_WAIT_MS) {
      throw new Error(`waited ${PACK_WAIT_MS / 1000} s for another test file's npm pack in ${dir}; remove that folder if no test runs`);
    }
  }
  forgetOldPacks(dir);
  try {
    const packed = packInto(dir, files);
    fs.writeFileSync(`${report}.tmp`, JSON.stringify(packed));
    fs.renameSync(`${report}.tmp`, report);
    return packed;
  } catch (error) {
    fs.writeFileSync(failed, String((error as Error).message));
    throw error;
  }
}

/** The file of a pack's folder naming the process that packs into it. */
const OWNER_FILE = 'owner.pid';

/**
 * Takes over a pack's folder whose packer has ended (killed with its run, leaving neither a tarball nor
 * a failure): true for the one waiting process that claims it (an exclusive file named for the ended
 * packer), which then packs there. False while the packer runs, and before it has written its id.
 */
export function takeOver(dir: string): boolean {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false; // still packing
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') return false;
  }
  try {
    fs.closeSync(fs.openSync(path.join(dir, `taken-from-${pid}`), 'wx'));
  } catch {
    return false; // another waiting process took it
  }
  fs.rmSync(path.join(dir, 'source'), { recursive: true, force: true }); // the ended packer's copy
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  return true;
}

/** Packs of earlier checkouts (another edit, another run) older than an hour. */
function forgetOldPacks(keep: string): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    const dir = path.join(os.tmpdir(), name);
    if (!name.startsWith('sluice-pack-') || dir === keep) continue;
    try {
      if (Date.now() - fs.statSync(dir).mtimeMs > 3_600_000) fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // another run's, going away meanwhile
    }
  }
}

/**
 * Copies the checkout into `work/source` (node_modules linked, not copied) and runs `npm pack` there,
 * so that the package's own `prepack` builds what ships. Writes the tarball into `work`.
 */
function packInto(work: string, files: string[]): PackedTarball {
  const source = path.join(work, 'source');
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(source, file)), { recursive: true });
    fs.copyFileSync(path.join(checkoutRoot, file), path.join(source, file));
  }
  fs.symlinkSync(path.join(checkoutRoot, 'node_modules'), path.join(source, 'node_modules'), 'dir');
  // As from a shell: vitest sets NODE_ENV=test, which makes Vite build something else.
  const { NODE_ENV: _testEnv, ...env } = process.env;
  const run = spawnSync(npm(), ['pack', '--json', '--pack-destination', work], { cwd: source, env, encoding: 'utf8', timeout: 240_000 });
  if (run.status !== 0) throw new Error(`npm pack failed (${run.status}): ${run.stderr}\n${run.stdout}`);
  fs.rmSync(source, { recursive: true, force: true });
  // The prepack's build may print before npm's JSON: the JSON is the last top-level array.
  const json = run.stdout.slice(run.stdout.lastIndexOf('\n[') + 1);
  const [report] = JSON.parse(json) as { filename: string; size: number; unpackedSize: number; files: { path: string }[] }[];
  return {
    tarball: path.join(work, report!.filename),
    files: report!.files.map((f) => f.path).sort(),
    size: report!.size,
    unpackedSize: report!.unpackedSize,
  };
}

/**
 * An empty project with the tarball installed, as `npm install ./sluice-x.y.z.tgz` leaves it. Offline:
 * the package has no dependencies, so nothing may need the registry.
 */
export function installInto(project: string, tarball: string): void {
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`);
  const run = spawnSync(npm(), ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: project, encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`npm install failed (${run.status}): ${run.stderr}`);
}

/** npm beside the Node.js running this (Node 24's npm, not the machine's Node 20 one). */
export function npm(): string {
  const beside = path.join(path.dirname(process.execPath), 'npm');
  return fs.existsSync(beside) ? beside : 'npm';
}

/** Total bytes of the files under `dir` (what `du` counts, less block rounding). */
export function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** PATH with `nodeBinary`'s folder first, so that `#!/usr/bin/env node` and npm's scripts run that Node. */
export function pathWith(nodeBinary: string): string {
  return `${path.dirname(nodeBinary)}${path.delimiter}${process.env.PATH ?? ''}`;
}

/**
 * The machine's Node 20 (the client library's oldest target): SLUICE_NODE20, or /usr/bin/node when it
 * is a 20.x. Undefined, with the reason, when there is none.
 */
export function findNode20(): { binary: string; version: string } | { reason: string } {
  const candidates = [process.env.SLUICE_NODE20, '/usr/bin/node'].filter((c): c is string => Boolean(c));
  for (const binary of candidates) {
    const version = nodeVersion(binary);
    if (version?.startsWith('20.')) return { binary, version };
  }
  return { reason: `no Node.js 20 found (looked at ${candidates.join(', ')}; set SLUICE_NODE20 to a Node 20 binary)` };
}

/** `binary --version` without the v, or undefined when it does not run. */
export function nodeVersion(binary: string): string | undefined {
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  return run.status === 0 ? run.stdout.trim().replace(/^v/, '') : undefined;
}

export { tempDir } from './temp-dirs.ts';
