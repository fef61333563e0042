/**
 * The stored messages `sluice plan infer` learns from, read from a data folder's store opened
 * read-only: a relay may be serving from that folder at the same time (WAL lets a reader in beside the
 * writer, and a read-only connection can neither take the write lock nor migrate the store).
 */
import fs from 'node:fs';
import path from 'node:path';
import { databaseFile } from '../core/store/database.ts';
import { CHECKED_MESSAGES } from '../core/store/plan-stats.ts';
import type { DatabaseSync } from '../core/store/sqlite.ts';
import { openReadOnly } from '../core/store/connection.ts';
import { InputError } from './command-error.ts';

/** The message types a plan describes (shared/tracking-plan.ts); alias has nothing to check. */
const PLANNED_TYPES = ['track', 'identify', 'group', 'page', 'screen'];

export interface StoredExample {
  type: string;
  event: string | null;
  messageId: string | null;
  properties?: unknown;
  traits?: unknown;
}

export interface Examples {
  /** The newest `perEvent` of each track event and of each other type, oldest first. */
  messages: StoredExample[];
  /** The source they came from, when one was asked for. */
  source: string | null;
}

/**
 * Reads the examples: the messages a plan checks (CHECKED_MESSAGES, as the inspector's Add to plan):
 * accepted ones (a duplicate is a copy, a rejected one never met a plan) that a client sent, never
 * what Sluice makes itself (an audience sync's identifies, Violation Generated events). A plan
 * describes what the source's own code sends. Whole-store, newest per event, unlike Add to plan's one event.
 */
export function readExamples(dataDir: string, options: { source?: string; perEvent: number }): Examples {
  const file = databaseFile(dataDir);
  if (!fs.existsSync(file)) throw new InputError(`no Sluice store in ${dataDir} (there is no ${path.basename(file)}): run sluice serve first, or give --data-dir`);
  let db: DatabaseSync;
  try {
    db = openReadOnly(file); // on read-only media too
  } catch (error) {
    throw new InputError(`cannot open the store ${file}: ${(error as Error).message}`);
  }
  try {
    if (!db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'messages'").get()) {
      throw new InputError(`${file} is not a Sluice store (it has no messages): run sluice serve on ${dataDir} first, or give --data-dir`);
    }
    let sourceId: number | null = null;
    if (options.source !== undefined) {
      const sources = db.prepare('SELECT id, name FROM sources ORDER BY name').all() as { id: number; name: string }[];
      const found = sources.find((s) => s.name === options.source);
      if (!found) {
        const known = sources.length > 0 ? `its sources are ${sources.map((s) => JSON.stringify(s.name)).join(', ')}` : 'it has no sources';
        throw new InputError(`there is no source ${JSON.stringify(options.source)} in ${dataDir}: ${known}`);
      }
      sourceId = found.id;
    }
    return { messages: newest(db, sourceId, options.perEvent), source: options.source ?? null };
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`cannot read the store ${file}: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * The newest `limit` messages per track event name and per other type. The ranking sorts ids only;
 * `raw` is read just for the rows kept, so a store of millions of messages is not sorted with its text.
 */
function newest(db: DatabaseSync, sourceId: number | null, limit: number): StoredExample[] {
  const types = PLANNED_TYPES.map(() => '?').join(', ');
  const rows = db
    .prepare(
      `SELECT m.type, m.event, m.message_id, m.raw FROM messages m JOIN (
         SELECT id FROM (
           SELECT id, row_number() OVER (PARTITION BY type, CASE WHEN type = 'track' THEN event END ORDER BY id DESC) AS n
           FROM messages
           WHERE ${CHECKED_MESSAGES} AND type IN (${types}) ${sourceId !== null ? 'AND source_id = ?' : ''}
         ) WHERE n <= ?
       ) k ON k.id = m.id
       ORDER BY m.id`,
    )
    .all(...PLANNED_TYPES, ...(sourceId !== null ? [sourceId] : []), limit) as { type: string; event: string | null; message_id: string | null; raw: string }[];
  const out: StoredExample[] = [];
  for (const row of rows) {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(row.raw) as Record<string, unknown>;
    } catch {
      continue; // ingestion stores only what parsed; a row that does not is no example of anything
    }
    out.push({ type: row.type, event: row.event, messageId: row.message_id, properties: message.properties, traits: message.traits });
  }
  return out;
}
