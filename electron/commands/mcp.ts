/**
 * `sluice mcp [--ephemeral | --api URL --token T | --data-dir DIR] [--allow-write]`: a Model Context
 * Protocol server over stdio (electron/mcp/), its tools thin over a relay's HTTP API. The relay is
 * the one running on the data folder (its `relay.json` says where it listens, `inspector-token` is the
 * token; both read again for each call, so a relay started later is found), one named by --api, or,
 * with --ephemeral, one started for the session as a child `sluice serve --ephemeral --json`: its own
 * process, so that nothing it prints can reach stdout, which is the protocol's. Where it listens is said
 * on stderr.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { DEFAULT_UI_PORT } from '../../shared/limits.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { RelayApi, RelayError, type RelayAddress } from '../mcp/relay-api.ts';
import { serveMcp } from '../mcp/server.ts';
import { InputError, UsageError } from './command-error.ts';
import { findRelay } from './find-relay.ts';

const OPTIONS = {
  ephemeral: { type: 'boolean', default: false },
  api: { type: 'string' },
  token: { type: 'string' },
  'data-dir': { type: 'string' },
  'allow-write': { type: 'boolean', default: false },
  config: { type: 'string' },
  'ingest-port': { type: 'string' },
  'ui-port': { type: 'string' },
  'receiver-port': { type: 'string' },
} as const;

/** Flags handed to the ephemeral relay as they are (serve checks them). */
const SERVE_FLAGS = ['config', 'ingest-port', 'ui-port', 'receiver-port'] as const;

export async function mcpCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false });
  for (const name of ['api', 'token', 'data-dir', ...SERVE_FLAGS] as const) if (values[name] === '') throw new UsageError(`--${name} needs a value`);
  // Anything the relay's code prints goes to stderr: stdout carries the protocol alone.
  console.log = console.error;
  console.info = console.error;
  if (values.ephemeral) {
    if (values.api !== undefined || values.token !== undefined || values['data-dir'] !== undefined) {
      throw new UsageError('--ephemeral starts a relay of its own; leave out --api, --token and --data-dir (or --ephemeral)');
    }
    const relay = await startEphemeral(SERVE_FLAGS.flatMap((name) => (values[name] !== undefined ? [`--${name}`, values[name]!] : [])));
    try {
      await serveMcp({ api: new RelayApi(() => relay.address, 'the ephemeral relay this server started has stopped (see its stderr)'), allowWrite: values['allow-write'] });
    } finally {
      await relay.stop();
    }
    return 0;
  }
  for (const name of SERVE_FLAGS) if (values[name] !== undefined) throw new UsageError(`--${name} is for the relay --ephemeral starts; a running relay has its own`);
  const dataDir = path.resolve(values['data-dir'] ?? defaultDataDir());
  if ((values.api === undefined) !== (values.token === undefined)) throw new UsageError('give --api and --token together (sluice serve --json\'s "api" and "token"), or neither to use the relay on --data-dir');
  const given = values.api !== undefined ? { base: checkedUrl(values.api), token: values.token! } : undefined;
  const hint = given ? 'start it, or check --api' : 'is it stopping, or starting?';
  const locate = (): RelayAddress => {
    if (given) return given;
    try {
      const { api, token } = findRelay(dataDir);
      return { base: api, token };
    } catch (error) {
      // Each call looks again: a relay started after the agent started this server is found.
      throw error instanceof InputError ? new RelayError('unreachable', `${error.message}; or run sluice mcp --ephemeral for a relay of the session's own`) : error;
    }
  };
  try {
    const where = locate();
    process.stderr.write(`sluice mcp: tools over the relay at ${where.base}${values['allow-write'] ? ' (with write tools)' : ''}\n`);
  } catch (error) {
    process.stderr.write(`sluice mcp: warning: ${(error as Error).message}\n`); // each tool says it again until a relay runs
  }
  await serveMcp({ api: new RelayApi(locate, hint), allowWrite: values['allow-write'] });
  return 0;
}

function checkedUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--api must be the HTTP API's URL, e.g. http://127.0.0.1:${DEFAULT_UI_PORT}/api/v1 (the "api" of sluice serve --json); not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--api must be an http:// or https:// URL; not "${text}"`);
  return url.href.replace(/\/+$/, '');
}

interface Ephemeral {
  address: RelayAddress;
  stop(): Promise<void>;
}

/**
 * Starts `sluice serve --ephemeral --json` (this command's own code, as this process runs it) and
 * waits for its ready line; its stderr is this one's. It stops when this process ends, however it ends
 * (SIGKILL too: its stdin closes), which removes its temporary folder.
 */
async function startEphemeral(flags: string[]): Promise<Ephemeral> {
  // Its stdin is a pipe this process holds, written to never: when this process ends, even by SIGKILL
  // (which runs no handler here), the pipe closes and --exit-with-stdin stops the relay, which removes its folder.
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, 'serve', '--ephemeral', '--json', '--exit-with-stdin', ...flags], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stopChild = () => child.exitCode === null && child.signalCode === null && child.kill('SIGTERM');
  process.once('exit', stopChild);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      stopChild();
      void exited.then(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    });
  }
  let stopping = false;
  const ready = await readyLine(child, exited);
  process.stderr.write(
    `sluice mcp: started an ephemeral relay (removed on exit)\n  Inspector           ${ready.ui}\n  Ingestion endpoint  ${ready.ingest}  (write key ${ready.sources[0]?.writeKey ?? '-'})\n  HTTP API            ${ready.api}\n  Data                ${ready.dataDir}  (relay pid ${child.pid})\n`,
  );
  void exited.then((code) => {
    if (!stopping) process.stderr.write(`sluice mcp: the ephemeral relay stopped (exit code ${code}); the tools can no longer answer\n`);
  });
  return {
    address: { base: ready.api, token: ready.token },
    async stop() {
      stopping = true;
      stopChild();
      await exited;
    },
  };
}

interface Ready {
  api: string;
  token: string;
  ui: string;
  ingest: string;
  dataDir: string;
  sources: { writeKey: string }[];
}

function readyLine(child: ChildProcess, exited: Promise<number | null>): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as Ready));
    void exited.then((code) => reject(new InputError(`the ephemeral relay did not start (exit code ${code}; its reason is above)`)));
  });
}
