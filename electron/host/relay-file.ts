// Where a running `sluice serve` can be reached, kept in its data folder (`relay.json`, owner-only) so
// that a command given only the folder — `sluice tail` — finds the HTTP API (its port may be any free
// one). Written once the inspector's server listens (whole: core/whole-file.ts),
// removed when serve stops cleanly. A file left by a serve that was killed names a pid that is gone
// (or an address nobody answers on): readers say so rather than trusting it. The token is not in it:
// it stays in `inspector-token` alone (inspector-token.ts).
import fs from 'node:fs';
import path from 'node:path';
import { writeWholeFile } from '../core/whole-file.ts';

export const RELAY_FILE = 'relay.json';

export interface RelayAddress {
  /** The serving process. */
  pid: number;
  /** The HTTP API's base URL (`…/api/v1`). */
  api: string;
  /** The ingestion endpoint's URL. */
  ingest: string;
  /** When it started (ISO 8601). */
  startedAt: string;
}

/** Records where this process serves `dataDir`; returns the function that removes the record again. */
export function writeRelayFile(dataDir: string, address: Omit<RelayAddress, 'pid' | 'startedAt'>): () => void {
  const file = path.join(dataDir, RELAY_FILE);
  const record: RelayAddress = { pid: process.pid, ...address, startedAt: new Date().toISOString() };
  try {
    // Not flushed to disk: it describes this run, which a machine's crash ends anyway.
    writeWholeFile(file, `${JSON.stringify(record)}\n`, { durable: false });
  } catch (error) {
    throw new Error(`cannot write ${file} (where sluice tail finds this relay): ${(error as Error).message}`);
  }
  return () => {
    // Only our own record: a later serve on the folder (after a crash of this one) wrote its own.
    if (readRelayFile(dataDir)?.pid === process.pid) fs.rmSync(file, { force: true });
  };
}

/** The recorded address, or null when there is none (or it is not a record this code wrote). */
export function readRelayFile(dataDir: string): RelayAddress | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dataDir, RELAY_FILE), 'utf8');
  } catch {
    return null;
  }
  try {
    const record = JSON.parse(text) as Partial<RelayAddress>;
    if (typeof record.pid !== 'number' || typeof record.api !== 'string' || typeof record.ingest !== 'string') return null;
    return { pid: record.pid, api: record.api, ingest: record.ingest, startedAt: String(record.startedAt ?? '') };
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (no signal is sent). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // exists, someone else's
  }
}
