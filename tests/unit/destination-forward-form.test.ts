// The destination editor's model for a tracking-api destination (destination-form.ts with
// tracking-api-form.ts and stored-secrets.ts): the form read from the view, the save request the core's
// own schema accepts, problems next to the trackingApi fields, the stored write key kept like the
// shared secret, and a kind switch that keeps the webhooks typed so far. (Beside destination-form.test.ts,
// which is about webhooks and signing, to keep each file readable.)
import { describe, expect, it } from 'vitest';
import type { DestinationView, SourceView } from '../../shared/contract.ts';
import { destinationSchema } from '../../shared/settings.ts';
import { issuesOf } from '../../electron/core/operation-error.ts';
import {
  emptyWebhook,
  errorsFromRefusal,
  formOf,
  newForm,
  requestOf,
  sameSettings,
  validate,
  type DestinationForm,
} from '../../renderer/src/views/destinations/destination-form.ts';
import { keptSecretProblems, storedToRead, withRevealedWriteKey } from '../../renderer/src/views/destinations/stored-secrets.ts';
import { trackingApiFormOf } from '../../renderer/src/views/destinations/tracking-api-form.ts';

const sources: SourceView[] = [{ id: 1, name: 'web', writeKey: 'wk_web', kind: 'web' }];

const forwardView: DestinationView = {
  id: 9,
  name: 'segment',
  enabled: true,
  sourceIds: [1],
  webhooks: [],
  hasSecret: false,
  maskedSecret: null,
  signing: 'segment',
  maskedSigningSecrets: [],
  options: { bodyShape: 'seed', concurrency: 32 },
  kind: 'tracking-api',
  trackingApi: { url: 'https://api.segment.io', batchUrl: 'https://api.segment.io/v1/batch', maskedWriteKey: '••••••••', batchSize: 50, flushMs: 200, gzip: true },
  health: [{ url: 'https://api.segment.io/v1/batch', breaker: 'closed', failures: 0, probeAt: null, lastError: null, gone: null }],
  filters: [],
  transform: null,
};

/** A new destination switched to "Tracking API (forward)", with these fields typed. */
function forwardForm(patch: Partial<DestinationForm['trackingApi']> = {}): DestinationForm {
  const f = newForm(['web']);
  return { ...f, name: 'upstream', kind: 'tracking-api', trackingApi: { ...f.trackingApi, ...patch } };
}

describe('a tracking-api destination in the editor', () => {
  it('reads the view (write key stored, masked) and saves it back by id with the stored key, nothing of webhooks or signing', () => {
    const f = formOf(forwardView, sources);
    expect(f.kind).toBe('tracking-api');
    expect(f.trackingApi).toEqual({ url: 'https://api.segment.io', writeKey: { kind: 'stored', masked: '••••••••' }, batchSize: '50', flushMs: '200', gzip: true, caCert: '' });
    expect(f.webhooks).toHaveLength(1); // an empty card, should it become a webhooks destination
    const request = requestOf(f, undefined, [], 'wk_real_key');
    expect(request).toEqual({
      id: 9,
      name: 'segment',
      enabled: true,
      sources: ['web'],
      kind: 'tracking-api',
      trackingApi: { url: 'https://api.segment.io', writeKey: 'wk_real_key', batchSize: 50, flushMs: 200, gzip: true },
      options: { bodyShape: 'seed', concurrency: 32 },
    });
    const { id: _id, ...fields } = request;
    expect(destinationSchema.safeParse(fields).success).toBe(true); // what the core accepts
    expect(validate(f)).toEqual({});
  });

  it('starts from the schema defaults and asks for the URL and the write key next to their fields', () => {
    const f = forwardForm();
    expect(f.trackingApi).toMatchObject({ url: '', writeKey: { kind: 'none' }, batchSize: '100', flushMs: '1000', gzip: false });
    // The empty webhook card of a new form is not this kind's concern.
    expect(validate(f)).toEqual({
      'trackingApi.url': 'Enter the API’s URL, such as https://api.segment.io (Sluice posts to its /v1/batch).',
      'trackingApi.writeKey': 'Enter the write key of the source the messages should arrive in (sent as Basic auth).',
    });
    const filled = forwardForm({ url: ' http://127.0.0.1:8088 ', writeKey: { kind: 'value', value: ' wk_up ' } });
    expect(validate(filled)).toEqual({});
    expect(requestOf(filled).trackingApi).toEqual({ url: 'http://127.0.0.1:8088', writeKey: 'wk_up', batchSize: 100, flushMs: 1000, gzip: false });
  });

  it('says each field’s problem with its bounds or fix', () => {
    const errors = validate(forwardForm({ url: 'ftp://x', writeKey: { kind: 'value', value: 'a:b' }, batchSize: '0', flushMs: '' }));
    expect(errors).toEqual({
      'trackingApi.url': 'The URL must use http or https, not ftp.',
      'trackingApi.writeKey': 'The write key may not contain spaces or ":".',
      'trackingApi.batchSize': 'Batch size must be a whole number from 1 to 500.',
      'trackingApi.flushMs': 'The flush wait must be a whole number of milliseconds from 0 to 60000.',
    });
    expect(validate(forwardForm({ url: 'https://u:p@api.example.com', writeKey: { kind: 'value', value: 'k' }, batchSize: '2.5', flushMs: '60001' }))).toEqual({
      'trackingApi.url': 'The URL must not contain credentials; the write key goes in its own field.',
      'trackingApi.batchSize': 'Batch size must be a whole number from 1 to 500.',
      'trackingApi.flushMs': 'The flush wait must be a whole number of milliseconds from 0 to 60000.',
    });
    expect(validate(forwardForm({ url: 'https://x', writeKey: { kind: 'value', value: 'k' }, caCert: 'nope' }))).toEqual({
      'trackingApi.caCert': 'The CA certificate must be a PEM certificate: paste the whole file, from -----BEGIN CERTIFICATE----- to -----END CERTIFICATE-----.',
    });
  });

  it('places the core’s refusal of a trackingApi field on that field', () => {
    const f = forwardForm({ url: 'https://x', writeKey: { kind: 'value', value: 'has space' } });
    const refused = destinationSchema.safeParse(requestOf(f));
    expect(refused.success).toBe(false);
    expect(errorsFromRefusal({ message: 'joined', issues: issuesOf(refused.error!) }, f)).toEqual({ 'trackingApi.writeKey': 'The write key may not contain spaces or ":".' });
    expect(errorsFromRefusal({ message: 'm', issues: [{ path: ['trackingApi'], message: 'only for "kind": "tracking-api"' }] }, f)).toEqual({ trackingApi: 'Only for "kind": "tracking-api".' });
  });

  it('switching kind keeps the other kind’s fields for a switch back, and only the chosen kind is saved', () => {
    const hooks: DestinationForm = { ...newForm(['web']), name: 'h', webhooks: [{ ...emptyWebhook(), url: 'http://localhost:3000/hook' }], secret: { kind: 'value', value: 's3' } };
    const switched: DestinationForm = { ...hooks, kind: 'tracking-api' };
    expect(sameSettings(hooks, switched)).toBe(false);
    expect(Object.keys(requestOf(switched))).not.toContain('webhooks');
    expect(Object.keys(requestOf(switched))).not.toContain('sharedSecret');
    const back: DestinationForm = { ...switched, kind: 'webhooks' };
    expect(sameSettings(hooks, back)).toBe(true);
    expect(requestOf(back)).toEqual(requestOf(hooks));
  });
});

describe('the stored write key, kept like the shared secret', () => {
  it('is read at save only while kept unknown, and a lost one is a problem next to the field', () => {
    const f = formOf(forwardView, sources);
    expect(storedToRead(f)).toBe(true);
    expect(storedToRead({ ...f, trackingApi: { ...f.trackingApi, writeKey: { kind: 'value', value: 'wk_new' } } })).toBe(false);
    // A webhooks destination's secrets are not this kind's business, and the reverse.
    expect(storedToRead({ ...f, secret: { kind: 'stored', masked: '••••••••' }, trackingApi: { ...f.trackingApi, writeKey: { kind: 'none' } } })).toBe(false);
    expect(keptSecretProblems(f, { secret: null, signingSecrets: [], writeKey: 'wk_real' })).toEqual({});
    expect(keptSecretProblems(f, { secret: null, signingSecrets: [], writeKey: null })).toEqual({
      'trackingApi.writeKey': 'Could not keep the stored write key (it is gone); type it again.',
    });
    expect(keptSecretProblems(f, null, 'disconnected')).toEqual({ 'trackingApi.writeKey': 'Could not keep the stored write key (disconnected); type it again.' });
  });

  it('revealed, it fills the field without making the form differ from its baseline; emptied, it is no key', () => {
    const baseline = formOf(forwardView, sources);
    const revealed = withRevealedWriteKey(baseline, 'wk_real');
    expect(revealed.trackingApi.writeKey).toEqual({ kind: 'value', value: 'wk_real' });
    expect(sameSettings(revealed, withRevealedWriteKey(baseline, 'wk_real'))).toBe(true);
    expect(withRevealedWriteKey(revealed, 'other')).toBe(revealed); // only a stored key is filled in
    const emptied = { ...revealed, trackingApi: { ...revealed.trackingApi, writeKey: { kind: 'value' as const, value: '' } } };
    expect(sameSettings(revealed, emptied)).toBe(false);
    expect(validate(emptied)['trackingApi.writeKey']).toMatch(/^Enter the write key/);
  });

  it('a webhooks view has no API: the fields start empty', () => {
    expect(trackingApiFormOf(null)).toMatchObject({ url: '', writeKey: { kind: 'none' }, gzip: false });
  });
});
