#!/usr/bin/env node
// `sluice`: the command. It answers --help and --version itself and loads the relay only for
// `serve`, after node-check.js has made sure this Node.js can run it: its own imports are Node's
// and a few constants, so that on an older Node.js the user reads one sentence, not a stack trace.
import pkg from '../package.json' with { type: 'json' };
import { DEFAULT_HOST, DEFAULT_INGEST_PORT, DEFAULT_RECEIVER_PORT, DEFAULT_UI_PORT } from '../shared/limits.ts';
import { defaultDataDir } from './core/config/data-dir.ts';

const HELP = `Usage: sluice <command> [options]

Sluice ${pkg.version}: a local inspector and relay for analytics events. Point Segment's or
RudderStack's libraries, analytics.js or sluice/client at it; it stores every message, sends it
to your webhooks (signed, with retries) and shows it all live in your browser.

Commands:
  serve           run the relay and the inspector (sluice serve --help lists its options)
  help [command]  show this help, or a command's

Options:
  -h, --help      show this help
  -v, --version   print the version`;

const SERVE_HELP = `Usage: sluice serve [options]

Runs the ingestion endpoint (Segment's HTTP Tracking API), webhook delivery, the built-in test
receiver and the inspector, and prints their URLs.

Options:
  --config FILE       sources and webhook destinations (JSON; see README "Configuration")
  --data-dir DIR      where messages are stored (default: ${defaultDataDir()})
  --ephemeral         store in a new temporary folder, removed on exit (CI jobs, throwaway sessions)
  --ingest-port N     ingestion endpoint port (default ${DEFAULT_INGEST_PORT}; 0 = any free port)
  --ui-port N         inspector UI port (default ${DEFAULT_UI_PORT}; 0 = any free port)
  --receiver-port N   built-in webhook receiver port (default ${DEFAULT_RECEIVER_PORT}; 0 = any free port)
  --host ADDR         address to listen on (default ${DEFAULT_HOST}, loopback only)
  --json              print one JSON line with the URLs when ready, nothing else on stdout
  -h, --help          show this help`;

/** A command line the CLI cannot take; the message is a sentence for the user. */
class CommandError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === '-v' || command === '--version' || command === 'version') {
    process.stdout.write(`${pkg.version}\n`);
    return;
  }
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    const topic = command === 'help' ? rest[0] : undefined;
    if (topic !== undefined && topic !== 'serve') throw new CommandError(`unknown command "${topic}"`);
    process.stdout.write(`${topic === 'serve' ? SERVE_HELP : HELP}\n`);
    if (command === undefined) process.exitCode = 2;
    return;
  }
  if (command !== 'serve') throw new CommandError(`unknown command "${command}"`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${SERVE_HELP}\n`);
    return;
  }
  await import('./node-check.js');
  const relay = await import('./headless/serve.ts');
  try {
    await relay.serve(rest);
  } catch (error) {
    if (error instanceof relay.ConfigError) fail(`invalid config ${error.message}`);
    if (error instanceof relay.UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      fail(`${(error as Error).message}\n\n${SERVE_HELP}`);
    }
    throw error;
  }
}

function fail(message: string): never {
  process.stderr.write(`sluice: ${message}\n`);
  process.exit(2);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  fail(error instanceof CommandError ? `${error.message}\n\n${HELP}` : (error as Error).message);
});
