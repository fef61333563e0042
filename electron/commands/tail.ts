/**
 * `sluice tail`: follows a running relay — found through its data folder (`relay.json`, written by
 * `sluice serve`: host/relay-file.ts; the token in `inspector-token`) or given as `--api URL --token T`
 * — over its HTTP API's stream (`GET /api/v1/messages/stream`, host/message-stream.ts), and prints each
 * new message as one line (message-line.ts) or, with --json, as the stream's own NDJSON line. Ends with
 * exit 0 on Ctrl+C and when the relay stops (saying so on stderr).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { IncomingMessage } from 'node:http';
import { http } from '../core/node-http.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { parseWhen, WHEN_FORMS } from '../core/transfer/when.ts';
import { parseQuery, QueryError } from '../../shared/message-query.ts';
import { TOKEN_FILE } from '../host/inspector-token.ts';
import { RELAY_FILE } from '../host/relay-file.ts';
import type { FollowedMessage } from '../core/queries/message-follow.ts';
import { messageLine } from './message-line.ts';
import { InputError, UsageError } from './command-error.ts';
import { findRelay, type Relay } from './find-relay.ts';

/** The most --settle may be, as the stream takes it (core/queries/message-follow.ts MAX_SETTLE_MS). */
const MAX_SETTLE_MS = 60_000;

export async function tailCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string' },
      api: { type: 'string' },
      token: { type: 'string' },
      json: { type: 'boolean', default: false },
      search: { type: 'string' },
      since: { type: 'string' },
      settle: { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`tail takes no file or word of its own (got ${positionals.map((p) => JSON.stringify(p)).join(', ')}); a search goes in --search "…"`);
  for (const name of ['data-dir', 'api', 'token', 'search', 'since', 'settle'] as const) {
    if (values[name] === '') throw new UsageError(`--${name} needs a value`);
  }
  if ((values.api === undefined) !== (values.token === undefined)) throw new UsageError('--api and --token go together: the relay\'s HTTP API URL and its token (or neither, to find the relay through --data-dir)');
  if (values.api !== undefined && values['data-dir'] !== undefined) throw new UsageError('give --data-dir (a relay found through its folder) or --api and --token, not both');
  const params = new URLSearchParams();
  if (values.search !== undefined) {
    try {
      parseQuery(values.search);
    } catch (error) {
      if (error instanceof QueryError) throw new UsageError(`--search: ${error.message}`);
      throw error;
    }
    params.set('search', values.search);
  }
  if (values.since !== undefined) {
    const ms = parseWhen(values.since, Date.now());
    if (ms === undefined) throw new UsageError(`--since must be ${WHEN_FORMS}; not "${values.since}"`);
    params.set('since', String(ms));
  }
  if (values.settle !== undefined) {
    if (!/^\d{1,6}$/.test(values.settle) || Number(values.settle) > MAX_SETTLE_MS) throw new UsageError(`--settle must be a whole number of ms from 0 to ${MAX_SETTLE_MS}, not "${values.settle}"`);
    params.set('settleMs', values.settle);
  }
  const relay = values.api !== undefined ? { api: values.api.replace(/\/+$/, ''), token: values.token! } : findRelay(values['data-dir'] ?? defaultDataDir());
  return follow(relay, params, values.json);
}

/** Prints the stream until it ends (0), Ctrl+C (0) or a failure (an InputError). */
function follow(relay: Relay, params: URLSearchParams, json: boolean): Promise<number> {
  const query = params.size > 0 ? `?${params}` : '';
  let url: URL;
  try {
    url = new URL(`${relay.api}/messages/stream${query}`);
  } catch {
    throw new UsageError(`--api must be the relay's HTTP API URL, e.g. http://127.0.0.1:4000/api/v1; not "${relay.api}"`);
  }
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (code: number, error?: Error) => {
      if (done) return;
      done = true;
      process.off('SIGINT', interrupted);
      request.destroy();
      if (error) reject(error);
      else resolve(code);
    };
    const interrupted = () => finish(0);
    process.on('SIGINT', interrupted);
    process.stdout.on('error', (error: NodeJS.ErrnoException) => finish(error.code === 'EPIPE' ? 0 : 1)); // `sluice tail | head`
    const stopped = () => {
      if (done) return;
      process.stderr.write(`sluice: the relay at ${relay.api} stopped\n`);
      finish(0);
    };
    /** The stream was answered: from then on a broken connection is the relay going away. */
    let following = false;
    const request = http.get(url, { headers: { authorization: `Bearer ${relay.token}` } }, (res) => {
      if (res.statusCode !== 200) return void refusal(res, relay).then((error) => finish(2, error));
      following = true;
      process.stderr.write(`sluice: following the relay at ${relay.api} (Ctrl+C to stop)\n`);
      readLines(res, json).then(
        (failure) => {
          if (!failure) return stopped();
          // Exit 1 (it had started; 2 is "could not start"), with the relay's sentence.
          process.stderr.write(`sluice: the relay's stream failed: ${failure}\n`);
          finish(1);
        },
        () => stopped(),
      );
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (done) return;
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EHOSTUNREACH') return finish(2, new InputError(unreachable(relay)));
      // Before any answer (a reset, a timeout, a port that does not speak HTTP): it could not follow, exit 2
      // (before 2026-12-01 this said "the relay stopped" and exited 0).
      if (!following) return finish(2, new InputError(`could not follow the relay at ${relay.api}: ${error.code ?? error.message} before it answered — is that address its HTTP API?`));
      stopped(); // the connection broke once the stream was open: the relay went away
    });
  });
}

/** Writes each line of the stream; resolves at its end, with the relay's sentence if it ended on a failure. */
async function readLines(res: IncomingMessage, json: boolean): Promise<string | undefined> {
  let rest = '';
  res.setEncoding('utf8');
  for await (const chunk of res as AsyncIterable<string>) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    let out = '';
    for (const line of lines) {
      if (line === '') continue;
      const parsed = JSON.parse(line) as FollowedMessage | { error: { message: string } };
      if ('error' in parsed) return parsed.error.message;
      out += `${json ? line : messageLine(parsed)}\n`;
    }
    if (out !== '' && !process.stdout.write(out)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  }
  return undefined;
}

function unreachable(relay: Relay): string {
  if (relay.foundIn) {
    const { dataDir, pid } = relay.foundIn;
    return `the relay recorded in ${path.join(dataDir, RELAY_FILE)} (process ${pid}, ${relay.api}) does not answer: it may be starting or stopping; if process ${pid} is not a sluice serve, start sluice serve --data-dir ${dataDir} again`;
  }
  return `nothing answers at ${relay.api}: is sluice serve running there? (its --json ready line gives "api" and "token")`;
}

/** The relay refused the stream: its sentence, as an error (a wrong token says which to use). */
async function refusal(res: IncomingMessage, relay: Relay): Promise<Error> {
  let body = '';
  for await (const chunk of res) body += String(chunk);
  let message = `HTTP ${res.statusCode}`;
  try {
    message = (JSON.parse(body) as { error: { message: string } }).error.message;
  } catch {
    // not the API's JSON: the status says it
  }
  if (res.statusCode === 401) {
    const where = relay.foundIn ? `the token in ${path.join(relay.foundIn.dataDir, TOKEN_FILE)} was refused` : 'the relay refused --token';
    return new InputError(`${where}: ${message}`);
  }
  if (res.statusCode === 404) return new InputError(`${relay.api} has no message stream (${message}): is it a Sluice this recent, and the /api/v1 URL?`);
  return new InputError(`the relay refused the stream: ${message}`);
}
