/**
 * The relay a command given only a data folder uses — `sluice tail`, `sluice mcp` — found as `sluice
 * serve` left it there: where its HTTP API listens in `relay.json` (host/relay-file.ts), its token in
 * `inspector-token`. An InputError says why when no relay runs on the folder, and what to do.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TOKEN_FILE } from '../host/inspector-token.ts';
import { processExists, readRelayFile, RELAY_FILE } from '../host/relay-file.ts';
import { InputError } from './command-error.ts';

export interface Relay {
  api: string;
  token: string;
  /** How the relay was found, for the sentences that say it cannot be reached. */
  foundIn?: { dataDir: string; pid: number };
}

/** The relay serving `dataDir`, from its relay.json and token file; an InputError that says why when none runs. */
export function findRelay(dataDir: string): Relay {
  const folder = path.resolve(dataDir);
  const record = readRelayFile(folder);
  if (!record) {
    const why = fs.existsSync(folder) ? `no sluice serve is running on the data folder ${folder} (it has no ${RELAY_FILE})` : `there is no data folder ${folder}`;
    throw new InputError(`${why}; start one with sluice serve --data-dir ${folder}, or give --api URL --token T`);
  }
  if (!processExists(record.pid)) {
    throw new InputError(`no sluice serve is running on ${folder}: its ${RELAY_FILE} names process ${record.pid}, which has exited without stopping cleanly; start sluice serve --data-dir ${folder} again`);
  }
  let token: string;
  try {
    token = fs.readFileSync(path.join(folder, TOKEN_FILE), 'utf8').trim();
  } catch (error) {
    throw new InputError(`cannot read the relay's token in ${path.join(folder, TOKEN_FILE)}: ${(error as Error).message}; give --api ${record.api} --token T instead`);
  }
  return { api: record.api, token, foundIn: { dataDir: folder, pid: record.pid } };
}
