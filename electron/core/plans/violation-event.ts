// The `Violation Generated` track events a plan with `forwardViolationsTo` sends: one per violation,
// in the shape of Segment Protocols' forwarded violations, so that whatever reads Segment's reads them.
import { randomUUID } from 'node:crypto';
import type { Violation } from '../../../shared/tracking-plan.ts';
import type { PreparedMessage } from '../store/stored-request.ts';
import type { PlanRule } from '../writer/protocol.ts';

/** The event's name, Segment's: what a plan's forwarded violations are called, Sluice's and Segment's alike. */
export const VIOLATION_EVENT = 'Violation Generated';

/**
 * Whether a message is a forwarded violation (this shape, made by a Sluice or by Segment Protocols): a
 * plan makes no violation of it, whatever it breaks — a violation of a violation, sent on to a Sluice
 * that does the same, is how two Sluices forwarding violations to each other ping-ponged forever.
 */
export function isViolationEvent(message: { type?: unknown; event?: unknown }): boolean {
  return message.type === 'track' && message.event === VIOLATION_EVENT;
}

/** The message that broke the plan, as far as the event describes it. */
export interface ViolatingMessage {
  messageId: string;
  type: string;
  event: string | null;
  /** The client's sentAt and timestamp (ISO 8601), as it sent them; null when it sent none. */
  sentAt: string | null;
  timestamp: string | null;
  /** context.app.version, when the client sent one. */
  appVersion: string | null;
}

/** "/properties/products/0/sku" → "properties.products.0.sku", as Segment names the field. */
function fieldOf(violation: Violation): string {
  return violation.path
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/**
 * The events for these violations, ready to store as accepted messages of the same source. The shape
 * is the payload of Segment's documentation (segment-docs, protocols/validate/forward-violations.md):
 * its property names (note the upper-case `ID`s) and its `userId` "schema-violations"; the plan's name
 * stands for its id. `violationType` is this taxonomy's (Required-Missing, Datatype-Mismatch, …), which
 * RudderStack uses; Segment's example shows its own word for the first, "Required".
 */
export function violationEvents(
  violating: ViolatingMessage,
  rule: PlanRule,
  sourceId: number,
  violations: Violation[],
  now: number,
): PreparedMessage[] {
  const timestamp = new Date(now).toISOString();
  const sourceName = rule.sourceNames?.[sourceId] ?? String(sourceId);
  return violations.map((violation) => {
    const messageId = `sluice-violation-${randomUUID()}`;
    const message = {
      type: 'track',
      event: VIOLATION_EVENT,
      messageId,
      userId: 'schema-violations',
      timestamp,
      integrations: {},
      context: { library: { name: 'sluice', version: 'tracking-plans' } },
      properties: {
        appVersion: violating.appVersion ?? '',
        eventMessageID: violating.messageId,
        eventName: violating.event ?? violating.type,
        eventSentAt: violating.sentAt ?? '',
        eventTimestamp: violating.timestamp ?? '',
        eventType: violating.type,
        sourceID: String(sourceId),
        sourceName,
        sourceSlug: sourceName.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, ''),
        trackingPlanID: rule.name,
        trackingPlanName: rule.name,
        violationDescription: violation.message,
        violationField: fieldOf(violation),
        violationType: violation.type,
      },
    };
    return {
      messageId,
      type: 'track',
      status: 'accepted',
      rejectCode: null,
      rejectReason: null,
      userId: 'schema-violations',
      anonymousId: null,
      event: VIOLATION_EVENT,
      timestamp: now,
      raw: JSON.stringify(message),
      skipReason: null,
    };
  });
}
