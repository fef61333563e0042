// Runs the real `sluice` CLI in a child process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { removeAfterFile } from './temp-dirs.ts';

export const CLI = path.resolve(import.meta.dirname, '../../electron/cli.ts');

export interface ReadyLine {
  ingest: string;
  ui: string;
  receiver: string;
  dataDir: string;
  /** --ephemeral: the data folder is temporary, removed on exit. */
  ephemeral: boolean;
  /** The HTTP API's base URL and its token (Authorization: Bearer). */
  api: string;
  token: string;
  sources: { name: string; writeKey: string; kind: string }[];
  /** What the config check found (webhooks posting to this Sluice's own ingestion endpoint). */
  warnings: string[];
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  ready: ReadyLine;
  stderr: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs `command args` — a `sluice serve --json …`, from the checkout, an installed package or npx — and
 * resolves with its ready line; rejects if it exits first.
 */
export function startServing(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunningCli> {
  const child = spawn(command, args, { stdio: 'pipe', ...options });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      const ready = JSON.parse(line) as ReadyLine;
      // An --ephemeral relay removes its folder when it stops, but not when a test kills it with SIGKILL.
      if (ready.ephemeral) removeAfterFile(ready.dataDir);
      resolve({
        child,
        ready,
        stderr: () => stderr,
        exited,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((code) => reject(new Error(`${path.basename(command)} exited (${code}) before it was ready: ${stderr}`)));
  });
}

/** Starts the checkout's `sluice serve --json ...args` on free ports and resolves with its ready line. */
export function startCli(args: string[]): Promise<RunningCli> {
  return startServing(process.execPath, [CLI, 'serve', '--json', '--ingest-port', '0', '--receiver-port', '0', '--ui-port', '0', ...args]);
}

/** Runs the CLI to completion (for commands that fail fast). */
export function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/**
 * Runs the checkout's `sluice serve ...args` (free ports) without --json, and resolves with the banner
 * it prints, from "Sluice is running." to "Press Ctrl+C to stop.", once it has stopped again.
 */
export async function serveBanner(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'serve', '--ingest-port', '0', '--receiver-port', '0', '--ui-port', '0', ...args], { stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Press Ctrl+C to stop.')) resolve();
    });
    void exited.then((code) => reject(new Error(`sluice serve exited (${code}) before its banner: ${stderr}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return stdout;
}

/** Runs the checkout's `sluice ...args` to completion in `cwd`, with `stdin` piped in; all of its output once it has closed. */
export function runSluice(args: string[], options: { cwd?: string; stdin?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
