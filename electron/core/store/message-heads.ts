// What a commit's messages hold, read for a test's pending waits (queries/waits.ts): the columns that
// tell which waits a message may satisfy, and which of a commit's messages hold a value some wait is
// filed by — read by id range (one commit's ids are near each other), without payloads.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { MessageStatus } from '../../../shared/messages.ts';

/** A message's id, status, type, event, userId, anonymousId and messageId columns (MessageHeads.heads). */
export type MessageHead = [id: number, status: MessageStatus, type: string | null, event: string | null, userId: string | null, anonymousId: string | null, messageId: string | null];

/** Column values a test's waits are filed by (MessageHeads.idsHolding). */
export interface HeldValues {
  messageIds: string[];
  userIds: string[];
  anonymousIds: string[];
  events: string[];
  /** Messages other than tracks too (a wait filed by event: another type may carry an `event` member). */
  otherTypes: boolean;
}

export class MessageHeads {
  readonly #db: DatabaseSync;
  #heads: StatementSync | undefined;
  #holding: StatementSync | undefined;

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  /**
   * What tells which of a test's waits a message may satisfy, for these ids (one commit's: near each
   * other), in id order: [id, status, type, event, userId, anonymousId, messageId]. Arrays, read by range:
   * about a microsecond a row.
   */
  heads(ids: ArrayLike<number>): MessageHead[] {
    if (ids.length === 0) return [];
    const { min, max, wanted } = idRange(ids);
    if (!this.#heads) {
      this.#heads = this.#db.prepare('SELECT id, status, type, event, user_id, anonymous_id, message_id FROM messages WHERE id BETWEEN ? AND ? ORDER BY id');
      this.#heads.setReturnArrays(true);
    }
    // Far apart (ids of several commits): the range holds other rows too, left out here.
    return (this.#heads.all(min, max) as unknown as MessageHead[]).filter((row) => wanted.has(row[0]));
  }

  /**
   * Of these messages (one commit's: ids near each other), those whose columns hold one of these values
   * — or that are refused (their columns are what ingestion could read), or, with `otherTypes`, not a
   * track — in id order: which of a commit's messages a test's waits may want, tested in SQL (a
   * fraction of a microsecond a row) rather than each row read.
   */
  idsHolding(ids: ArrayLike<number>, values: HeldValues): number[] {
    if (ids.length === 0) return [];
    const { min, max, wanted } = idRange(ids);
    this.#holding ??= this.#db.prepare(
      `SELECT id FROM messages WHERE id BETWEEN ? AND ? AND (status = 'rejected'
         OR message_id IN (SELECT value FROM json_each(?)) OR user_id IN (SELECT value FROM json_each(?))
         OR anonymous_id IN (SELECT value FROM json_each(?)) OR (type = 'track' AND event IN (SELECT value FROM json_each(?)))
         OR (? AND type IS NOT 'track')) ORDER BY id`,
    );
    const json = (list: string[]) => JSON.stringify(list);
    const rows = this.#holding.all(min, max, json(values.messageIds), json(values.userIds), json(values.anonymousIds), json(values.events), values.otherTypes ? 1 : 0) as { id: number }[];
    return rows.flatMap((row) => (wanted.has(row.id) ? [row.id] : []));
  }

}

/** The smallest and largest of these ids, and the ids as a set (a read by range keeps only these). */
export function idRange(ids: ArrayLike<number>): { min: number; max: number; wanted: Set<number> } {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < ids.length; i++) {
    min = Math.min(min, ids[i]!);
    max = Math.max(max, ids[i]!);
  }
  return { min, max, wanted: new Set(Array.from(ids)) };
}

