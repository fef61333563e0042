// The destination editor's model: the save request it builds, its validation with the core's own
// schema, the core's refusals (structured issues) placed on the fields their paths name, and what the
// delete confirmation says.
import { describe, expect, it } from 'vitest';
import type { DestinationView, SourceView } from '../../shared/contract.ts';
import { destinationSchema } from '../../shared/settings.ts';
import { issuesOf } from '../../electron/core/operation-error.ts';
import { deletedNote, deleteQuestion } from '../../renderer/src/views/destinations/delete-wording.ts';
import {
  CONCURRENCY_MAX,
  CONCURRENCY_MIN,
  emptyHeader,
  emptyWebhook,
  emptySigningSecret,
  errorsFromRefusal,
  fieldOf,
  formOf,
  generateSecret,
  generateSigningSecret,
  newForm,
  requestOf,
  sameSettings,
  validate,
  type DestinationForm,
} from '../../renderer/src/views/destinations/destination-form.ts';
import { keptSecretProblems, storedToRead, withRevealedSigningSecrets } from '../../renderer/src/views/destinations/stored-secrets.ts';

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
  maskedSecret: '••••••••',
  signing: 'segment',
  maskedSigningSecrets: [],
  health: [],
  filters: [],
  transform: null,
  options: { bodyShape: 'full', concurrency: 4 },
  kind: 'webhooks',
  trackingApi: null,
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
  it('reads a stored destination and writes it back unchanged by its id, the stored secret filled in at save', () => {
    const f = formOf(view, sources);
    expect(f.sources).toEqual(['ios']);
    expect(f.secret).toEqual({ kind: 'stored', masked: '••••••••' });
    expect(requestOf(f, 'the-secret')).toEqual({
      id: 7,
      name: 'hooks',
      enabled: true,
      sources: ['ios'],
      webhooks: view.webhooks,
      sharedSecret: 'the-secret',
      signing: 'segment',
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
      signing: 'segment',
      options: { bodyShape: 'seed', concurrency: 32 },
    });
    expect(destinationSchema.safeParse(request).success).toBe(true);
  });

  it('saves a rename and a new concurrency under the same id', () => {
    const f = { ...formOf(view, sources), name: ' renamed ', concurrency: ' 12 ' };
    expect(requestOf(f, 's')).toMatchObject({ id: 7, name: 'renamed', options: { bodyShape: 'full', concurrency: 12 } });
    expect(requestOf(form())).not.toHaveProperty('id'); // a new destination
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
    expect(validate(f)).toEqual({ 'webhooks.1.url': 'The URL must use http or https (or sluice://receiver/<hook> for the built-in receiver), not ftp.' });
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
      'webhooks.1.url': 'The URL must use http or https (or sluice://receiver/<hook> for the built-in receiver), not ftp.',
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

  it('refuses a name another destination has, for a new one and for a rename', () => {
    const taken = { name: 'Another destination is already called “hooks”; choose another name.' };
    expect(validate(form(), ['hooks'])).toEqual(taken);
    expect(validate({ ...formOf(view, sources), name: 'hooks ' }, ['other', 'hooks'])).toEqual(taken);
    // `takenNames` are the others': its own name is no clash.
    expect(validate(formOf(view, sources), ['other'])).toEqual({});
  });

  it('checks concurrency against the schema’s bounds, with one sentence for every way it is wrong', () => {
    expect([CONCURRENCY_MIN, CONCURRENCY_MAX]).toEqual([1, 256]);
    const wrong = { concurrency: 'Concurrency must be a whole number from 1 to 256.' };
    for (const typed of ['', '0', '257', '2.5', '-3', 'abc']) expect(validate(form({ concurrency: typed })), typed).toEqual(wrong);
    for (const typed of ['1', '256', ' 8 ']) expect(validate(form({ concurrency: typed })), typed).toEqual({});
    expect(formOf(view, sources).concurrency).toBe('4');
    expect(newForm([]).concurrency).toBe('32'); // the schema's default
  });
});

describe("the core's refusals, placed by their issues' paths", () => {
  it('puts each issue of an invalid save on the field its path names (what the core answers: issuesOf its zod error)', () => {
    const f = withHeaders(['X-Env', 'dev'], ['X-Signature', 'forged']);
    f.webhooks.push({ ...emptyWebhook(), url: 'ftp://x/in' });
    const refused = destinationSchema.safeParse(requestOf(f));
    expect(refused.success).toBe(false);
    expect(errorsFromRefusal({ message: 'joined', issues: issuesOf(refused.error!) }, f)).toEqual({
      'webhooks.0.headers.1': '"X-Signature" is set by Sluice and cannot be overridden.',
      'webhooks.1.url': 'The URL must use http or https (or sluice://receiver/<hook> for the built-in receiver), not ftp.',
    });
  });

  it('finds a header row by its name, dots and all, and the fields of the core’s own refusals', () => {
    const f = withHeaders(['X-Env', 'dev'], ['X-Api.Key', 'a\nb']);
    expect(errorsFromRefusal({ message: 'm', issues: [{ path: ['webhooks', 0, 'headers', 'X-Api.Key'], message: 'header values may not contain line breaks or NUL' }] }, f)).toEqual({
      'webhooks.0.headers.1': 'Header values may not contain line breaks or NUL.',
    });
    const taken = 'another destination is already called “a”; choose another name';
    expect(errorsFromRefusal({ message: taken, issues: [{ path: ['name'], message: taken }] }, f)).toEqual({
      name: 'Another destination is already called “a”; choose another name.',
    });
    expect(errorsFromRefusal({ message: 'm', issues: [{ path: ['sources', 1], message: 'unknown source "gone"; choose one of the sources listed' }] }, f)).toEqual({
      sources: 'Unknown source "gone"; choose one of the sources listed.',
    });
    expect(errorsFromRefusal({ message: 'm', issues: [{ path: ['options', 'concurrency'], message: 'Too big: expected number to be <=256' }] }, f)).toEqual({
      concurrency: 'Concurrency must be a whole number from 1 to 256.',
    });
  });

  it('keeps the first problem per field, and shows a refusal without issues on the form', () => {
    const f = form();
    expect(
      errorsFromRefusal({ message: 'm', issues: [{ path: ['webhooks', 0, 'url'], message: 'first' }, { path: ['webhooks', 0, 'url'], message: 'second' }] }, f),
    ).toEqual({ 'webhooks.0.url': 'First.' });
    expect(errorsFromRefusal({ message: 'there is no destination 7; it may have been deleted meanwhile — reload the list' }, f)).toEqual({
      form: 'There is no destination 7; it may have been deleted meanwhile — reload the list.',
    });
    expect(errorsFromRefusal({ message: 'the store is closed', issues: [] }, f)).toEqual({ form: 'The store is closed.' });
  });

  it('falls back to the webhook, then to the form, for paths it cannot place', () => {
    const f = withHeaders(['X-Env', 'dev']);
    expect(fieldOf(['webhooks', 0, 'headers', 'X-Gone'], f)).toBe('webhooks.0');
    expect(fieldOf(['options', 'other'], f)).toBe('form');
    expect(fieldOf(['id'], f)).toBe('form');
    expect(fieldOf([], f)).toBe('form');
  });
});

describe('the delete confirmation', () => {
  it('says what happens to the pending and retrying deliveries, and that history stays', () => {
    expect(deleteQuestion('hooks', 3)).toBe(
      'Delete “hooks”? Its 3 pending or retrying deliveries will be cancelled: nothing more is sent for them. Its delivered and failed deliveries and their attempts stay in the message history; new messages of its sources are no longer sent to it.',
    );
    expect(deleteQuestion('hooks', 1)).toMatch(/^Delete “hooks”\? Its 1 pending or retrying delivery will be cancelled: nothing more is sent for it\. /);
    expect(deleteQuestion('hooks', 0)).toMatch(/^Delete “hooks”\? Nothing is waiting to be sent to it\. Its delivered and failed/);
    expect(deletedNote('hooks', 2)).toBe('Deleted “hooks”; 2 pending or retrying deliveries were cancelled.');
    expect(deletedNote('hooks', 1)).toBe('Deleted “hooks”; 1 pending or retrying delivery was cancelled.');
    expect(deletedNote('hooks', 0)).toBe('Deleted “hooks”.');
    // Counts are said as everywhere else (shared/counted.ts): digit groups.
    expect(deletedNote('hooks', 1204)).toBe('Deleted “hooks”; 1,204 pending or retrying deliveries were cancelled.');
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

describe('Standard Webhooks signing', () => {
  const whsec = (fill: number, bytes = 32) => `whsec_${Buffer.alloc(bytes, fill).toString('base64')}`;
  const [current, next] = [whsec(1), whsec(2)];
  const rotating: DestinationView = { ...view, signing: 'standard', maskedSigningSecrets: ['••••••••', '••••••••'] };
  const standard = (values: string[], patch: Partial<DestinationForm> = {}): DestinationForm =>
    form({ signing: 'standard', signingSecrets: values.map((value) => ({ ...emptySigningSecret(), value })), ...patch });

  it('reads the scheme and the stored secrets masked, and writes them back at their places once read', () => {
    const f = formOf(rotating, sources);
    expect(f.signing).toBe('standard');
    expect(f.signingSecrets.map((r) => [r.value, r.stored])).toEqual([
      ['', { index: 0, masked: '••••••••' }],
      ['', { index: 1, masked: '••••••••' }],
    ]);
    // "standard" sends no X-Signature, but the stored shared secret is kept (sent back as it is).
    expect(requestOf(f, 'shared', [current, next])).toMatchObject({ signing: 'standard', signingSecrets: [current, next], sharedSecret: 'shared' });
    expect(validate(f)).toEqual({});
    // Without secrets stored, one empty field to fill.
    expect(formOf(view, sources).signingSecrets).toEqual([{ key: expect.any(Number), value: '', stored: null }]);
  });

  it('keeps a stored secret unless it is replaced or removed: the old one removed keeps the next one', () => {
    const f = formOf(rotating, sources);
    const removedFirst = { ...f, signingSecrets: [f.signingSecrets[1]!] };
    expect(requestOf(removedFirst, undefined, [current, next])).toMatchObject({ signingSecrets: [next] });
    const replaced = { ...f, signingSecrets: [f.signingSecrets[0]!, { ...f.signingSecrets[1]!, value: ` ${whsec(3)}\n` }] };
    expect(requestOf(replaced, undefined, [current, next])).toMatchObject({ signingSecrets: [current, whsec(3)] });
    expect(sameSettings(f, formOf(rotating, sources))).toBe(true);
    expect(sameSettings(f, removedFirst)).toBe(false);
    expect(sameSettings(f, replaced)).toBe(false);
  });

  it('sends the secrets of both schemes whatever the signing: the one not in use is kept, not deleted', () => {
    const f = standard([current], { secret: { kind: 'value', value: 'seed-secret' } });
    const kept = { sharedSecret: 'seed-secret', signingSecrets: [current] };
    expect(requestOf(f)).toMatchObject({ signing: 'standard', ...kept });
    expect(requestOf({ ...f, signing: 'both' })).toMatchObject({ signing: 'both', ...kept });
    const segment = requestOf({ ...f, signing: 'segment' });
    expect(segment).toMatchObject({ signing: 'segment', ...kept });
    for (const request of [requestOf(f), requestOf({ ...f, signing: 'both' }), segment]) expect(destinationSchema.safeParse(request).success).toBe(true);
    // Stored ones too: a destination signing with X-Signature keeps its stored Standard Webhooks secrets.
    const stored = { ...formOf(rotating, sources), signing: 'segment' as const };
    expect(requestOf(stored, 'shared', [current, next])).toMatchObject({ signing: 'segment', sharedSecret: 'shared', signingSecrets: [current, next] });
    // Nothing typed or stored: nothing sent.
    expect(requestOf(form())).not.toHaveProperty('signingSecrets');
  });

  it('places problems next to the secret they concern', () => {
    expect(validate(standard(['']))).toEqual({ signingSecrets: 'Standard Webhooks signing needs a secret: generate one, or paste the receiver’s (whsec_…).' });
    expect(validate(standard([current, '']))).toEqual({ 'signingSecrets.1': 'Generate or paste this secret, or remove it.' });
    expect(validate(standard([current, current]))).toEqual({ 'signingSecrets.1': 'This is the secret above again: the next secret must be a new one.' });
    const bad = 'The secret must be "whsec_" followed by a 24- to 64-byte key in base64 (the Standard Webhooks form).';
    expect(validate(standard([current, 'whsec_short']))).toEqual({ 'signingSecrets.1': bad });
    expect(validate(standard([current, whsec(2, 65)]))).toEqual({ 'signingSecrets.1': bad });
    expect(validate(standard([current, whsec(2, 23)]))).toEqual({ 'signingSecrets.1': bad });
    expect(validate(standard([whsec(2, 24), whsec(3, 64)]))).toEqual({});
    // "both" needs the shared secret as well.
    expect(validate(standard([current], { signing: 'both' }))).toEqual({
      sharedSecret: 'Signing with both needs a shared secret for X-Signature too: generate one, or choose Standard Webhooks alone.',
    });
    // X-Signature alone still sends (keeps) a typed Standard Webhooks secret, so a bad one is refused.
    expect(validate(standard(['whsec_short'], { signing: 'segment' }))).toEqual({ 'signingSecrets.0': bad });
    expect(validate(standard(['', ''], { signing: 'segment' }))).toEqual({}); // empty rows are not sent
  });

  it("places the core's refusal of a secret on its row, empty rows skipped", () => {
    const f = standard(['', 'whsec_bad']);
    const refused = destinationSchema.safeParse(requestOf(f));
    expect(refused.success).toBe(false);
    expect(errorsFromRefusal({ message: 'm', issues: issuesOf(refused.error!) }, f)).toEqual({
      'signingSecrets.1': 'The secret must be "whsec_" followed by a 24- to 64-byte key in base64 (the Standard Webhooks form).',
    });
    expect(fieldOf(['signing'], f)).toBe('signing');
    expect(fieldOf(['signingSecrets'], f)).toBe('signingSecrets');
  });

  it('reads the stored secrets of either scheme at save, and says which could not be kept', () => {
    const f = formOf(rotating, sources);
    expect(storedToRead(f)).toBe(true);
    expect(storedToRead({ ...f, signingSecrets: f.signingSecrets.map((r) => ({ ...r, value: current })) })).toBe(true); // the stored shared secret
    expect(storedToRead({ ...f, secret: { kind: 'none' }, signingSecrets: f.signingSecrets.map((r) => ({ ...r, value: current })) })).toBe(false);
    // The shared secret is kept (so read) while signing with Standard Webhooks alone.
    expect(storedToRead({ ...formOf(view, sources), signing: 'standard', signingSecrets: [{ ...emptySigningSecret(), value: current }] })).toBe(true);
    expect(storedToRead({ ...f, signing: 'segment' })).toBe(true);
    expect(storedToRead(formOf(view, sources))).toBe(true);
    expect(keptSecretProblems(f, { secret: 'shared', signingSecrets: [current, next] })).toEqual({});
    expect(keptSecretProblems(f, { secret: 'shared', signingSecrets: [current] })).toEqual({
      'signingSecrets.1': 'Could not keep the stored secret (it is gone); generate or paste one, or remove it.',
    });
    expect(Object.keys(keptSecretProblems({ ...f, signing: 'both' }, null, 'disconnected'))).toEqual(['sharedSecret', 'signingSecrets.0', 'signingSecrets.1']);
    expect(Object.keys(keptSecretProblems({ ...f, signing: 'segment' }, null, 'disconnected'))).toEqual(['sharedSecret', 'signingSecrets.0', 'signingSecrets.1']);
  });

  it('fills revealed secrets in by their place, and notices one that is gone', () => {
    const f = formOf(rotating, sources);
    const revealed = withRevealedSigningSecrets({ ...f, signingSecrets: [f.signingSecrets[1]!] }, [current, next])!;
    expect(revealed.signingSecrets.map((r) => r.value)).toEqual([next]);
    expect(withRevealedSigningSecrets(f, [current])).toBeNull();
  });

  it('generates whsec_ and 32 random bytes in base64, which the core accepts', () => {
    expect(generateSigningSecret((b) => b.fill(0xff))).toBe(`whsec_${Buffer.alloc(32, 0xff).toString('base64')}`);
    const a = generateSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(generateSigningSecret()).not.toBe(a);
    expect(validate(standard([a, generateSigningSecret()]))).toEqual({});
  });
});
