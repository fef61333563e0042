// A delivery's body recorded by reference (deliveries.body_shape, migration 27): when the body a round
// sent is what the body builder makes of the delivery's stored message in a shape — no filter, no
// transform, no body of its own — the writer records the shape, not a copy of the message; reads build
// it again here. The builder is deterministic (a stored message and its request never change; the body
// is JSON.stringify(webhookBody(normalizedMessage(row), shape)), as delivery/body.ts builds it), so what
// is read is byte for byte what was sent. A purged message takes its deliveries' bodies with it, as
// the purge clears a body stored whole; a salvage keeps by reference only the bodies whose message and
// request it kept (store/salvage.ts).
//
// The bytes a shape makes of a stored message are part of the store's format: what normalizeMessage
// (store/normalize.ts: the merged context, the corrected timestamp) and webhookBody (shared/webhook-body.ts)
// make of it. A change to either would change what older deliveries say they sent, and fail the test that
// pins each shape's bytes (delivery-bodies-by-reference.test.ts): such a change is a new shape name, with
// the old one still built as before, not an edit.
import type { DatabaseSync } from 'node:sqlite';
import { webhookBody, type BodyShape } from '../../../shared/webhook-body.ts';
import { MessagesRepo, normalizedMessage, type MessagePayload } from './messages-repo.ts';

/**
 * A body recorded by reference, built again from its message's stored payload; null for a rejected
 * message, or one that cannot be read (damaged: its round failed saying so, and sent nothing).
 */
export function bodyOfMessage(payload: MessagePayload, shape: BodyShape): string | null {
  try {
    const message = normalizedMessage(payload);
    return message ? JSON.stringify(webhookBody(message, shape)) : null;
  } catch {
    return null;
  }
}

/** Whether this store records bodies by reference: one written before migration 27 (read without migrating it, or salvaged from) has no `body_shape`. */
export function recordsBodyShapes(db: DatabaseSync): boolean {
  return db.prepare("SELECT 1 FROM pragma_table_info('deliveries') WHERE name = 'body_shape'").get() !== undefined;
}

/** What a read of deliveries needs to fill in their bodies recorded by reference. */
export interface RecordedBody {
  /** The delivery's message (its row id); null once purged. */
  messageId: number | null;
  body: string | null;
  bodyShape: BodyShape | null;
}

/**
 * Fills in the bodies of these deliveries that were recorded by reference, reading their messages in
 * one query; the others are left as they are. A read of a page of deliveries: bounded by its caller,
 * and in the same snapshot as the rows (a purged message's id may be a new message's by the next read).
 */
export function recordedBodies(db: DatabaseSync): <T extends RecordedBody>(rows: T[]) => T[] {
  const messages = new MessagesRepo(db);
  return (rows) => {
    const wanted = rows.filter((row) => row.body === null && row.bodyShape !== null && row.messageId !== null);
    if (wanted.length === 0) return rows;
    const payloads = messages.payloads([...new Set(wanted.map((row) => row.messageId!))]);
    for (const row of wanted) {
      const payload = payloads.get(row.messageId!);
      row.body = payload ? bodyOfMessage(payload, row.bodyShape!) : null;
    }
    return rows;
  };
}
