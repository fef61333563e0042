/**
 * One followed message as one line of a terminal (`sluice tail`, `sluice serve --print`):
 *
 *   14:03:07 track Order Completed · user u_1 · source web · → 2/2 delivered · 1 violation
 *
 * the time it was received (local), its type and event (or page, screen or group name), who, from
 * which source, what became of its deliveries (one per destination: "→ 1/2 delivered, 1 failed (…)",
 * "no destination", or why it was refused), and how many tracking-plan violations it has. What a client
 * sent is shown without control characters: a message cannot move the cursor or recolour the terminal.
 */
import type { FollowedDelivery, FollowedMessage } from '../core/queries/message-follow.ts';

/** The other states a line counts, most telling first. */
const OTHER_STATES = ['failed', 'retrying', 'pending', 'skipped', 'cancelled'] as const;
/** The longest a field from the message may run on a line. */
const FIELD_CHARS = 80;

export function messageLine({ message, deliveries }: FollowedMessage): string {
  const parts = [`${clock(message.receivedAt)} ${shown(message.type ?? '?')}${name(message)}`];
  const who = message.userId ?? message.anonymousId;
  if (who !== undefined && who !== null) parts.push(`${message.userId != null ? 'user' : 'anonymous'} ${shown(String(who))}`);
  parts.push(`source ${shown(message.source)}`);
  if (message.status === 'rejected') parts.push(`rejected: ${shown(message.rejection?.reason || message.rejection?.code || 'refused')}`);
  else if (message.status === 'duplicate') parts.push('duplicate (not delivered again)');
  else parts.push(outcome(deliveries));
  const count = message.violations.length;
  if (count > 0) parts.push(`${count} violation${count === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

/** What became of the deliveries: "→ 2/2 delivered", "→ 0/1 delivered, 1 failed (HTTP 500)", "no destination". */
export function outcome(deliveries: readonly FollowedDelivery[]): string {
  if (deliveries.length === 0) return 'no destination';
  const delivered = deliveries.filter((d) => d.status === 'delivered').length;
  const words = [`→ ${delivered}/${deliveries.length} delivered`];
  for (const state of OTHER_STATES) {
    const those = deliveries.filter((d) => d.status === state);
    if (those.length === 0) continue;
    const why = those.map((d) => d.lastError ?? d.skipReason).find((text) => text);
    words.push(`${those.length} ${state}${why ? ` (${shown(why)})` : ''}`);
  }
  return words.join(', ');
}

function name(message: FollowedMessage['message']): string {
  const value = message.event ?? message.name ?? (message.type === 'group' ? message.groupId : undefined);
  return typeof value === 'string' || typeof value === 'number' ? ` ${shown(String(value))}` : '';
}

/** HH:MM:SS, local time. */
function clock(iso: string): string {
  const at = new Date(iso);
  return [at.getHours(), at.getMinutes(), at.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

/** A client's text, on one line, without control characters, cut to FIELD_CHARS. */
function shown(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  return clean.length > FIELD_CHARS ? `${clean.slice(0, FIELD_CHARS - 1)}…` : clean;
}
