// What a test's view of a stored message is made from (queries/test-message.ts): its columns, its text
// exactly as received, its request's envelope (the batch-level context, integrations and sentAt it takes)
// and its violations as stored — without the normalized message MessagesRepo.get derives for delivery
// (Segment's fields filled in, context.ip, the corrected timestamp), which a test's view does not show
// and which cost about half of each read. And the newest messages, which a wait that timed out compares
// with what it asked, in one statement. Both are prepared with the store, so that the first timeout
// answer pays no prepare. The envelope comes in the same statement, by the requests row's primary key.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { COLUMNS, fromRow, type MessageRow, type StoredMessage } from './messages-repo.ts';

/** A message's row with its text, its request's envelope and its violations' JSON, none parsed. */
export interface MessageText extends StoredMessage {
  raw: string;
  /** Its request's batch-level fields as stored (JSON: store/normalize.ts BatchEnvelope), null when it has none or no request. */
  envelope: string | null;
  /** The violations as stored (a JSON array), null when there are none. */
  violationsJson: string | null;
}

type TextRow = MessageRow & { raw: string; envelope: string | null; violations: string | null };

function textOf(row: TextRow): MessageText {
  return { ...fromRow(row), raw: row.raw, envelope: row.envelope, violationsJson: row.violations };
}

const FROM = `SELECT ${COLUMNS}, m.raw, r.envelope, m.violations FROM messages m LEFT JOIN requests r ON r.id = m.request_id`;

export class MessageTexts {
  readonly #text: StatementSync;
  readonly #latest: StatementSync;

  constructor(db: DatabaseSync) {
    this.#text = db.prepare(`${FROM} WHERE m.id = ?`);
    this.#latest = db.prepare(`${FROM} ORDER BY m.id DESC LIMIT ?`);
  }

  /** The message with this row id, or undefined when it is no longer stored. */
  text(id: number): MessageText | undefined {
    const row = this.#text.get(id) as TextRow | undefined;
    return row ? textOf(row) : undefined;
  }

  /** The newest `limit` messages, oldest first (read down the rowid: no scan). */
  latest(limit: number): MessageText[] {
    return (this.#latest.all(limit) as unknown as TextRow[]).map(textOf).reverse();
  }
}
