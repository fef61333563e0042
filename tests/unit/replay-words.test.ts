// What the Replay tab sends and says through a destination (replay-words.ts): a tracking-api
// destination's replay is the message as forwarded (an edited body goes upstream as it is), unsigned,
// to its Tracking API; a webhooks destination's is its body shape, signed by its scheme.
import { describe, expect, it } from 'vitest';
import type { DestinationView } from '../../shared/contract.ts';
import { webhookBody } from '../../shared/webhook-body.ts';
import { bodyCaption, deliveryTarget, editedNote, ownTarget, replayBody, signingHint } from '../../renderer/src/views/replay/replay-words.ts';

const hooks: DestinationView = {
  id: 1,
  name: 'hooks',
  enabled: true,
  sourceIds: [1],
  webhooks: [{ url: 'http://127.0.0.1:3000/hook', headers: {} }],
  hasSecret: true,
  maskedSecret: '••••••••',
  signing: 'segment',
  maskedSigningSecrets: [],
  options: { bodyShape: 'seed', concurrency: 32 },
  kind: 'webhooks',
  trackingApi: null,
  health: [],
  filters: [],
  transform: null,
};

const upstream: DestinationView = {
  ...hooks,
  id: 2,
  name: 'upstream',
  webhooks: [],
  hasSecret: false,
  maskedSecret: null,
  kind: 'tracking-api',
  trackingApi: { url: 'http://127.0.0.1:8088', batchUrl: 'http://127.0.0.1:8088/v1/batch', maskedWriteKey: '••••••••', batchSize: 100, flushMs: 1000, gzip: false },
};

const message = {
  type: 'track',
  event: 'Order Completed',
  userId: 'u_1',
  messageId: 'm-1',
  properties: { total: 42 },
  context: { library: { name: 'analytics-node' } },
  timestamp: '2024-05-01T10:00:00.000Z',
  sentAt: '2024-05-01T10:00:01.000Z',
  receivedAt: '2024-05-01T10:00:02.000Z',
};

describe('a replay’s body', () => {
  it('through a tracking-api destination: the message as forwarded, not a webhook body in its (unused) body shape', () => {
    const body = replayBody(message, upstream);
    expect(body).toEqual(webhookBody(message, 'forward'));
    expect(body).toMatchObject({ messageId: 'm-1', context: { library: { name: 'analytics-node' } } });
    expect(body).not.toHaveProperty('version');
    expect(body).not.toHaveProperty('receivedAt');
  });

  it('through a webhooks destination: its body shape', () => {
    expect(replayBody(message, hooks)).toEqual(webhookBody(message, 'seed'));
    expect(replayBody(message, { ...hooks, options: { bodyShape: 'full', concurrency: 1 } })).toEqual(webhookBody(message, 'full'));
  });
});

describe('what the Replay tab says', () => {
  it('names the scheme that signs it, or that a forward is not signed', () => {
    expect(signingHint(hooks, false)).toBe('The core signs it with hooks’s shared secret (X-Signature).');
    expect(signingHint(hooks, true)).toBe('The core signs it with hooks’s shared secret (X-Signature), so the edited body is re-signed.');
    // Standard Webhooks alone: no X-Signature, even with a shared secret kept.
    const standard = { ...hooks, signing: 'standard' as const, maskedSigningSecrets: ['••••••••'] };
    expect(signingHint(standard, false)).toBe('The core signs it with hooks’s Standard Webhooks secret (webhook-id, webhook-timestamp, webhook-signature).');
    expect(signingHint({ ...standard, maskedSigningSecrets: ['a', 'b'] }, false)).toContain('Standard Webhooks secrets');
    expect(signingHint({ ...standard, signing: 'both' }, true)).toBe('The core signs it with hooks’s secrets (X-Signature and webhook-signature), so the edited body is re-signed.');
    expect(signingHint({ ...hooks, hasSecret: false }, false)).toBe('hooks has no shared secret: it is sent without X-Signature.');
    expect(signingHint({ ...standard, maskedSigningSecrets: [] }, false)).toBe('hooks has no Standard Webhooks secret: it is sent unsigned.');
    const forward = signingHint(upstream, true);
    expect(forward).toMatch(/^Forwarded as it is to upstream’s Tracking API with its write key \(Basic auth\); a forward is not signed/);
    expect(forward).not.toMatch(/X-Signature|secret/);
  });

  it('sends to the destination’s webhooks or its Tracking API’s batch URL', () => {
    expect(ownTarget(hooks)).toEqual({ label: 'hooks’s webhooks', urls: 'http://127.0.0.1:3000/hook' });
    expect(ownTarget({ ...hooks, webhooks: [] })).toEqual({ label: 'hooks’s webhooks', urls: 'no webhook URL' });
    expect(ownTarget(upstream)).toEqual({ label: 'upstream’s Tracking API', urls: 'http://127.0.0.1:8088/v1/batch' });
  });

  it('a replay card names where the delivery went: its typed URL, the webhooks, or the batch URL (never empty)', () => {
    expect(deliveryTarget({ targetUrl: 'http://x/y' }, upstream)).toBe('http://x/y');
    expect(deliveryTarget({ targetUrl: null }, upstream)).toBe('http://127.0.0.1:8088/v1/batch');
    expect(deliveryTarget({ targetUrl: null }, { ...hooks, webhooks: [...hooks.webhooks, { url: 'http://b/', headers: {} }] })).toBe('http://127.0.0.1:3000/hook, http://b/');
    expect(deliveryTarget({ targetUrl: null }, { ...hooks, webhooks: [] })).toBe('—');
    expect(deliveryTarget({ targetUrl: null }, undefined)).toBe('—');
  });
});

describe('what the Replay tab says of a destination that filters or transforms (until 2026-12-01 "exactly what it sends" either way)', () => {
  const filtered = { ...hooks, filters: [{ if: 'type:identify', drop: true }] } as unknown as DestinationView;
  const transformed = { ...hooks, transform: { file: '/t/amp.js', settings: {}, timeoutMs: 1000 } } as unknown as DestinationView;
  const both = { ...filtered, transform: transformed.transform } as DestinationView;

  it('the body shown is exactly what it sends only when nothing changes it', () => {
    expect(bodyCaption(hooks)).toBe('— exactly what hooks sends for this message');
    expect(bodyCaption(filtered)).toBe('— hooks’s body for this message before its filter, which a replay of it as it is runs');
    expect(bodyCaption(both)).toBe('— hooks’s body for this message before its filters and transform, which a replay of it as it is runs');
  });

  it('an edited body: its filters do not run on it; its transform when asked', () => {
    expect(editedNote(hooks, false)).toBe('The edited body is sent instead of the mapped one.');
    expect(editedNote(filtered, false)).toBe('The edited body is sent instead of the mapped one. hooks’s filters do not run on it: what they would drop or take out is sent.');
    expect(editedNote(transformed, false)).toBe('The edited body is sent as it is, past hooks’s transform.');
    expect(editedNote(transformed, true)).toBe('The edited body goes through hooks’s transform, and what it returns is sent.');
  });
});
