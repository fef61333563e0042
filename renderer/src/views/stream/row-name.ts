/**
 * What a stream row (and the detail's heading) names a message by, after its type badge: the track
 * event or page/screen name; what an audience sync said; why it was rejected; the identify's email or
 * name trait (else its user); "previousId → userId" for an alias; the group's id and name trait.
 * Pure, tested in Node.
 */
import type { MessageSummary } from '../../../../shared/contract.ts';

export type NamedMessage = Pick<MessageSummary, 'type' | 'status' | 'event' | 'rejectReason' | 'userId' | 'anonymousId' | 'audience' | 'names'>;

export function rowName(m: NamedMessage): string {
  if (m.event) return m.event;
  if (m.audience) return `${m.audience.property}: ${JSON.stringify(m.audience.value)}`;
  if (m.status === 'rejected') return m.rejectReason ?? '';
  const who = m.userId ?? m.anonymousId ?? null;
  const names = m.names ?? {};
  switch (m.type) {
    case 'identify':
      return names.email ?? names.name ?? who ?? '';
    case 'alias':
      return names.previousId ? `${names.previousId} → ${who ?? '?'}` : (who ?? '');
    case 'group':
      return names.groupId ? `${names.groupId}${names.name ? ` · ${names.name}` : ''}` : '';
    default:
      return '';
  }
}
