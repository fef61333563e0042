// What a test's view of a stored message is made from (queries/test-queries.ts): its columns, its text
// exactly as received and its violations as stored — without the normalized message MessagesRepo.get
// derives for delivery (the text and the request's envelope parsed, Segment's fields filled in), which a
// test's view does not show and which cost about half of each read. And the newest messages, which a
// wait that timed out compares with what it asked, in one statement. Both are prepared with the store,
// so that the first timeout answer pays no prepare.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { COLUMNS, fromRow, type MessageRow, type StoredMessage } from './messages-repo.ts';

/** A message's row with its text and its violations' JSON, neither parsed. */
export interface MessageText extends StoredMessage {
  raw: string;
  /** The violations as stored (a JSON array), null when there are none. */
  violationsJson: string | null;
}

type TextRow = MessageRow & { raw: string; violations: string | null };

function textOf(row: TextRow): MessageText {
  return { ...fromRow(row), raw: row.raw, violationsJson: row.violations };
}

export class MessageTexts {
  readonly #text: StatementSync;
  readonly #latest: StatementSync;

  constructor(db: DatabaseSync) {
    this.#text = db.prepare(`SELECT ${COLUMNS}, m.raw, m.violations FROM messages m WHERE m.id = ?`);
    this.#latest = db.prepare(`SELECT ${COLUMNS}, m.raw, m.violations FROM messages m ORDER BY m.id DESC LIMIT ?`);
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
