#!/usr/bin/env node
// `sluice`: the command. It answers --help and --version itself and loads the relay's code only for
// a command that runs (serve, check, plan, export, summary, import, doctor, transform, tail, mcp), after node-check.js has made sure
// this Node.js can run it: its own imports are Node's and a few constants, so that on an older Node.js
// the user reads one sentence, not a stack trace.
import pkg from '../package.json' with { type: 'json' };
import { DEFAULT_HOST, DEFAULT_INGEST_PORT, DEFAULT_RECEIVER_PORT, DEFAULT_UI_PORT } from '../shared/limits.ts';
import { InputError, UsageError } from './commands/command-error.ts';
import { PLAN_CODEGEN_HELP, PLAN_DIFF_HELP } from './commands/plan-tools-help.ts';
import { PLAN_COVERAGE_HELP } from './commands/plan-coverage-help.ts';
import { defaultDataDir } from './core/config/data-dir.ts';

const HELP = `Usage: sluice <command> [options]

Sluice ${pkg.version}: a local inspector and relay for analytics events. Point Segment's or
RudderStack's libraries, analytics.js or sluice/client at it; it stores every message, sends it
to your webhooks (signed, with retries) and shows it all live in your browser.

Commands:
  serve           run the relay and the inspector (sluice serve --help lists its options)
  check           check exported messages against a tracking plan, without a relay
  plan infer      write a tracking plan inferred from the messages a relay stored (or a file)
  plan import     convert a Segment Protocols or RudderStack plan to Sluice's format
  plan codegen    write a TypeScript module with a typed function per planned event
  plan diff       compare two plans: each change breaking or compatible (exit 1 on breaking, for CI)
  plan coverage   which planned events a store or an export saw, never saw, saw with violations
  export          write the stored messages as NDJSON (or webhook attempts as HAR), without a relay
  summary         Markdown tables of what a store holds: events, violations, failed deliveries (CI)
  import FILE     send exported messages, batches or a HAR of Tracking API calls to a running relay
  doctor          check a stopped Sluice's store in full; salvage a damaged one, compact a sound one
  transform test  run a destination's transform on fixtures (NAME.input.json → NAME.expected.json)
  tail            print each message a running relay stores, one line each (or NDJSON), as it comes
  mcp             a Model Context Protocol server (stdio) for coding agents: search, wait, check, replay
  help [command]  show this help, or a command's

Options:
  -h, --help      show this help
  -v, --version   print the version`;

const SERVE_HELP = `Usage: sluice serve [options]

Runs the ingestion endpoint (Segment's HTTP Tracking API), webhook delivery, the built-in test
receiver and the inspector, and prints their URLs.

Options:
  --config FILE       sources and webhook destinations (JSON; see docs/configuration.md)
  --data-dir DIR      where messages are stored (default: ${defaultDataDir()})
  --ephemeral         store in a new temporary folder, removed on exit (CI jobs, throwaway sessions)
  --ingest-port N     ingestion endpoint port (default ${DEFAULT_INGEST_PORT}; 0 = any free port)
  --ui-port N         inspector UI port (default ${DEFAULT_UI_PORT}; 0 = any free port)
  --receiver-port N   built-in webhook receiver port (default ${DEFAULT_RECEIVER_PORT}; 0 = any free port)
  --host ADDR         address to listen on (default ${DEFAULT_HOST}, loopback only)
  --new-token         replace the inspector's token (kept in DIR/inspector-token, so the inspector link
                      and the HTTP API token stay the same across restarts): earlier links stop working
  --json              print one JSON line with the URLs when ready (and one more should the store be
                      found damaged while running), nothing else on stdout
  --print             then print each message stored, one line each, as sluice tail does (not with --json)
  -h, --help          show this help`;

const CHECK_HELP = `Usage: sluice check --plan PLAN [options] FILE...

Checks messages against a tracking plan, without a relay. Each FILE (- reads stdin) holds one JSON
object per line: a message; a stored message ({"message": {...}, ...}, as the HTTP API's
GET /api/v1/messages/by-id/{messageId} and a later sluice export give); a page of the HTTP
API ({"messages": [...], "next": ...} from GET /api/v1/messages, each message checked); or a Segment
batch ({"batch": [...], "context": {...}}, its context merged into each message's). Prints one line
per violation (FILE:LINE, the message, the violation), then a summary.

Options:
  --plan PLAN                   the tracking plan: Sluice's format, or a Segment Protocols or RudderStack export
  --unplanned allow|flag|block  a track event the plan does not list: flag it as a violation (default;
                                block, a config file's word, flags it too) or allow it
  --json                        one JSON line per message with violations, then {"summary": {...}}
  -h, --help                    show this help

Exit status: 0 every message conforms (a warning on stderr when there was no message to check); 1 a
violation, a message ingestion would refuse, or a line that is not a message; 2 the check could not
run (options, plan or files).`;

const PLAN_HELP = `Usage: sluice plan <command> [options]

Tracking plans in Sluice's format: the JSON Schemas messages are checked against.

Commands:
  infer         write a plan inferred from the messages a relay stored
  import FILE   convert a Segment Protocols or RudderStack export to Sluice's format
  codegen       write a TypeScript module with a typed function per planned track event
  diff OLD NEW  classify the changes between two plans as breaking or compatible (exit 1 on breaking)
  coverage      which planned events were seen, never seen, seen with violations (CI)

sluice plan <command> --help lists a command's options.`;

const PLAN_INFER_HELP = `Usage: sluice plan infer [options]

Writes a tracking plan (Sluice's format) inferred from the messages stored in a data folder, or with
--from in a file: for each track event, and for identify, group, page and screen, a JSON Schema that
its newest examples all fit. A first draft to edit. Numbers are "number" (a whole price is still a
price). A field seen with more than one type (null is one) is left without a type, and said on
stderr with its types, how many values had each and a messageId of each: choose one in the plan.
The store is opened read-only: a running sluice serve is fine.

Options:
  --data-dir DIR   the data folder (default: ${defaultDataDir()})
  --source NAME    only the messages of this source
  --from FILE      infer from FILE instead of a store (- reads stdin): sluice export's NDJSON,
                   messages, batches, pages of the HTTP API, or a HAR (the bodies of its POSTs to
                   Tracking API paths: /v1/track, /v1/batch, /v1/identify, …)
  --examples N     the newest N messages of each event to infer from (default 200)
  --integers       "integer" for a field whose numbers were all whole
  --out FILE       write the plan to FILE (default: stdout)
  --force          replace FILE if it exists
  -h, --help       show this help`;

const PLAN_IMPORT_HELP = `Usage: sluice plan import FILE [options]

Converts a tracking plan exported from Segment Protocols (Config API, Public API, Typewriter's
plan.json) or RudderStack (tracking plan, Data Catalog) to Sluice's format, and says on stderr which
format it recognised and what it could not carry over.

Options:
  --out FILE   write the plan to FILE (default: stdout)
  --force      replace FILE if it exists
  -h, --help   show this help`;

const EXPORT_HELP = `Usage: sluice export [options]

Writes the messages stored in a data folder as NDJSON, one per line, oldest first:
{"message": {...}, "id", "messageId", "source", "type", "event", "status", "origin", "receivedAt",
"timestamp", "rejection", "violations", "blocked"}, where "message" is the message as the client sent
it (its batch's context, integrations and sentAt included; never the write key) and the rest is what
Sluice made of it. sluice import sends such a file to a relay again; sluice check checks it. The store
is opened read-only: a running sluice serve is fine; the export ends at the newest message when it starts.

Options:
  --data-dir DIR       the data folder (default: ${defaultDataDir()})
  --out FILE           write to FILE (default: stdout); --force replaces an existing FILE
  --source NAME        only the messages of this source
  --since T, --until T only messages received from / until T: an ISO date or time (2025-03-01,
                       2025-03-01T12:00:00Z; no zone is UTC) or a time ago (30m, 2h, 7d, 2w)
  --event NAME         only this track event (or page or screen name)
  --status S           only accepted, rejected or duplicate messages
  --har                instead, the webhook attempts as a HAR 1.2 document (HTTP Toolkit, browser dev
                       tools): one entry per attempt; --since/--until then bound when it was made
  --destination NAME   with --har: only the attempts to this destination
  -h, --help           show this help

Exit status: 0 exported (a summary on stderr); 2 the export could not run (options, store, file).`;

const SUMMARY_HELP = `Usage: sluice summary [options]

Prints what a data folder's store holds as Markdown tables, for a CI job's summary (append it to
$GITHUB_STEP_SUMMARY): the messages by status and type, the track events by name, the messages that
broke a tracking plan (by plan and event, then the newest with their violations) and the deliveries
that failed or are being retried (the newest, with their last error). Each table lists the rows with
the most (or the newest) first and says how many more there are. Reads only counts Sluice keeps and
indexes: as quick at a million messages. The store is opened read-only: a running sluice serve is fine.

Options:
  --data-dir DIR   the data folder (default: ${defaultDataDir()}); with sluice serve --ephemeral,
                   the ready line's "dataDir"
  --limit N        rows per table, 1 to 100 (default 10)
  --json           the same as one JSON object instead of Markdown
  -h, --help       show this help

Exit status: 0 summarised (violations and failed deliveries are reported, not an error); 2 the
summary could not be made (options, store).`;

const IMPORT_HELP = `Usage: sluice import FILE [options]

Sends messages through a running Sluice's ingestion endpoint (POST /v1/batch, in batches of at most
500 messages and 500 KB, in the file's order), where they are stored, checked and delivered as any
client's. FILE (- reads stdin) holds one JSON object per line — an exported message
({"message": {...}, ...} from sluice export), a message, a Segment batch ({"batch": [...]}, its
context, integrations and sentAt carried into each message) or a page of the HTTP API
({"messages": [...]}) — or is a HAR file: each POST to a Tracking API path (/v1/batch, /v1/track, …,
analytics.js's /v1/t) has its body sent again. Messages keep their messageIds: importing twice stores
duplicates. What Sluice made itself (audience syncs, Violation Generated events) is not sent.

Options:
  --source NAME     send with this source's write key, looked up in --data-dir's store (read-only);
                    without --source or --write-key, the store's only source
  --write-key KEY   send with this write key instead
  --url URL         the ingestion endpoint (default http://127.0.0.1:${DEFAULT_INGEST_PORT})
  --data-dir DIR    where to look the source up (default: ${defaultDataDir()})
  -h, --help        show this help

Exit status: 0 every message was accepted; 1 a message was refused (one the export says was rejected
before is only counted) or a line could not be read; 2 the import could not run (options, file, no
relay listening at URL).`;

const DOCTOR_HELP = `Usage: sluice doctor [options]

Checks a store in full (SQLite's integrity_check: every page is read) and prints what it finds: the
first 20 findings and how many there are, or that the store is sound. Stop Sluice first: doctor
refuses a folder a Sluice is running on, and no Sluice can start on it while doctor works.

Options:
  --data-dir DIR   the data folder (default: ${defaultDataDir()})
  --salvage        when the store is damaged: copy every row that can be read into a new store, which
                   takes its place, and say per table what was copied and lost; the damaged file is
                   kept beside it as sluice.db.damaged-YYYYMMDD-HHMMSS (with its -wal and -shm)
  --vacuum         when the store is sound: rewrite it compactly (VACUUM, with incremental auto-vacuum
                   so that it can shrink later as messages are pruned) and print its size before and
                   after; needs free disk space up to the store's size
  -h, --help       show this help

Exit status: 0 the store is sound (with --salvage: the new store is in place); 1 the store is
damaged (with --salvage: it could not be salvaged, and stays as it was); 2 the check could not run
(options, a folder without a store, a Sluice running on it).`;

const TRANSFORM_HELP = `Usage: sluice transform test FILE --fixtures DIR [options]

Runs a destination's transform (FILE, a JavaScript file of onTrack, onIdentify, … and onEvent
handlers) on fixtures, as a relay runs it (in a worker thread, with its time and memory limits): each
NAME.input.json in DIR (one event) is given to FILE, and what it does is held to NAME.expected.json —
the event sent (an object), the events of a fan-out (an array), null for dropped, or
{"$dropped": "text"}, {"$retry": "text"}, {"$error": "text"} for a drop, a RetryError or a failure
whose reason or message contains text. Prints one line per fixture (pass or FAIL) and, under a
failure, each difference as "field: wanted X, got Y" and the call's log lines. See docs/transforms.md.

Options:
  --fixtures DIR        the folder of NAME.input.json and NAME.expected.json pairs (required)
  --settings JSON|FILE  the settings handed to every call: a JSON object, inline or in a file
  --timeout MS          each call's time limit (default 1000)
  --update              write each NAME.expected.json from what FILE does now (review the diff)
  -h, --help            show this help

Exit status: 0 every fixture passed (or --update wrote them); 1 a fixture did not; 2 the test could
not run (options, the transform does not load, no fixtures, a fixture that is not JSON).`;

const TAIL_HELP = `Usage: sluice tail [options]

Follows a running relay and prints each message it stores, as it comes, one line each:
  14:03:07 track Order Completed · user u_1 · source web · → 2/2 delivered · 1 violation
(received, type and name, user, source, what its deliveries did, tracking-plan violations). A line is
printed once the message's first delivery attempts are over (or --settle ms after it came), so that it
says how they went; later changes (a retry that succeeds) are not printed again. The relay is the
sluice serve running on --data-dir (found through the folder), or --api URL --token T.

Options:
  --data-dir DIR   the relay's data folder (default: ${defaultDataDir()})
  --api URL        the relay's HTTP API (the "api" of sluice serve --json's ready line), with --token
  --token T        its token (the ready line's "token"; kept in DIR/inspector-token)
  --search QUERY   only the messages that match: the inspector's search language, e.g.
                   'event:"Order Completed"', 'status:failed', 'userId:u_* -type:identify'
  --since T        start with the messages received from T: a time ago (30s, 10m, 2h, 1d) or an
                   ISO date or time (no zone is UTC); without it, with the next message
  --settle MS      how long a line waits for its deliveries' first attempts, 0 to 60000 (default 2000;
                   0 prints each message as soon as it is stored)
  --json           one JSON object per line instead: {"message": …, "deliveries": […]}, the message
                   as the HTTP API shows it and its deliveries (one per destination)
  -h, --help       show this help

Exit status: 0 stopped with Ctrl+C, or the relay stopped (said on stderr); 2 tail could not start
(options, no relay running for the folder, a token the relay refuses).`;

const MCP_HELP = `Usage: sluice mcp [options]

A Model Context Protocol server over stdin/stdout, for a coding agent (Claude Code, Cursor, VS Code…):
tools to search the stored messages, wait for one, read its deliveries and attempts, check an event
against the tracking plans and explain a message's violations — over a running relay's HTTP API.
Configure it in the agent as the command \`npx sluice mcp\`; see docs/agents.md.

Options:
  --data-dir DIR      use the relay running on this data folder (default: ${defaultDataDir()}):
                      where it listens and its token are read there, again for each call
  --api URL --token T use the relay whose HTTP API is at URL (sluice serve --json's "api", "token")
  --ephemeral         start a relay for this session (sluice serve --ephemeral), stopped on exit; with
                      --config, --ingest-port, --ui-port, --receiver-port as serve takes them. Where it
                      listens is said on stderr
  --allow-write       also the tools that change things: replay, send_test_event, reset
  -h, --help          show this help

stdout carries the protocol only; messages for people go to stderr. Exit status: 0 the client closed
the connection; 2 the server could not start (options, the ephemeral relay).`;

/** Each command's help, by what follows `sluice help`. */
const HELPS: Record<string, string> = {
  doctor: DOCTOR_HELP,
  serve: SERVE_HELP,
  check: CHECK_HELP,
  plan: PLAN_HELP,
  'plan infer': PLAN_INFER_HELP,
  'plan import': PLAN_IMPORT_HELP,
  'plan codegen': PLAN_CODEGEN_HELP,
  'plan diff': PLAN_DIFF_HELP,
  'plan coverage': PLAN_COVERAGE_HELP,
  export: EXPORT_HELP,
  summary: SUMMARY_HELP,
  import: IMPORT_HELP,
  transform: TRANSFORM_HELP,
  'transform test': TRANSFORM_HELP,
  tail: TAIL_HELP,
  mcp: MCP_HELP,
};

/** A command line the CLI cannot take; the message is a sentence for the user. */
class CommandError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === '-v' || command === '--version' || command === 'version') {
    process.stdout.write(`${pkg.version}\n`);
    return;
  }
  if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
    const topic = command === 'help' && rest.length > 0 ? rest.join(' ') : undefined;
    if (topic !== undefined && HELPS[topic] === undefined) throw new CommandError(`unknown command "${topic}"`);
    process.stdout.write(`${topic !== undefined ? HELPS[topic] : HELP}\n`);
    if (command === undefined) process.exitCode = 2;
    return;
  }
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  if (command === 'check') {
    if (wantsHelp) return void process.stdout.write(`${CHECK_HELP}\n`);
    return runCommand(CHECK_HELP, async () => (await import('./commands/check.ts')).check(rest));
  }
  if (command === 'export' || command === 'import') {
    const help = command === 'export' ? EXPORT_HELP : IMPORT_HELP;
    if (wantsHelp) return void process.stdout.write(`${help}\n`);
    return runCommand(help, async () =>
      command === 'export' ? (await import('./commands/export.ts')).exportCommand(rest) : (await import('./commands/import.ts')).importCommand(rest),
    );
  }
  if (command === 'summary') {
    if (wantsHelp) return void process.stdout.write(`${SUMMARY_HELP}\n`);
    return runCommand(SUMMARY_HELP, async () => (await import('./commands/summary.ts')).summaryCommand(rest));
  }
  if (command === 'transform') {
    if (wantsHelp || rest.length === 0) {
      process.stdout.write(`${TRANSFORM_HELP}\n`);
      if (rest.length === 0) process.exitCode = 2;
      return;
    }
    return runCommand(TRANSFORM_HELP, async () => (await import('./commands/transform.ts')).transformCommand(rest));
  }
  if (command === 'tail') {
    if (wantsHelp) return void process.stdout.write(`${TAIL_HELP}\n`);
    return runCommand(TAIL_HELP, async () => (await import('./commands/tail.ts')).tailCommand(rest));
  }
  if (command === 'mcp') {
    if (wantsHelp) return void process.stdout.write(`${MCP_HELP}\n`);
    return runCommand(MCP_HELP, async () => (await import('./commands/mcp.ts')).mcpCommand(rest));
  }
  if (command === 'doctor') {
    if (wantsHelp) return void process.stdout.write(`${DOCTOR_HELP}\n`);
    return runCommand(DOCTOR_HELP, async () => (await import('./commands/doctor.ts')).doctor(rest));
  }
  if (command === 'plan') {
    const [sub, ...args] = rest;
    if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
      process.stdout.write(`${PLAN_HELP}\n`);
      if (sub === undefined) process.exitCode = 2;
      return;
    }
    const help = HELPS[`plan ${sub}`];
    if (help === undefined) fail(`unknown command "plan ${sub}"\n\n${PLAN_HELP}`);
    if (wantsHelp) return void process.stdout.write(`${help}\n`);
    if (sub === 'codegen') return runCommand(help, async () => (await import('./commands/plan-codegen.ts')).codegen(args));
    if (sub === 'diff') return runCommand(help, async () => (await import('./commands/plan-diff.ts')).planDiff(args));
    if (sub === 'coverage') return runCommand(help, async () => (await import('./commands/plan-coverage.ts')).coverage(args));
    return runCommand(help, async () => {
      const plan = await import('./commands/plan.ts');
      return sub === 'infer' ? plan.infer(args) : plan.importPlan(args);
    });
  }
  if (command !== 'serve') throw new CommandError(`unknown command "${command}"`);
  if (wantsHelp) {
    process.stdout.write(`${SERVE_HELP}\n`);
    return;
  }
  (await import('./host/node-check.js')).exitIfNodeTooOld('relay');
  const relay = await import('./commands/serve.ts');
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

/**
 * Runs a command other than serve: after the Node.js check (they read plans with the relay's code and
 * stores with node:sqlite), with its exit code; a command line or input it cannot use is one sentence.
 */
async function runCommand(help: string, run: () => Promise<number>): Promise<void> {
  (await import('./host/node-check.js')).exitIfNodeTooOld('command');
  try {
    process.exitCode = await run();
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) fail(`${(error as Error).message}\n\n${help}`);
    if (error instanceof InputError) fail((error as Error).message);
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
