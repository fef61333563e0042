// Runs the real `sluice` CLI in a child process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

export const CLI = path.resolve(import.meta.dirname, '../../electron/cli.ts');

export interface ReadyLine {
  ingest: string;
  ui: string;
  receiver: string;
  dataDir: string;
  sources: { name: string; writeKey: string; kind: string }[];
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  ready: ReadyLine;
  stderr: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts `sluice serve --json ...args` and resolves with its ready line. */
export function startCli(args: string[]): Promise<RunningCli> {
  const child = spawn(process.execPath, [CLI, 'serve', '--json', '--ingest-port', '0', '--receiver-port', '0', '--ui-port', '0', ...args], {
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout });
    lines.once('line', (line) => resolve({ child, ready: JSON.parse(line) as ReadyLine, stderr: () => stderr, exited }));
    void exited.then((code) => reject(new Error(`sluice exited (${code}) before it was ready: ${stderr}`)));
  });
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
