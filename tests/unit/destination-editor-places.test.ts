// Where the destination editor shows a problem (error-places.ts): beside its field when the form shows
// it, otherwise in the form's own line, so nothing counted in "Fix the problem marked above" goes
// unseen; and the note beside Kind when a switch to tracking-api would remove webhooks and secrets.
import { describe, expect, it } from 'vitest';
import { destinationSchema } from '../../shared/settings.ts';
import { issuesOf } from '../../electron/core/operation-error.ts';
import { emptySigningSecret, emptyWebhook, errorsFromRefusal, newForm, validate, type DestinationForm } from '../../renderer/src/views/destinations/destination-form.ts';
import { placeErrors, shownBeside } from '../../renderer/src/views/destinations/error-places.ts';
import { trackingApiField } from '../../renderer/src/views/destinations/tracking-api-form.ts';
import { kindSwitchNote } from '../../renderer/src/views/destinations/error-places.ts';

const whsec = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;

function hooks(patch: Partial<DestinationForm> = {}): DestinationForm {
  return { ...newForm(['web']), name: 'hooks', webhooks: [{ ...emptyWebhook(), url: 'http://localhost:3000/hook' }], ...patch };
}

function forward(patch: Partial<DestinationForm> = {}): DestinationForm {
  const f = newForm(['web']);
  return { ...f, name: 'up', kind: 'tracking-api', trackingApi: { ...f.trackingApi, url: 'https://api.segment.io', writeKey: { kind: 'value', value: 'wk' } }, ...patch };
}

describe('where a problem is shown', () => {
  it('beside a field the form shows; in the form line, saying what it concerns, for a field it hides', () => {
    const f = hooks({ signing: 'segment', signingSecrets: [{ ...emptySigningSecret(), value: 'whsec_short' }] });
    const problems = validate(f);
    expect(Object.keys(problems)).toEqual(['signingSecrets.0']); // the hidden Standard Webhooks secret is still sent
    const placed = placeErrors(problems, f);
    expect(placed['signingSecrets.0']).toBeUndefined();
    expect(placed.form).toBe(
      'Standard Webhooks secret (kept, shown when Signing uses Standard Webhooks): The secret must be "whsec_" followed by a 24- to 64-byte key in base64 (the Standard Webhooks form).',
    );
    // Signing with it again: beside its field.
    expect(placeErrors(validate({ ...f, signing: 'standard' }), { ...f, signing: 'standard' })).toEqual({ 'signingSecrets.0': problems['signingSecrets.0'] });
    // The shared secret, hidden while signing with Standard Webhooks alone.
    const shared = hooks({ signing: 'standard', signingSecrets: [{ ...emptySigningSecret(), value: whsec }], secret: { kind: 'value', value: 'x'.repeat(1025) } });
    expect(placeErrors(validate(shared), shared).form).toMatch(/^Shared secret \(kept, shown when Signing uses X-Signature\): /);
  });

  it('keeps the form’s own problem and adds the hidden ones after it; fields shown stay beside their field', () => {
    const f = hooks({ signing: 'segment' });
    expect(placeErrors({ form: 'The store failed.', name: 'n', 'signingSecrets.1': 'gone.' }, f)).toEqual({
      name: 'n',
      form: 'The store failed. Standard Webhooks secret (kept, shown when Signing uses Standard Webhooks): gone.',
    });
  });

  it('knows which fields each kind shows', () => {
    const f = hooks({ signing: 'both', signingSecrets: [emptySigningSecret(), emptySigningSecret()] });
    f.webhooks[0]!.headers = [{ key: 1, name: 'a', value: '' }];
    for (const field of ['name', 'sources', 'kind', 'concurrency', 'webhooks', 'webhooks.0', 'webhooks.0.url', 'webhooks.0.caCert', 'webhooks.0.headers.0', 'signing', 'bodyShape', 'sharedSecret', 'signingSecrets', 'signingSecrets.1']) {
      expect(shownBeside(field, f), field).toBe(true);
    }
    for (const field of ['webhooks.1.url', 'webhooks.0.headers.1', 'signingSecrets.2', 'trackingApi', 'trackingApi.url', 'enabled', 'options']) expect(shownBeside(field, f), field).toBe(false);
    const api = forward();
    for (const field of ['trackingApi', 'trackingApi.url', 'trackingApi.writeKey', 'trackingApi.batchSize', 'trackingApi.flushMs', 'trackingApi.gzip', 'trackingApi.caCert', 'concurrency']) {
      expect(shownBeside(field, api), field).toBe(true);
    }
    for (const field of ['bodyShape', 'webhooks.0.url', 'sharedSecret', 'signingSecrets.0', 'signing']) expect(shownBeside(field, api), field).toBe(false);
  });

  it('a problem under trackingApi (gzip included) has a field of its own, and a body shape problem on a forward goes to the form line', () => {
    expect(trackingApiField('gzip')).toBe('trackingApi.gzip');
    const api = forward();
    const refused = destinationSchema.safeParse({ name: 'up', sources: [], kind: 'tracking-api', trackingApi: { url: 'https://api.segment.io', writeKey: 'wk', gzip: 'yes' }, options: { bodyShape: 'xml' } });
    const errors = errorsFromRefusal({ message: 'm', issues: issuesOf(refused.error!) }, api);
    expect(Object.keys(errors).sort()).toEqual(['bodyShape', 'trackingApi.gzip']);
    const placed = placeErrors(errors, api);
    expect(placed['trackingApi.gzip']).toBe(errors['trackingApi.gzip']);
    expect(placed.form).toBe(errors.bodyShape);
  });
});

describe('switching the kind to tracking-api', () => {
  it('says that saving removes the webhooks and secrets the form holds', () => {
    const stored = hooks({ kind: 'tracking-api', secret: { kind: 'stored', masked: '••••••••' } });
    expect(kindSwitchNote(stored)).toBe(
      'Saving as a Tracking API forward removes its webhook and its signing secrets: a tracking-api destination has none. Choose Webhooks again before saving to keep them.',
    );
    const two = hooks({ kind: 'tracking-api', webhooks: [...hooks().webhooks, { ...emptyWebhook(), url: 'http://b/' }, emptyWebhook()] });
    expect(kindSwitchNote(two)).toBe('Saving as a Tracking API forward removes its 2 webhooks: a tracking-api destination has none. Choose Webhooks again before saving to keep them.');
    const secretsOnly = { ...forward(), signingSecrets: [{ ...emptySigningSecret(), stored: { index: 0, masked: '••••••••' } }] };
    expect(kindSwitchNote(secretsOnly)).toMatch(/^Saving as a Tracking API forward removes its signing secrets:/);
  });

  it('says nothing when there is nothing to lose, or while the kind is webhooks', () => {
    expect(kindSwitchNote(forward())).toBeNull(); // a new forward: one empty webhook row, no secret
    expect(kindSwitchNote(hooks({ secret: { kind: 'value', value: 's' } }))).toBeNull();
  });
});
