/**
 * A stored message as a test sees it (sluice/testing, the HTTP API, `sluice tail --json`): the message
 * as Sluice understood it — its own JSON with its batch's `context` and `integrations` merged one level
 * down (its own keys win) and the batch's `sentAt` when it has none, as ingestion read it for the
 * tracking plans, and as an export line's `message` carries it (transfer/export-lines.ts: the same
 * rule, withEnvelope) — plus what Sluice made of it. Before 2026-12-01 it was the message's own JSON
 * alone: a batch-level context was missing from the view, from a filter on `context` and from a
 * `sluice check` of a saved page, though ingestion had checked the plans with it.
 */
import type { MessageText } from '../store/message-texts.ts';
import type { BatchEnvelope } from '../store/normalize.ts';
import { isObject, notKeptWhole, withEnvelope } from '../transfer/export-lines.ts';
import type { Violation } from '../../../shared/tracking-plan.ts';
import type { SluiceFields, TestMessage } from './filters.ts';

export function testMessage(row: MessageText, source: string): TestMessage {
  const own = parsedObject(row.raw);
  // A rejected message's stand-in (too large, too deep) is not the message: nothing is merged into it,
  // as an export leaves it as it was. A message Sluice made (an audience sync's identify, a Violation
  // Generated event) has a request of its own (or none), whose envelope holds no context, integrations
  // or sentAt: nothing of the request it came from is merged into it.
  if (own && row.envelope !== null && !notKeptWhole(row)) withEnvelope(own, JSON.parse(row.envelope) as BatchEnvelope);
  // Not an object (a rejected text that is not JSON, a batch element that is a number): only what Sluice recorded of it.
  const received = own ?? {};
  const added: SluiceFields = {
    receivedAt: new Date(row.receivedAt).toISOString(),
    sequence: row.id,
    source,
    origin: row.origin,
    status: row.status,
    rejection: row.status === 'rejected' ? { code: row.rejectCode ?? 'rejected', reason: row.rejectReason ?? '' } : null,
    violations: row.violationsJson ? (JSON.parse(row.violationsJson) as Violation[]) : [],
    blocked: row.blocked ?? null,
    warning: row.warning ?? null,
    pinned: row.pinned === true,
  };
  return {
    ...received,
    ...(row.type !== null ? { type: row.type } : {}),
    ...(row.messageId !== null ? { messageId: row.messageId } : {}),
    ...added,
  };
}

/** The message's text parsed, when it is a JSON object. */
function parsedObject(raw: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(raw);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
