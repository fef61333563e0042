// `sluice tail` as a user runs it (a child process), with its stdout read line by line.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';
import { CLI } from './cli.ts';
import { until } from './wait.ts';

export interface RunningTail {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  stderr: () => string;
  exited: Promise<number | null>;
  /** Resolves with the first `n` lines once they have been printed. */
  nextLines(n: number, ms?: number): Promise<string[]>;
}

/** Runs `command tail args` (the checkout's CLI by default; an installed bin) and resolves once it says it follows the relay. */
export async function startTail(args: string[], command: string[] = [process.execPath, CLI], env?: NodeJS.ProcessEnv): Promise<RunningTail> {
  const child = spawn(command[0]!, [...command.slice(1), 'tail', ...args], { stdio: 'pipe', ...(env ? { env } : {}) });
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c) => resolve((code = c))));
  const tail: RunningTail = {
    child,
    lines,
    stderr: () => stderr,
    exited,
    nextLines: (n, ms = 20_000) => until(() => lines.length >= n && lines.slice(0, n), ms, `${n} lines from sluice tail (got ${JSON.stringify(lines)}; stderr ${stderr})`),
  };
  await until(() => stderr.includes('following the relay') || code !== undefined, 20_000, 'sluice tail to start');
  if (code !== undefined) throw new Error(`sluice tail exited (${code}) before it followed: ${stderr}`);
  return tail;
}
