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
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { parseArgs } from 'node:util';
import { DEFAULT_UI_PORT } from '../../shared/limits.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { TOKEN_FILE } from '../host/inspector-token.ts';
import { processExists, readRelayFile } from '../host/relay-file.ts';
import { RelayApi, RelayError, type RelayAddress } from '../mcp/relay-api.ts';
import { serveMcp } from '../mcp/server.ts';
import { InputError, UsageError } from './command-error.ts';

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
  const api = values.api !== undefined ? checkedUrl(values.api) : undefined;
  if (api !== undefined && values.token === undefined && !fs.existsSync(path.join(dataDir, TOKEN_FILE))) {
    throw new UsageError(`give the relay's token with --token (the "token" of sluice serve --json, or the inspector link's ?token=)`);
  }
  const hint = api !== undefined ? 'start it, or check --api' : `start one with \`sluice serve${values['data-dir'] !== undefined ? ` --data-dir ${dataDir}` : ''}\`, or run \`sluice mcp --ephemeral\` for a relay of this session's own`;
  const locate = (): RelayAddress => ({ base: api ?? recordedApi(dataDir), token: values.token ?? folderToken(dataDir) });
  try {
    const where = locate();
    process.stderr.write(`sluice mcp: tools over the relay at ${where.base}${values['allow-write'] ? ' (with write tools)' : ''}\n`);
  } catch (error) {
    process.stderr.write(`sluice mcp: warning: ${(error as Error).message}\n`); // each tool says it again until a relay runs
  }
  await serveMcp({ api: new RelayApi(locate, hint), allowWrite: values['allow-write'] });
  return 0;
}

/** Where the relay running on the folder listens (its relay.json), or the default port when none is recorded. */
function recordedApi(dataDir: string): string {
  const recorded = readRelayFile(dataDir);
  return recorded !== null && processExists(recorded.pid) ? recorded.api : `http://127.0.0.1:${DEFAULT_UI_PORT}/api/v1`;
}

/** The token a relay keeps in the data folder (read, never made: that is the relay's to do). */
function folderToken(dataDir: string): string {
  try {
    return fs.readFileSync(path.join(dataDir, TOKEN_FILE), 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new RelayError('unreachable', `no Sluice relay has run on ${dataDir} (it has no ${TOKEN_FILE}): start one with \`sluice serve\` (--data-dir to name another folder), give --api and --token, or run \`sluice mcp --ephemeral\``);
    }
    throw new RelayError('unreachable', `cannot read the relay's token in ${path.join(dataDir, TOKEN_FILE)} (${(error as Error).message}); give it with --token`);
  }
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
 * short of SIGKILL, which removes its temporary folder.
 */
async function startEphemeral(flags: string[]): Promise<Ephemeral> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, 'serve', '--ephemeral', '--json', ...flags], { stdio: ['ignore', 'pipe', 'inherit'] });
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
    `sluice mcp: started an ephemeral relay (removed on exit)\n  Inspector           ${ready.ui}\n  Ingestion endpoint  ${ready.ingest}  (write key ${ready.sources[0]?.writeKey ?? '-'})\n  HTTP API            ${ready.api}\n`,
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
  sources: { writeKey: string }[];
}

function readyLine(child: ChildProcess, exited: Promise<number | null>): Promise<Ready> {
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line) as Ready));
    void exited.then((code) => reject(new InputError(`the ephemeral relay did not start (exit code ${code}; its reason is above)`)));
  });
}
