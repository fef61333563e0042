// A deletion request before it is sent and after: which of the receiver's requests carry a user's data
// (what a purge removes from the inbox), the question the inspector asks (a purge, with the core's
// counts; a userId no stored message has), and what a request did, in words.
import { describe, expect, it } from 'vitest';
import { bodyCarriesUser } from '../../electron/core/receiver/inbox-user.ts';
import { deletionOutcome, deletionQuestion } from '../../renderer/src/views/deletions/deletion-words.ts';
import type { DeletionPreview } from '../../shared/channels/deletions.ts';

describe('bodyCarriesUser', () => {
  it('finds the userId in any webhook shape and in a forwarded batch', () => {
    expect(bodyCarriesUser(JSON.stringify({ version: 1, type: 'track', userId: 'u_1', event: 'A' }), 'u_1')).toBe(true);
    expect(bodyCarriesUser(JSON.stringify({ batch: [{ userId: 'u_2' }, { userId: 'u_1', type: 'identify' }] }), 'u_1')).toBe(true);
    expect(bodyCarriesUser(JSON.stringify({ data: { message: { userId: 'u_1' } } }), 'u_1')).toBe(true);
    // A client may send a number; the deletion names it as text.
    expect(bodyCarriesUser(JSON.stringify({ type: 'track', userId: 123, event: 'A' }), '123')).toBe(true);
  });

  it('is exact: another user, a prefix, the id as another field’s value or a trait do not count', () => {
    expect(bodyCarriesUser(JSON.stringify({ type: 'track', userId: 'u_10', event: 'A' }), 'u_1')).toBe(false);
    expect(bodyCarriesUser(JSON.stringify({ type: 'track', userId: 'u_2', anonymousId: 'u_1', properties: { note: 'u_1' } }), 'u_1')).toBe(false);
    expect(bodyCarriesUser(JSON.stringify({ type: 'track', userId: '123' }), '12')).toBe(false);
  });

  it('leaves delete notifications: they are the record of a deletion, not the user’s data', () => {
    expect(bodyCarriesUser(JSON.stringify({ type: 'delete', userId: 'u_1', timestamp: '2026-01-01T00:00:00.000Z' }), 'u_1')).toBe(false);
  });

  it('searches a body that is not JSON (or was cut at 64 KB) as text, with the id as JSON writes it', () => {
    const cut = `{"type":"track","userId":"u_\\"q","properties":{"blob":"${'x'.repeat(100)}`;
    expect(bodyCarriesUser(cut, 'u_"q')).toBe(true);
    expect(bodyCarriesUser(`{"userId" : "u_1", "properties": {`, 'u_1')).toBe(true);
    expect(bodyCarriesUser(`{"userId":"u_1.x", "properties": {`, 'u_1')).toBe(false);
    expect(bodyCarriesUser('not json at all u_1', 'u_1')).toBe(false);
  });

  it('walks a deeply nested body without overflowing the stack', () => {
    const depth = 20_000;
    const nested = `${'{"a":'.repeat(depth)}{"userId":"deep"}${'}'.repeat(depth)}`;
    expect(bodyCarriesUser(nested, 'deep')).toBe(true);
    expect(bodyCarriesUser(nested, 'shallow')).toBe(false);
  });
});

const preview = (fields: Partial<DeletionPreview>): DeletionPreview => ({
  userId: 'u_123',
  messages: 1204,
  sourceIds: [1],
  notifications: 2,
  deliveries: 2300,
  attempts: 2410,
  audienceMemberships: 3,
  inboxRequests: 14,
  profiles: 1,
  ...fields,
});

describe('deletionQuestion', () => {
  it('asks before a purge, saying with the core’s counts what it removes', () => {
    expect(deletionQuestion(preview({}), true)).toEqual({
      kind: 'purge',
      title: 'Purge user u_123?',
      text:
        'Purge user u_123: removes 1,204 stored messages, the profile audiences keep of them, what their 2,300 deliveries and 2,410 attempts kept of them (the bodies sent and the answers received; the deliveries stay, as the record of what was sent when), 3 audience memberships and 14 requests in the built-in receiver’s inbox. A delete notification goes to 2 destinations. This cannot be undone.',
      confirm: 'Purge user',
    });
  });

  it('leaves out what there is none of, and says one in the singular', () => {
    const q = deletionQuestion(preview({ messages: 1, deliveries: 0, attempts: 0, audienceMemberships: 0, inboxRequests: 1, notifications: 0, profiles: 0 }), true)!;
    expect(q.text).toBe(
      'Purge user u_123: removes 1 stored message and 1 request in the built-in receiver’s inbox. No destination is notified: none is connected to the sources that hold them. This cannot be undone.',
    );
  });

  it('sends a request without purge for a known user without asking', () => {
    expect(deletionQuestion(preview({}), false)).toBeNull();
  });

  it('flags a userId no stored message has, purge or not, and says what a purge would still remove', () => {
    const none = preview({ messages: 0, sourceIds: [], notifications: 0, deliveries: 0, attempts: 0, audienceMemberships: 0, inboxRequests: 0, profiles: 0, userId: 'u_12' });
    const plain = deletionQuestion(none, false)!;
    expect(plain).toMatchObject({ kind: 'unknown', title: 'Unknown user', confirm: 'Send anyway' });
    expect(plain.text).toMatch(/^No stored message has userId u_12 — send anyway\? No destination would be notified/);
    expect(deletionQuestion(none, true)!.text).toContain('There is nothing stored to purge.');
    expect(deletionQuestion({ ...none, inboxRequests: 2 }, true)!.text).toContain('The purge removes 2 requests in the built-in receiver’s inbox; this cannot be undone.');
    // An audience sent them to a destination of its own: that one is still told.
    expect(deletionQuestion({ ...none, notifications: 1 }, false)!.text).toContain('A delete notification still goes to 1 destination an audience sent them to; the request is recorded.');
  });
});

describe('a user whose messages were pruned but whose profile the audiences keep', () => {
  it('is not an unknown user: a purge removes the profile and the memberships, and the sources\' destinations are notified', () => {
    const pruned = preview({ messages: 0, deliveries: 0, attempts: 0, inboxRequests: 0, audienceMemberships: 2, profiles: 1, notifications: 1 });
    expect(deletionQuestion(pruned, false)).toBeNull();
    expect(deletionQuestion(pruned, true)).toEqual({
      kind: 'purge',
      title: 'Purge user u_123?',
      text: 'Purge user u_123: removes the profile audiences keep of them (traits and events of messages since removed) and 2 audience memberships. A delete notification goes to 1 destination. This cannot be undone.',
      confirm: 'Purge user',
    });
  });
});

describe('deletionOutcome', () => {
  const result = { deletionRequestId: 1, sourceIds: [1], deliveryIds: [7], purgedMessages: 2, inboxRequests: 2 };

  it('says what was queued and what a purge removed', () => {
    expect(deletionOutcome(result, 'u_1', true)).toBe('Requested: 1 delete notification queued; 2 stored messages deleted, 2 requests removed from the built-in receiver’s inbox.');
    expect(deletionOutcome({ ...result, purgedMessages: 0, inboxRequests: 0 }, 'u_1', false)).toBe('Requested: 1 delete notification queued.');
    expect(deletionOutcome({ ...result, deliveryIds: [] }, 'u_1', false)).toBe(
      'Requested: 0 delete notifications queued (no enabled destination is connected to the affected sources).',
    );
  });

  it('says what was queued when no source held the user but an audience had sent them somewhere', () => {
    expect(deletionOutcome({ ...result, sourceIds: [], deliveryIds: [9], purgedMessages: 0, inboxRequests: 0 }, 'u_x', false)).toBe('Requested: 1 delete notification queued.');
  });

  it('says when no source held the user, and what the purge still removed from the inbox', () => {
    const none = { ...result, sourceIds: [], deliveryIds: [], purgedMessages: 0 };
    expect(deletionOutcome({ ...none, inboxRequests: 0 }, 'u_x', false)).toBe('No source holds messages of u_x, so there was no destination to notify. The request is recorded.');
    expect(deletionOutcome({ ...none, inboxRequests: 1 }, 'u_x', true)).toBe(
      'No source holds messages of u_x, so there was no destination to notify. The request is recorded. 1 request removed from the built-in receiver’s inbox.',
    );
  });
});
