import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryHours } from './delivery-hours.ts';
import type { DeliveredPayload } from './messages-repo.ts';
import type { CommittedRequest, PreparedMessage, PreparedRequest, RejectedEntry } from './stored-request.ts';

/**
 * Stores one ingestion request in the caller's transaction: its `requests` row, a row per message
 * (accepted, duplicate or rejected, with the reason) and, for each accepted message, a delivery per
 * destination its source routes to — so no stored message is ever without its deliveries. The
 * store's writer runs it (writer-worker.ts), and counts the deliveries made in `hours`, which it writes
 * when the group commits (delivery-hours.ts).
 */
export function requestStorer(
  db: DatabaseSync,
  hours: DeliveryHours,
): (prepared: PreparedRequest, destinations: readonly number[] | undefined, forwarding?: ReadonlySet<number>) => CommittedRequest {
  const insertRequest = db.prepare(
    'INSERT INTO requests (source_id, endpoint, received_at, sent_at, ip, envelope) VALUES (?, ?, ?, ?, ?, ?)',
  );
  // OR IGNORE only ever fires on messages_dedupe: an accepted id this source has sent before.
  const insertAccepted = db.prepare(
    `INSERT OR IGNORE INTO messages (request_id, source_id, message_id, type, status, user_id, anonymous_id, event,
       received_at, timestamp, raw, violations, blocked, origin, warning) VALUES (?, ?, ?, ?, 'accepted', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertOther = db.prepare(
    `INSERT INTO messages (request_id, source_id, message_id, type, status, reject_code, reject_reason, user_id,
       anonymous_id, event, received_at, timestamp, raw, violations, warning) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  // Violation Generated events (plans/violation-event.ts) are not the violating request's: its
  // batch-level context, integrations and sentAt are not theirs. They belong to no request, or, when
  // that request came through other Sluices, to one of their own that carries only its loop chain
  // (endpoint "plan"), with which they are forwarded.
  const insertGenerated = db.prepare(
    `INSERT INTO messages (request_id, source_id, message_id, type, status, user_id, anonymous_id, event, received_at, timestamp, raw, origin)
     VALUES (?, ?, ?, 'track', 'accepted', ?, ?, ?, ?, ?, ?, 'plan')`,
  );
  // The tracking plan view's counts (migration 10's event_counts), once per request and key.
  const count = db.prepare(
    `INSERT INTO event_counts (source_id, type, event, plan, n, last_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT DO UPDATE SET n = n + excluded.n, last_at = max(last_at, excluded.last_at)`,
  );
  const insertDelivery = db.prepare(
    `INSERT INTO deliveries (message_id, destination_id, trigger, status, skip_reason, next_attempt_at, created_at, updated_at)
     VALUES (?, ?, 'automatic', ?, ?, ?, ?, ?)`,
  );

  return (prepared, destinations, forwarding) => {
    const { sourceId, receivedAt } = prepared;
    const requestId = Number(
      insertRequest.run(sourceId, prepared.endpoint, receivedAt, prepared.sentAt, prepared.ip, prepared.envelope).lastInsertRowid,
    );
    const n = prepared.messages.length;
    const ids = new Float64Array(n);
    const statuses = new Uint8Array(n);
    const rejected: RejectedEntry[] = [];
    let deliveries = 0;
    /** The pending deliveries made, as [delivery id, message id, destination id] triples (CommittedRequest.due). */
    const due: number[] = [];
    let generatedIds: number[] | undefined;
    let generatedRequestId: number | null | undefined;
    const generatedRequest = () =>
      (generatedRequestId ??= prepared.generatedEnvelope
        ? Number(insertRequest.run(sourceId, 'plan', receivedAt, null, null, prepared.generatedEnvelope).lastInsertRowid)
        : null);
    /** "type\0event\0plan" → messages; plan '' counts every accepted one. */
    const counts = new Map<string, number>();
    const counted = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
    for (let i = 0; i < n; i++) {
      const m = prepared.messages[i]!;
      if (m.status === 'accepted') {
        const result = insertAccepted.run(
          requestId, sourceId, m.messageId, m.type, m.userId, m.anonymousId, m.event, receivedAt, m.timestamp, m.raw,
          m.violations ?? null, m.blocked ?? null, 'ingest', m.warning ?? null,
        );
        if (result.changes === 1) {
          const id = Number(result.lastInsertRowid);
          ids[i] = id; // status 0: accepted
          // Type, plan, then the event last: a client's event name may hold a NUL (the key's separator),
          // which a split would have cut into a plan's name (the plan counts and /stats miscounted).
          const event = m.type === 'track' ? (m.event ?? '') : '';
          counted(`${m.type}\u0000\u0000${event}`);
          for (const plan of m.violatedPlans ?? []) counted(`${m.type}\u0000${plan}\u0000${event}`);
          if (destinations) {
            for (const destinationId of destinations) {
              // A message whose integrations turn webhooks off is still forwarded to a Tracking API as
              // is; one a tracking plan blocks goes nowhere.
              const skip = m.blocked ?? (forwarding?.has(destinationId) ? null : m.skipReason);
              const status = skip === null ? 'pending' : 'skipped';
              const made = insertDelivery.run(id, destinationId, status, skip, skip === null ? receivedAt : null, receivedAt, receivedAt);
              if (skip === null) due.push(Number(made.lastInsertRowid), id, destinationId);
              hours.made(destinationId, receivedAt, status, skip);
            }
            deliveries += destinations.length;
          }
          for (const { destinationId, message: g } of m.generated ?? []) {
            const generatedId = Number(insertGenerated.run(generatedRequest(), sourceId, g.messageId, g.userId, g.anonymousId, g.event, receivedAt, g.timestamp, g.raw).lastInsertRowid);
            const made = insertDelivery.run(generatedId, destinationId, 'pending', null, receivedAt, receivedAt, receivedAt);
            due.push(Number(made.lastInsertRowid), generatedId, destinationId);
            hours.made(destinationId, receivedAt, 'pending', null);
            (generatedIds ??= []).push(generatedId);
            deliveries++;
          }
          continue;
        }
      }
      const status = m.status === 'accepted' ? 'duplicate' : 'rejected';
      const result = insertOther.run(requestId, sourceId, m.messageId, m.type, status, m.rejectCode, m.rejectReason,
        m.userId, m.anonymousId, m.event, receivedAt, m.timestamp, m.raw, m.violations ?? null, m.warning ?? null);
      ids[i] = Number(result.lastInsertRowid);
      statuses[i] = status === 'duplicate' ? 2 : 1;
      if (status === 'rejected') {
        rejected.push({ index: i, code: m.rejectCode!, message: m.rejectReason!, ...(m.messageId ? { messageId: m.messageId } : {}) });
      }
    }
    for (const [key, n] of counts) {
      const typeEnd = key.indexOf('\u0000');
      const planEnd = key.indexOf('\u0000', typeEnd + 1);
      count.run(sourceId, key.slice(0, typeEnd), key.slice(planEnd + 1), key.slice(typeEnd + 1, planEnd), n, receivedAt);
    }
    return {
      requestId, sourceId, receivedAt, ids, statuses, rejected, deliveries,
      ...(due.length > 0 ? { due: Float64Array.from(due) } : {}),
      ...(generatedIds ? { generatedIds } : {}),
    };
  };
}

/**
 * The payload MessagesRepo.payloads() reads for an accepted message of an ingestion request, made from
 * the request as requestStorer stores it: the writer builds the message's bodies from it without
 * reading the row back (delivery/prepare-bodies.ts). What one stores, the other must give: a test
 * holds the two together.
 */
export function storedPayload(request: PreparedRequest, message: PreparedMessage): DeliveredPayload {
  return {
    // A copy of its own: `raw` is mostly a slice of the whole request's text, which the slice keeps alive.
    raw: Buffer.from(message.raw, 'utf8').toString('utf8'),
    status: 'accepted',
    // As SQLite stores it: a client's id may hold a lone surrogate (a JSON escape), which UTF-8 cannot.
    message_id: message.messageId?.toWellFormed() ?? null,
    type: message.type,
    received_at: request.receivedAt,
    sent_at: request.sentAt,
    ip: request.ip,
    envelope: request.envelope,
    source_id: request.sourceId,
    origin: 'ingest',
    violations: message.violations ?? null,
  };
}
