// `sluice serve`: the headless host. Runs the core, serves the inspector page and the contract to a
// browser, and prints where everything listens. The `sluice` command (electron/cli.ts) loads this
// module only once it knows this Node.js can run the relay.
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_HOST, DEFAULT_INGEST_PORT, DEFAULT_RECEIVER_PORT, DEFAULT_UI_PORT } from '../../shared/limits.ts';
import { createCore, type Core } from '../core/index.ts';
import type { StoreHealth } from '../../shared/storage.ts';
import { ndjsonLine } from '../core/transfer/json-lines.ts';
import { UiServer } from '../host/ui-server.ts';
import { inspectorToken } from '../host/inspector-token.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { writeRelayFile } from '../host/relay-file.ts';
import { followMessages } from '../core/queries/message-follow.ts';
import { drained } from '../host/message-stream.ts';
import { messageLine } from './message-line.ts';
import { CORE_FLAGS, coreFlags, parsePort, TOKEN_FLAGS, UsageError } from '../host/options.ts';

export { ConfigError } from '../core/config/load-config.ts';
export { UsageError } from '../host/options.ts';

/**
 * The built inspector page: `out/renderer/` at the package's root, found through the package's own
 * name, so that it resolves the same from the sources (a checkout) and from the compiled bundle in
 * an installed package, wherever the bundler put this code.
 */
function inspectorPageDir(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.resolve('sluice/package.json'))), 'out', 'renderer');
}

export async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      ...CORE_FLAGS,
      ...TOKEN_FLAGS,
      'ui-port': { type: 'string' },
      json: { type: 'boolean', default: false },
      ephemeral: { type: 'boolean', default: false },
      print: { type: 'boolean', default: false },
      // Internal (`sluice mcp --ephemeral`'s child relay; not in the help): stop, as on SIGTERM, when
      // stdin ends, i.e. when the parent that holds its other end is gone, even killed with SIGKILL.
      'exit-with-stdin': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const uiPort = parsePort(values['ui-port'], '--ui-port', DEFAULT_UI_PORT);
  const flags = coreFlags(values);
  if (values.ephemeral && flags.dataDir !== undefined) {
    throw new UsageError('--ephemeral stores in a new temporary folder of its own; leave out --data-dir (or --ephemeral)');
  }
  if (values.print && values.json) throw new UsageError('--print writes lines for a person and --json one ready line for a program, both on stdout: give one of them');
  const dataDir = values.ephemeral ? ephemeralDataDir() : (flags.dataDir ?? path.resolve(defaultDataDir()));
  const host = flags.host ?? DEFAULT_HOST;

  const core = await createCore({
    ingestPort: DEFAULT_INGEST_PORT,
    receiverPort: DEFAULT_RECEIVER_PORT,
    ...flags,
    dataDir,
    host,
    durable: !values.ephemeral, // removed on exit: never synced to disk (store/connection.ts Durability)
  });
  let ui: UiServer;
  let tokenNote: string | undefined;
  try {
    // Read after the core opened the folder: its lock is held, so no other Sluice writes the file.
    const kept = inspectorToken(dataDir, { rotate: values['new-token'] });
    tokenNote = kept.note;
    ui = new UiServer({ core, host, port: uiPort, rendererDir: inspectorPageDir(), token: kept.token });
    await ui.listen();
  } catch (error) {
    await core.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${uiPort} (the inspector) is in use; pick another with --ui-port (0 = any free port)`);
    }
    throw error;
  }
  let forget = () => {};
  let relayNote: string | undefined;
  try {
    forget = writeRelayFile(dataDir, { api: ui.apiUrl, ingest: core.ingestUrl });
  } catch (error) {
    relayNote = (error as Error).message; // sluice tail cannot find this relay; the rest works
  }
  const printing = new AbortController();
  /** Stopping: nothing more is stored, so --print hands out the rest and ends. */
  const finishing = new AbortController();
  let printed: Promise<void> = Promise.resolve();
  // A reader that went away (`sluice serve --print | head`: EPIPE) ends the printing, not the relay.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (printing.signal.aborted) return;
    printing.abort();
    process.stderr.write(`sluice: stopped writing to stdout (${error.code ?? error.message}: its reader went away); Sluice goes on serving — Ctrl+C stops it\n`);
  });
  const stop = handleSignals(async () => {
    // Stored first, then handed out: what clients sent before the stop is stored (accepted requests
    // finish), and every follower — sluice tail, a script's stream, --print — gets each message stored,
    // then ends. Before 2026-12-01 they ended at once, leaving out those still settling, a slow reader's
    // backlog and what the accepted requests stored meanwhile.
    await core.stopIngesting();
    finishing.abort();
    await Promise.race([printed, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
    await ui.finishStreams();
    printing.abort();
    await ui.close();
    await core.close();
    forget();
  }, values.json);
  if (values['exit-with-stdin']) {
    process.stdin.on('end', () => stop('stdin closed'));
    process.stdin.on('error', () => stop('stdin closed'));
    process.stdin.resume(); // read (and drop) whatever comes, so that its end is seen
  }

  const sources = core.sources.list().map(({ name, writeKey, kind }) => ({ name, writeKey, kind }));
  const warnings = [...core.configWarnings(), ...[tokenNote, relayNote].filter((note) => note !== undefined)];
  if (values.json) {
    process.stdout.write(`${ndjsonLine({ ingest: core.ingestUrl, ui: ui.url, receiver: core.receiver.url, dataDir, ephemeral: values.ephemeral, api: ui.apiUrl, token: ui.token, sources, warnings })}\n`);
    sayDamage(core, true);
    return;
  }
  for (const warning of warnings) process.stderr.write(`sluice: warning: ${warning}\n`);
  const rows: [label: string, value: string][] = [
    ['Inspector', ui.url],
    ['Ingestion endpoint', `${core.ingestUrl}  (Segment HTTP Tracking API: /v1/track, /v1/batch, ...)`],
    ...sources.map((s): [string, string] => [`Source ${JSON.stringify(s.name)}`, `write key ${s.writeKey}`]),
    ['Test receiver', `${core.receiver.hookUrl('demo')}  (any /hooks/<name>; a destination names it sluice://receiver/<name>)`],
    ['HTTP API', `${ui.apiUrl}  (Authorization: Bearer ${ui.token})`],
    ['Data', `${dataDir}${values.ephemeral ? '  (temporary: removed on exit)' : ''}`],
  ];
  // The values in one column, two spaces after the longest label (a source's name can be long).
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = ['Sluice is running.', ...rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`), 'Press Ctrl+C to stop.'];
  process.stdout.write(`${lines.join('\n')}\n`);
  sayDamage(core, false);
  if (values.print) printed = printMessages(core, printing.signal, finishing.signal);
}

/**
 * --print: each message stored from now on, one line each (message-line.ts), as sluice tail prints them.
 * A line is written once the previous ones have drained (a reader that stalls, `| less`, holds the
 * follower back in the store, not lines in memory here).
 */
function printMessages(core: Core, signal: AbortSignal, finishing: AbortSignal): Promise<void> {
  return (async () => {
    for await (const followed of followMessages(core.queries, core.bus, { finishing }, signal)) {
      if (signal.aborted) break;
      if (!process.stdout.write(`${messageLine(followed)}\n`)) await drained(process.stdout, signal);
    }
  })().catch((error: unknown) => {
    if (!signal.aborted) process.stderr.write(`sluice: --print stopped: ${(error as Error).message}\n`);
  });
}

/**
 * Damage found while running — by the background check of the store, or by a request that ran into
 * it — said once, with the fix: on stderr, and with --json as a line of its own on stdout
 * (`{"event":"store.damaged","warnings":[…]}`, the ready line's `warnings`).
 */
function sayDamage(core: Core, json: boolean): void {
  let said = false;
  const say = ({ damage }: StoreHealth) => {
    if (said || damage === null) return;
    said = true;
    process.stderr.write(`sluice: ${damage.message}\n`);
    if (json) process.stdout.write(`${ndjsonLine({ event: 'store.damaged', warnings: [damage.message] })}\n`);
  };
  core.bus.on('storage.health', say);
  say(core.health.view());
}

/**
 * `--ephemeral`: a new owner-only folder under the system's temporary folder, removed when the process
 * exits however it exits, short of SIGKILL (a crash, Ctrl+C, SIGTERM, a failed start all remove it).
 */
function ephemeralDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-ephemeral-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Stops on SIGINT and SIGTERM (a second one: at once); returns a stop for another reason (a closed stdin), which never forces. */
function handleSignals(close: () => Promise<void>, quiet: boolean): (why: string) => void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      process.stderr.write(`sluice: ${signal} again, exiting without waiting\n`);
      process.exit(130);
    }
    stopping = true;
    if (!quiet) process.stderr.write(`sluice: ${signal}, finishing accepted requests and closing the store…\n`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`sluice: error while closing: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  return (why) => {
    if (!stopping) stop(why); // not a second signal: the parent's SIGTERM closes its end of stdin as well
  };
}
