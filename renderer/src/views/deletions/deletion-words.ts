/**
 * A deletion request in words: the question asked before it is sent (what a purge removes, counted by
 * the core; a userId no stored message has) and what it did. Pure (no React, no DOM), tested in Node.
 */
import type { Responses } from '../../../../shared/contract.ts';
import type { DeletionPreview } from '../../../../shared/channels/deletions.ts';
import { plural } from '../../lib/format.ts';

/** "a", "a and b", "a, b and c". */
function list(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)!}`;
}

/** Who gets a delete notification. */
function notified(preview: DeletionPreview): string {
  return preview.notifications > 0
    ? `A delete notification goes to ${plural(preview.notifications, 'destination')}.`
    : 'No destination is notified: none is connected to the sources that hold them.';
}

/** What the dialog asks before a request is sent; null: nothing to ask (no purge, a user Sluice has messages of). */
export type DeletionQuestion = { kind: 'purge' | 'unknown'; title: string; text: string; confirm: string } | null;

export function deletionQuestion(preview: DeletionPreview, purge: boolean): DeletionQuestion {
  const user = preview.userId;
  // Unknown: no message and no profile (a user whose messages were pruned may still have one).
  if (preview.messages === 0 && preview.profiles === 0) {
    const inbox =
      purge && preview.inboxRequests > 0
        ? ` The purge removes ${plural(preview.inboxRequests, 'request')} in the built-in receiver’s inbox; this cannot be undone.`
        : purge
          ? ' There is nothing stored to purge.'
          : '';
    const notice =
      preview.notifications > 0
        ? `A delete notification still goes to ${plural(preview.notifications, 'destination')} an audience sent them to`
        : 'No destination would be notified, since no source holds messages of this user';
    return {
      kind: 'unknown',
      title: 'Unknown user',
      text: `No stored message has userId ${user} — send anyway? ${notice}; the request is recorded.${inbox} Check the userId for a typo.`,
      confirm: 'Send anyway',
    };
  }
  if (!purge) return null;
  const parts = preview.messages > 0 ? [plural(preview.messages, 'stored message')] : [];
  if (preview.profiles > 0) parts.push(preview.messages > 0 ? 'the profile audiences keep of them' : 'the profile audiences keep of them (traits and events of messages since removed)');
  if (preview.deliveries > 0) {
    const attempts = preview.attempts > 0 ? ` and ${plural(preview.attempts, 'attempt')}` : '';
    parts.push(
      `what their ${plural(preview.deliveries, 'delivery', 'deliveries')}${attempts} kept of them (the bodies sent and the answers received; the deliveries stay, as the record of what was sent when)`,
    );
  }
  if (preview.audienceMemberships > 0) parts.push(plural(preview.audienceMemberships, 'audience membership'));
  if (preview.inboxRequests > 0) parts.push(`${plural(preview.inboxRequests, 'request')} in the built-in receiver’s inbox`);
  return {
    kind: 'purge',
    title: `Purge user ${user}?`,
    text: `Purge user ${user}: removes ${list(parts)}. ${notified(preview)} This cannot be undone.`,
    confirm: 'Purge user',
  };
}

/** What a request did, once the core answered. */
export function deletionOutcome(result: Responses['deletions.create'], userId: string, purge: boolean): string {
  const { sourceIds, deliveryIds, purgedMessages, inboxRequests } = result;
  const inbox = inboxRequests > 0 ? `${plural(inboxRequests, 'request')} removed from the built-in receiver’s inbox` : null;
  if (sourceIds.length === 0 && deliveryIds.length === 0) {
    const removed = purge && inbox ? ` ${inbox[0]!.toUpperCase()}${inbox.slice(1)}.` : '';
    return `No source holds messages of ${userId}, so there was no destination to notify. The request is recorded.${removed}`;
  }
  const n = deliveryIds.length;
  const purged = purge ? `; ${plural(purgedMessages, 'stored message')} deleted${inbox ? `, ${inbox}` : ''}.` : '.';
  return `Requested: ${plural(n, 'delete notification')} queued${n === 0 ? ' (no enabled destination is connected to the affected sources)' : ''}${purged}`;
}
