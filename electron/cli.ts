#!/usr/bin/env node
// `sluice serve`: the headless host. Runs the core and prints where it listens.
import { parseArgs } from 'node:util';
import path from 'node:path';
import { DEFAULT_HOST, DEFAULT_INGEST_PORT, DEFAULT_RECEIVER_PORT, DEFAULT_UI_PORT } from '../shared/limits.ts';
import { createCore } from './core/index.ts';
import { UiServer } from './headless/ui-server.ts';
import { ConfigError } from './core/config/load-config.ts';
import { defaultDataDir } from './core/config/data-dir.ts';
import { CORE_FLAGS, coreFlags, parsePort, UsageError } from './host-options.ts';

const USAGE = `Usage: sluice serve [options]

Options:
  --config FILE       sources and webhook destinations (JSON; see README "Configuration")
  --data-dir DIR      where messages are stored (default: ${defaultDataDir()})
  --ingest-port N     ingestion endpoint port (default ${DEFAULT_INGEST_PORT}; 0 = any free port)
  --ui-port N         inspector UI port (default ${DEFAULT_UI_PORT}; 0 = any free port)
  --receiver-port N   built-in webhook receiver port (default ${DEFAULT_RECEIVER_PORT}; 0 = any free port)
  --host ADDR         address to listen on (default ${DEFAULT_HOST}, loopback only)
  --json              print one JSON line with the URLs when ready, nothing else on stdout
  -h, --help          show this help`;

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      ...CORE_FLAGS,
      'ui-port': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const uiPort = parsePort(values['ui-port'], '--ui-port', DEFAULT_UI_PORT);
  const flags = coreFlags(values);
  const dataDir = flags.dataDir ?? path.resolve(defaultDataDir());
  const host = flags.host ?? DEFAULT_HOST;

  const core = await createCore({
    ingestPort: DEFAULT_INGEST_PORT,
    receiverPort: DEFAULT_RECEIVER_PORT,
    ...flags,
    dataDir,
    host,
  });
  const ui = new UiServer({ core, host, port: uiPort, rendererDir: path.resolve(import.meta.dirname, '../out/renderer') });
  try {
    await ui.listen();
  } catch (error) {
    await core.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${uiPort} (the inspector) is in use; pick another with --ui-port (0 = any free port)`);
    }
    throw error;
  }
  handleSignals(async () => {
    await ui.close();
    await core.close();
  }, values.json);

  const sources = core.sources.list().map(({ name, writeKey, kind }) => ({ name, writeKey, kind }));
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ingest: core.ingestUrl, ui: ui.url, receiver: core.receiver.url, dataDir, sources })}\n`);
    return;
  }
  const lines = [
    'Sluice is running.',
    `  Inspector           ${ui.url}`,
    `  Ingestion endpoint  ${core.ingestUrl}  (Segment HTTP Tracking API: /v1/track, /v1/batch, ...)`,
    ...sources.map((s) => `  Source "${s.name}"    write key ${s.writeKey}`),
    `  Test receiver       ${core.receiver.hookUrl('demo')}  (any /hooks/<name>; records and verifies what it gets)`,
    `  Data                ${dataDir}`,
    'Press Ctrl+C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function handleSignals(close: () => Promise<void>, quiet: boolean): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
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
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    if (command === undefined) process.exitCode = 2;
    return;
  }
  if (command !== 'serve') throw new UsageError(`unknown command "${command}"`);
  await serve(rest);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`sluice: invalid config ${error.message}\n`);
  } else if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`sluice: ${(error as Error).message}\n\n${USAGE}\n`);
  } else {
    process.stderr.write(`sluice: ${(error as Error).message}\n`);
  }
  process.exit(2);
});
