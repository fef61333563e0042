// The composer's pure parts: templates (valid by the client library's own rules), the form ↔ fields
// mapping, the JSON field check with where it breaks, and which field a client error belongs to.
import { describe, expect, it } from 'vitest';
import { buildMessage } from '../../electron/client/message-builder.ts';
import { COMPOSER_TYPES, FIELDS_BY_TYPE, sampleMessages, TEMPLATES, templatesFor } from '../../shared/composer-templates.ts';
import { MESSAGE_TYPES } from '../../shared/messages.ts';
import {
  emptyForm,
  errorField,
  explainClientError,
  fieldsToSend,
  formFromTemplate,
  jsonErrors,
  switchType,
} from '../../renderer/src/views/composer/composer-form.ts';
import { parseJsonObject } from '../../renderer/src/views/composer/json-field.ts';

describe('templates', () => {
  it('offers at least one per message type, the brief’s named ones among them', () => {
    expect(COMPOSER_TYPES).toEqual(MESSAGE_TYPES);
    for (const type of MESSAGE_TYPES) expect(templatesFor(type).length).toBeGreaterThan(0);
    expect(TEMPLATES.map((t) => t.label)).toEqual(expect.arrayContaining(['Order Completed', 'Signed Up', 'Pricing page']));
    expect(new Set(TEMPLATES.map((t) => t.id)).size).toBe(TEMPLATES.length);
  });

  it('use only their type’s form fields, and go through the form to fields the client library accepts unchanged', () => {
    for (const template of TEMPLATES) {
      for (const key of Object.keys(template.fields)) expect(FIELDS_BY_TYPE[template.type], `${template.id}.${key}`).toContain(key);
      const sent = fieldsToSend(formFromTemplate(template));
      expect(sent).toEqual({ ok: true, fields: template.fields });
      expect(() => buildMessage(template.type, sent.ok ? (sent.fields as never) : (undefined as never), Date.now())).not.toThrow();
    }
  });

  it('samples tell one visitor’s first session, every message valid', () => {
    const samples = sampleMessages();
    expect(samples.map((s) => s.type)).toEqual(['page', 'track', 'identify', 'alias', 'track', 'group']);
    for (const { type, fields } of samples) expect(() => buildMessage(type, fields as never, Date.now())).not.toThrow();
    // The alias merges the anonymous page view into the identified user.
    expect(samples[3]!.fields.previousId).toBe(samples[0]!.fields.anonymousId);
    expect(samples[3]!.fields.userId).toBe(samples[2]!.fields.userId);
  });
});

describe('parseJsonObject', () => {
  it('takes an object, and empty text as "left out"', () => {
    expect(parseJsonObject('{"plan": "pro", "seats": 3}', 'Traits')).toEqual({ ok: true, value: { plan: 'pro', seats: 3 } });
    expect(parseJsonObject('  \n ', 'Traits')).toEqual({ ok: true, value: undefined });
  });

  it('says on which line and column the JSON breaks', () => {
    const result = parseJsonObject('{\n  "plan": "pro"\n  "seats": 3\n}', 'Traits');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatch(/^Traits is not valid JSON: .* at line 3, column 3\.$/);
      expect(result.error).not.toMatch(/position/);
    }
    const open = parseJsonObject('{"plan": ', 'Properties');
    expect(open).toEqual({ ok: false, error: 'Properties is not valid JSON: it ends too early (a closing } or ] or " is missing).' });
  });

  it('refuses JSON that is not an object, naming what it is', () => {
    expect(parseJsonObject('[1, 2]', 'Properties')).toEqual({ ok: false, error: 'Properties must be a JSON object such as {"plan": "pro"}, not an array.' });
    expect(parseJsonObject('null', 'Traits')).toMatchObject({ ok: false, error: expect.stringContaining('not null') });
    expect(parseJsonObject('"x"', 'Traits')).toMatchObject({ ok: false, error: expect.stringContaining('not a string') });
  });
});

describe('the form', () => {
  it('sends only its type’s fields, trimmed, leaving empty ones for the client to report', () => {
    const form = { ...emptyForm('track'), userId: '  u_1 ', event: 'Clicked', properties: '', traits: '{"ignored": true}', groupId: 'g' };
    expect(fieldsToSend(form)).toEqual({ ok: true, fields: { userId: 'u_1', event: 'Clicked' } });
    expect(fieldsToSend(emptyForm('alias'))).toEqual({ ok: true, fields: {} });
  });

  it('checks only the JSON fields its type has', () => {
    const track = { ...emptyForm('track'), properties: '{oops', traits: '{also bad' };
    expect(Object.keys(jsonErrors(track))).toEqual(['properties']);
    expect(fieldsToSend(track)).toMatchObject({ ok: false, errors: { properties: expect.stringContaining('Properties is not valid JSON') } });
    expect(jsonErrors({ ...emptyForm('identify'), traits: '[]' })).toEqual({ traits: expect.stringContaining('not an array') });
  });

  it('keeps who sent it when the type changes, and nothing else', () => {
    const form = { ...emptyForm('track'), userId: 'u_1', anonymousId: 'a_1', event: 'E', properties: '{"a":1}' };
    expect(switchType(form, 'group')).toEqual({ ...emptyForm('group'), userId: 'u_1', anonymousId: 'a_1' });
  });
});

describe('client errors', () => {
  it('land under the field they are about', () => {
    expect(errorField('missing_user', 'track needs a userId or an anonymousId')).toBe('userId');
    expect(errorField('missing_event', 'x')).toBe('event');
    expect(errorField('missing_group_id', 'x')).toBe('groupId');
    expect(errorField('missing_previous_id', 'x')).toBe('previousId');
    expect(errorField('invalid_field', 'track: "properties" must be an object')).toBe('properties');
    expect(errorField('invalid_field', 'track: "context" must be an object')).toBe('form');
    expect(errorField('message_too_large', 'x')).toBe('form');
  });

  it('read as sentences with the fix', () => {
    expect(explainClientError('missing_user', 'track: needs a userId or an anonymousId')).toBe(
      'track: needs a userId or an anonymousId. Fill in the User ID or the Anonymous ID.',
    );
    expect(explainClientError('client_closed', 'the client is closed.')).toBe('the client is closed.');
  });
});
