// The destination editor's model: the save request it builds, its validation with the core's own
// schema, and the core's refusals read back onto the fields they name.
import { describe, expect, it } from 'vitest';
import type { DestinationView, SourceView } from '../../shared/contract.ts';
import { describeIssues, destinationSchema } from '../../shared/settings.ts';
import {
  emptyHeader,
  emptyWebhook,
  errorsFromRefusal,
  fieldOf,
  formOf,
  generateSecret,
  issuesFromMessage,
  newForm,
  parsePath,
  requestOf,
  sameSettings,
  validate,
  type DestinationForm,
} from '../../renderer/src/views/destinations/destination-form.ts';

const sources: SourceView[] = [
  { id: 1, name: 'web', writeKey: 'wk_web', kind: 'web' },
  { id: 2, name: 'ios', writeKey: 'wk_ios', kind: 'mobile' },
];

const view: DestinationView = {
  id: 7,
  name: 'hooks',
  enabled: true,
  sourceIds: [2],
  webhooks: [
    { url: 'http://127.0.0.1:3000/hook', headers: { 'X-Env': 'dev', Authorization: 'Bearer t' } },
    { url: 'https://localhost:8443/in', headers: {}, caCert: '-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----' },
  ],
  hasSecret: true,
  maskedSecret: 'abc•••••',
  options: { bodyShape: 'full', concurrency: 4 },
};

function form(patch: Partial<DestinationForm> = {}): DestinationForm {
  return { ...newForm(['web']), name: 'hooks', webhooks: [{ ...emptyWebhook(), url: 'http://localhost:3000/hook' }], ...patch };
}

function withHeaders(...rows: [string, string][]): DestinationForm {
  const f = form();
  f.webhooks[0]!.headers = rows.map(([name, value]) => ({ ...emptyHeader(), name, value }));
  return f;
}

describe('the save request', () => {
  it('reads a stored destination and writes it back unchanged, the stored secret filled in at save', () => {
    const f = formOf(view, sources);
    expect(f.sources).toEqual(['ios']);
    expect(f.secret).toEqual({ kind: 'stored', masked: 'abc•••••' });
    expect(requestOf(f, 'the-secret')).toEqual({
      name: 'hooks',
      enabled: true,
      sources: ['ios'],
      webhooks: view.webhooks,
      sharedSecret: 'the-secret',
      options: { bodyShape: 'full', concurrency: 4 },
    });
  });

  it('drops blank header rows, trims URL, name and CA, and sends no secret when the field is empty', () => {
    const f = withHeaders(['', ''], [' X-Env ', 'a b'], ['', '']);
    f.name = '  hooks ';
    f.webhooks[0]!.url = ' http://localhost:3000/hook ';
    f.webhooks[0]!.caCert = '   ';
    f.secret = { kind: 'value', value: '' };
    const request = requestOf(f);
    expect(request).toEqual({
      name: 'hooks',
      enabled: true,
      sources: ['web'],
      webhooks: [{ url: 'http://localhost:3000/hook', headers: { 'X-Env': 'a b' } }],
      options: { bodyShape: 'seed', concurrency: 32 },
    });
    expect(destinationSchema.safeParse(request).success).toBe(true);
  });

  it('connects the only source of a new destination, and none when there is a choice', () => {
    expect(newForm(['web']).sources).toEqual(['web']);
    expect(newForm(['web', 'ios']).sources).toEqual([]);
  });
});

describe('validation with the core schema, by field', () => {
  it('accepts a valid form', () => {
    expect(validate(withHeaders(['X-Env', 'dev']))).toEqual({});
    expect(validate(formOf(view, sources))).toEqual({}); // a stored secret is valid as it is
  });

  it('places a URL problem next to its webhook, as a sentence', () => {
    const f = form();
    f.webhooks.push({ ...emptyWebhook(), url: 'ftp://example.com/in' });
    expect(validate(f)).toEqual({ 'webhooks.1.url': 'The URL must use http or https, not ftp.' });
    f.webhooks[1]!.url = 'not a url';
    expect(validate(f)['webhooks.1.url']).toMatch(/^"not a url" is not a valid URL; use a full URL such as http:\/\/localhost:3000\/hook\.$/);
    f.webhooks[1]!.url = '';
    expect(validate(f)['webhooks.1.url']).toBe('Enter the URL to post to, e.g. http://localhost:3000/hook.');
  });

  it('refuses a sixth webhook and a destination without any', () => {
    const six = form({ webhooks: Array.from({ length: 6 }, (_, i) => ({ ...emptyWebhook(), url: `http://localhost:3000/${i}` })) });
    expect(validate(six)).toEqual({ webhooks: 'A destination has at most 5 webhooks; remove one before saving.' });
    expect(validate({ ...six, webhooks: six.webhooks.slice(0, 5) })).toEqual({});
    // Each webhook is still checked when there are too many.
    six.webhooks[1]!.url = 'ftp://example.com/in';
    expect(validate(six)).toEqual({
      webhooks: 'A destination has at most 5 webhooks; remove one before saving.',
      'webhooks.1.url': 'The URL must use http or https, not ftp.',
    });
    expect(validate(form({ webhooks: [] }))).toEqual({ webhooks: 'Add at least one webhook URL.' });
  });

  it('finds the header row a problem names', () => {
    expect(validate(withHeaders(['X-Env', 'dev'], ['Content-Type', 'text/plain']))).toEqual({
      'webhooks.0.headers.1': '"Content-Type" is set by Sluice and cannot be overridden.',
    });
    expect(validate(withHeaders(['X Bad', 'v']))).toEqual({ 'webhooks.0.headers.0': '"X Bad" is not a valid header name.' });
    expect(validate(withHeaders(['X-A', 'line\nbreak']))['webhooks.0.headers.0']).toMatch(/line breaks/);
    expect(validate(withHeaders(['', 'orphan value']))).toEqual({ 'webhooks.0.headers.0': 'Give this header a name, or remove the row.' });
    expect(validate(withHeaders(['X-Env', 'a'], ['x-env', 'b']))).toEqual({
      'webhooks.0.headers.1': '“x-env” is already set above; a header may appear once.',
    });
  });

  it('checks the name, the secret and the CA certificate', () => {
    expect(validate(form({ name: '  ' }))).toEqual({ name: 'The name must not be empty.' });
    expect(validate(form({ secret: { kind: 'value', value: 'x'.repeat(1025) } }))).toHaveProperty('sharedSecret');
    const f = form();
    f.webhooks[0]!.caCert = 'not pem';
    expect(validate(f)['webhooks.0.caCert']).toMatch(/^The CA certificate must be a PEM certificate: paste the whole file/);
  });

  it('warns that a new destination would replace one of the same name, but not when editing it', () => {
    expect(validate(form(), ['hooks'])).toEqual({ name: 'A destination called “hooks” already exists; choose another name (saving would replace it).' });
    expect(validate(formOf(view, sources), ['hooks'])).toEqual({});
  });
});

describe("the core's refusals, read back onto the fields", () => {
  it('splits a joined message only where a new field starts, keeping "; " inside a message', () => {
    expect(
      issuesFromMessage('webhooks[0].url: must not contain credentials; use a static header instead; webhooks: at most 5 webhooks per destination'),
    ).toEqual([
      { path: ['webhooks', 0, 'url'], message: 'must not contain credentials; use a static header instead' },
      { path: ['webhooks'], message: 'at most 5 webhooks per destination' },
    ]);
    expect(issuesFromMessage('something else went wrong')).toEqual([{ path: [], message: 'something else went wrong' }]);
  });

  it('reads header names with dots and brackets as one segment', () => {
    expect(parsePath('webhooks[2].headers.X-Api.Key')).toEqual(['webhooks', 2, 'headers', 'X-Api.Key']);
    expect(parsePath('options.bodyShape')).toEqual(['options', 'bodyShape']);
    expect(parsePath('(root)')).toEqual([]);
  });

  it('maps what the core answers for an invalid save (describeIssues joined) to the same fields as validation', () => {
    const f = withHeaders(['X-Env', 'dev'], ['X-Signature', 'forged']);
    f.webhooks.push({ ...emptyWebhook(), url: 'ftp://x/in' });
    const refused = destinationSchema.safeParse(requestOf(f));
    expect(refused.success).toBe(false);
    const message = describeIssues(refused.error!).join('; ');
    expect(errorsFromRefusal(message, f)).toEqual({
      'webhooks.0.headers.1': '"X-Signature" is set by Sluice and cannot be overridden.',
      'webhooks.1.url': 'The URL must use http or https, not ftp.',
    });
    expect(errorsFromRefusal('sources: unknown source "gone"', f)).toEqual({ sources: 'Unknown source "gone".' });
    expect(errorsFromRefusal('the store is closed', f)).toEqual({ form: 'The store is closed.' });
  });

  it('falls back to the webhook, then to the form, for paths it cannot place', () => {
    const f = withHeaders(['X-Env', 'dev']);
    expect(fieldOf(['webhooks', 0, 'headers', 'X-Gone'], f)).toBe('webhooks.0');
    expect(fieldOf(['options', 'concurrency'], f)).toBe('form');
    expect(fieldOf([], f)).toBe('form');
  });
});

describe('the rest of the editor model', () => {
  it('generates 32 random bytes as hex', () => {
    expect(generateSecret((b) => b.fill(0xab))).toBe('ab'.repeat(32));
    const a = generateSecret();
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(generateSecret()).not.toBe(a);
  });

  it('tells unsaved changes from a form that would save the same', () => {
    const base = formOf(view, sources);
    expect(sameSettings(base, formOf(view, sources))).toBe(true); // new row keys, same settings
    expect(sameSettings(base, { ...base, bodyShape: 'seed' })).toBe(false);
    expect(sameSettings(base, { ...base, secret: { kind: 'none' } })).toBe(false);
    const none = form();
    expect(sameSettings(none, { ...none, secret: { kind: 'value', value: '' } })).toBe(true);
  });
});
