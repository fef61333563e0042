// The inspector's words that cannot be misread (issue 18, "Clarity"): a delivery's state, which attempt
// comes next, why a failed delivery ended, each replay's own name, the detail's tab counts, titles for
// identify/alias/group rows, and the audience sync history's quiet checks. Pure functions, in Node.
import { describe, expect, it } from 'vitest';
import type { AudienceSyncView } from '../../shared/audiences.ts';
import type { DeliveryView } from '../../shared/contract.ts';
import {
  deliveryName,
  failedWords,
  finalReason,
  httpStatusText,
  nextAttemptWords,
  stateWords,
  type DeliveryState,
} from '../../renderer/src/store/delivery-words.ts';
import { rowName, type NamedMessage } from '../../renderer/src/views/stream/row-name.ts';
import { attemptsCount, replaysCount } from '../../renderer/src/views/stream/detail-counts.ts';
import { historyEntries, quietSince, quietWords } from '../../renderer/src/views/audiences/sync-history.ts';

const state = (status: string, extra: Partial<DeliveryState> = {}): DeliveryState => ({
  status,
  attemptCount: 1,
  nextAttemptAt: null,
  lastError: null,
  lastErrorCode: null,
  lastHttpStatus: null,
  ...extra,
});

describe('a delivery’s state in words', () => {
  const now = 1_000_000;

  it('a retrying delivery names the attempt to come and when, never "attempt 3" alone', () => {
    const retrying = state('retrying', { attemptCount: 2, nextAttemptAt: now + 12_000, lastErrorCode: 'timeout' });
    expect(nextAttemptWords(retrying, now)).toBe('attempt 3 in 12 s');
    expect(stateWords(retrying, now)).toBe('retrying — 2 attempts failed, the last: timeout; next: attempt 3 in 12 s');
    expect(stateWords(state('retrying', { attemptCount: 1, nextAttemptAt: now, lastErrorCode: 'http', lastHttpStatus: 503 }), now)).toBe(
      'retrying — 1 attempt failed, the last: 503 Service Unavailable; next: attempt 2 now',
    );
  });

  it('a final 4xx says it was not retried, with the status and its name; never a time it gives up at', () => {
    const final = state('failed', { lastErrorCode: 'http', lastHttpStatus: 400, lastError: 'the receiver answered 400; a 4xx is final, the request will not be retried' });
    expect(failedWords(final)).toBe('failed: 400 Bad Request — not retried (4xx)');
    expect(stateWords(final, now)).not.toMatch(/gives up|4 h/);
    expect(httpStatusText(418)).toBe('418');
  });

  it('says why every other failure ended', () => {
    const failed = (extra: Partial<DeliveryState>) => finalReason(state('failed', extra));
    // Retryable answers that ran out of time, or out of rounds (the core's sentence names the cap).
    expect(failed({ lastErrorCode: 'http', lastHttpStatus: 503 })).toBe('gave up after 4 h of retries');
    expect(failed({ lastErrorCode: 'http', lastHttpStatus: 429 })).toBe('gave up after 4 h of retries');
    expect(failed({ lastErrorCode: 'timeout', lastError: 'x did not answer within 5 s; will retry — gave up after 12 rounds', attemptCount: 12 })).toBe(
      'gave up after 12 attempts',
    );
    // Final at once: a redirect, an untrusted certificate, a loop guard's refusal; never sent at all.
    expect(failed({ lastErrorCode: 'http', lastHttpStatus: 301 })).toBe('not retried (redirect)');
    expect(failed({ lastErrorCode: 'tls' })).toBe('not retried (TLS)');
    expect(failed({ lastErrorCode: 'http', lastHttpStatus: 409, lastError: 'refused by the loop guard (409 loop_detected): …' })).toBe('not retried');
    expect(failed({ attemptCount: 0, lastError: 'its message was purged' })).toBe('never sent');
  });

  it('the other states', () => {
    expect(stateWords(state('delivered'), now)).toBe('delivered');
    expect(stateWords(state('delivered', { attemptCount: 3 }), now)).toBe('delivered on attempt 3');
    expect(stateWords(state('pending', { attemptCount: 0 }), now)).toBe('queued: waiting for its first attempt');
    expect(stateWords(state('cancelled', { attemptCount: 2 }), now)).toBe('cancelled after 2 attempts');
    expect(stateWords({ ...state('skipped', { attemptCount: 0 }), skipReason: 'integrations turned webhooks off' }, now)).toBe(
      'skipped: integrations turned webhooks off',
    );
  });
});

describe('a delivery’s name among the message’s deliveries', () => {
  const destinations = [
    { id: 1, name: 'myapp' },
    { id: 2, name: 'warehouse' },
  ];
  const at = (h: number, m: number, s: number) => new Date(2026, 10, 22, h, m, s).getTime();
  const d = (id: number, destinationId: number, trigger = 'automatic', extra: Partial<DeliveryView> = {}) =>
    ({ id, destinationId, trigger, targetUrl: null, createdAt: at(14, 0, 0), ...extra }) as DeliveryView;

  it('two replays to one destination read apart: their number and time, and a typed URL', () => {
    const all = [
      d(1, 1),
      d(2, 2),
      d(3, 1, 'replay', { createdAt: at(14, 3, 12) }),
      d(4, 1, 'replay', { createdAt: at(14, 5, 0), targetUrl: 'http://localhost:3000/hook' }),
      d(5, 2, 'replay', { createdAt: at(14, 6, 1) }),
    ];
    const names = all.map((x) => deliveryName(x, all, destinations));
    expect(names).toEqual([
      'myapp',
      'warehouse',
      'myapp · replay 1 · 14:03:12',
      'myapp · replay 2 · 14:05:00 → http://localhost:3000/hook',
      'warehouse · replay 1 · 14:06:01',
    ]);
    expect(new Set(names).size).toBe(names.length);
  });

  it('names what made the others, and a deleted destination by its id', () => {
    expect(deliveryName(d(1, 1, 'audience'), [], destinations)).toBe('myapp (audience sync)');
    expect(deliveryName(d(1, 1, 'deletion'), [], destinations)).toBe('myapp (delete notification)');
    expect(deliveryName(d(1, 9), [], destinations)).toBe('destination 9');
  });
});

describe('the detail’s tab counts', () => {
  const attempts = (n: number) => ({ attempts: Array.from({ length: n }, () => ({}) as DeliveryView['attempts'][number]) });

  it('Attempts counts the attempts of the delivery shown, not all of the message’s', () => {
    expect(attemptsCount(attempts(3), 2)).toEqual({ badge: '3', title: '3 attempts of the delivery shown above' });
    expect(attemptsCount(attempts(1), 1)).toEqual({ badge: '1', title: '1 attempt of the delivery' });
    expect(attemptsCount(attempts(0), 2).badge).toBe('');
    expect(attemptsCount(null, 0).badge).toBe('');
  });

  it('Replay counts the message’s replays, and says so', () => {
    const ds = [{ trigger: 'automatic' }, { trigger: 'replay' }, { trigger: 'replay' }, { trigger: 'automatic' }];
    expect(replaysCount(ds)).toEqual({ badge: '2', title: '2 replays of this message, to any destination' });
    expect(replaysCount([{ trigger: 'automatic' }]).badge).toBe('');
  });
});

describe('row titles', () => {
  const m = (type: string, extra: Partial<NamedMessage> = {}): NamedMessage => ({
    type,
    status: 'accepted',
    event: null,
    rejectReason: null,
    userId: 'u_123',
    anonymousId: 'anon_9',
    ...extra,
  });

  it('identify: its email or name trait, else its user', () => {
    expect(rowName(m('identify', { names: { email: 'ada@example.com', name: 'Ada' } }))).toBe('ada@example.com');
    expect(rowName(m('identify', { names: { name: 'Ada' } }))).toBe('Ada');
    expect(rowName(m('identify'))).toBe('u_123');
    expect(rowName(m('identify', { userId: null }))).toBe('anon_9');
  });

  it('alias: previous → new; group: its id and name trait', () => {
    expect(rowName(m('alias', { anonymousId: null, names: { previousId: 'anon_9' } }))).toBe('anon_9 → u_123');
    expect(rowName(m('group', { names: { groupId: 'g_42', name: 'Acme Inc' } }))).toBe('g_42 · Acme Inc');
    expect(rowName(m('group', { names: { groupId: 'g_42' } }))).toBe('g_42');
  });

  it('track, page and screen keep their event or name; an audience sync and a rejection say theirs', () => {
    expect(rowName(m('track', { event: 'Order Completed' }))).toBe('Order Completed');
    expect(rowName(m('page', { event: 'Pricing' }))).toBe('Pricing');
    expect(rowName(m('identify', { audience: { property: 'vip', value: true } as NamedMessage['audience'] }))).toBe('vip: true');
    expect(rowName(m('identify', { status: 'rejected', rejectReason: 'userId must be a string' }))).toBe('userId must be a string');
  });
});

describe('the audience sync history', () => {
  let id = 0;
  const sync = (at: number, extra: Partial<AudienceSyncView> = {}): AudienceSyncView => ({
    id: ++id,
    audienceId: 1,
    at,
    reason: 'scheduled',
    initial: false,
    property: 'vip',
    members: 4,
    joined: 0,
    left: 0,
    messages: 0,
    deliveries: 0,
    deliveryStatus: {},
    durationMs: 1,
    ...extra,
  });

  it('reads a recorded run of empty scheduled syncs as one row, keeping the syncs that sent something', () => {
    const real = sync(500, { joined: 2, messages: 2 });
    const first = sync(0, { initial: true, joined: 4, messages: 4 });
    const quiet = [sync(900), sync(800), sync(700)];
    const lone = sync(400);
    const manual = sync(950, { reason: 'manual' });
    const entries = historyEntries([manual, ...quiet, real, lone, first]);
    expect(entries.map((e) => (e.kind === 'sync' ? e.sync.id : `quiet ${e.checks} ${e.from}–${e.to}`))).toEqual([
      manual.id,
      'quiet 3 700–900',
      real.id,
      lone.id,
      first.id,
    ]);
    expect(quietWords(3, '10:02:11')).toBe('checked 3 times since 10:02:11, nothing changed');
  });

  it('says when checks ran after the newest recorded sync', () => {
    expect(quietSince(5_000, [sync(2_000), sync(1_000)])).toEqual({ since: 2_000, last: 5_000 });
    expect(quietSince(2_000, [sync(2_000)])).toBeNull();
    expect(quietSince(null, [sync(2_000)])).toBeNull();
    expect(quietSince(5_000, [])).toBeNull();
  });
});
