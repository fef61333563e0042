// Destination kinds (electron/core/delivery/kinds/): every kind a destination may name is registered
// and answers for itself (its body recipe, its URLs, its batches, deletions, integrations); the one
// body builder (electron/core/delivery/body.ts) shapes and signs as the kind's recipe says. Bodies and
// signatures are compared as the exact bytes sent, the signature computed here with node:crypto.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DESTINATION_KINDS } from '../../shared/settings.ts';
import { webhookBody } from '../../shared/webhook-body.ts';
import { buildBody, sameRecipe } from '../../electron/core/delivery/body.ts';
import { kindOf } from '../../electron/core/delivery/kinds/index.ts';
import type { Destination } from '../../electron/core/store/destinations-repo.ts';

const message = {
  type: 'track',
  messageId: 'm-1',
  userId: 42,
  event: 'Order Completed',
  properties: { total: 9.5 },
  context: { ip: '127.0.0.1' },
  integrations: { All: false },
  timestamp: '2026-11-21T10:00:00.123Z',
  originalTimestamp: '2026-11-21T10:00:00.100Z',
  receivedAt: '2026-11-21T10:00:01.000Z',
  sentAt: '2026-11-21T10:00:00.900Z',
};

const webhooks = {
  id: 1,
  name: 'hooks',
  enabled: true,
  sourceIds: [1],
  kind: 'webhooks',
  webhooks: [{ url: 'https://a.example/hook', headers: {} }, { url: 'https://b.example/hook', headers: {} }],
  sharedSecret: 'shh',
  signing: 'segment',
  options: { bodyShape: 'full', concurrency: 4 },
} as Destination;

const forward = {
  id: 2,
  name: 'upstream',
  enabled: true,
  sourceIds: [1],
  kind: 'tracking-api',
  trackingApi: { url: 'https://api.example/', writeKey: 'wk', batchSize: 50, flushMs: 250, gzip: false },
  webhooks: [],
  signing: 'segment',
  options: { bodyShape: 'seed', concurrency: 4 },
} as Destination;

const hmac = (body: string, secret: string) => createHmac('sha1', secret).update(body, 'utf8').digest('hex');

describe('destination kinds', () => {
  it('registers every kind a destination may name, each under its own name; a destination naming none is a webhooks one', () => {
    for (const name of DESTINATION_KINDS) expect(kindOf({ kind: name }).name).toBe(name);
    expect(kindOf({} as Pick<Destination, 'kind'>).name).toBe('webhooks');
    expect(() => kindOf({ kind: 'carrier-pigeon' as Destination['kind'] })).toThrow(/"carrier-pigeon" is not one Sluice knows \(webhooks, tracking-api\)/);
  });

  it('webhooks: the destination’s shape and secret, a breaker per webhook, a delivery a round, notified of deletions', () => {
    const kind = kindOf(webhooks);
    expect(kind.recipe(webhooks)).toEqual({ bodyShape: 'full', sharedSecret: 'shh' });
    expect(kind.recipe({ ...webhooks, sharedSecret: undefined } as Destination)).toEqual({ bodyShape: 'full', sharedSecret: null });
    expect(kind.urls(webhooks)).toEqual(['https://a.example/hook', 'https://b.example/hook']);
    expect(kind.batch(webhooks)).toBeNull();
    expect(kind.takesDeletions).toBe(true);
    expect(kind.obeysIntegrations).toBe(true);
  });

  it('tracking-api: the forwarded message unsigned, whatever the options say, in batches to its one batch URL; no deletions; integrations go along', () => {
    const kind = kindOf(forward);
    expect(kind.recipe({ ...forward, sharedSecret: 'stray' } as Destination)).toEqual({ bodyShape: 'forward', sharedSecret: null });
    expect(kind.urls(forward)).toEqual(['https://api.example/v1/batch']);
    expect(kind.batch(forward)).toEqual({ size: 50, flushMs: 250 });
    expect(kind.takesDeletions).toBe(false);
    expect(kind.obeysIntegrations).toBe(false);
  });
});

describe('the one body builder', () => {
  it('shapes a message as the recipe says and signs the exact bytes', () => {
    const built = buildBody(kindOf(webhooks).recipe(webhooks), message);
    expect(built.body).toBe(JSON.stringify(webhookBody(message, 'full')));
    expect(built.body.startsWith('{"version":1,"type":"track"')).toBe(true);
    expect(built.signature).toBe(hmac(built.body, 'shh'));
  });

  it('forwards a message as a client sent it (no receivedAt, no sentAt), unsigned', () => {
    const built = buildBody(kindOf(forward).recipe(forward), message);
    const { receivedAt: _r, sentAt: _s, ...expected } = message;
    expect(built.body).toBe(JSON.stringify(expected));
    expect(built.signature).toBeNull();
  });

  it('sends a body already made (an edited replay’s) as it is, signed', () => {
    const edited = '{"type":"track","event":"Edited","n":1.50}';
    expect(buildBody({ bodyShape: 'seed', sharedSecret: 'shh' }, edited)).toEqual({ body: edited, signature: hmac(edited, 'shh') });
  });

  it('takes a body built ahead only while the recipe is the same', () => {
    const recipe = kindOf(webhooks).recipe(webhooks);
    expect(sameRecipe(recipe, { ...recipe })).toBe(true);
    expect(sameRecipe(recipe, { ...recipe, bodyShape: 'seed' })).toBe(false);
    expect(sameRecipe(recipe, { ...recipe, sharedSecret: 'rotated' })).toBe(false);
  });
});
