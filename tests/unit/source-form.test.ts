// The Sources view's form model (renderer/src/views/sources/source-form.ts): the request it makes,
// the problems it shows beside each field, and where the core's refusals land.
import { describe, expect, it } from 'vitest';
import type { SourceView } from '../../shared/contract.ts';
import { errorsFromSourceRefusal, generateWriteKey, newSourceForm, sourceFormOf, sourceRequestOf, validateSource } from '../../renderer/src/views/sources/source-form.ts';

const web: SourceView = { id: 1, name: 'web', writeKey: 'wk_web', kind: 'web', fromConfig: '/p/sluice.json' };

describe('source form', () => {
  it('generates a key in the default source’s form, from the randomness given', () => {
    expect(generateWriteKey((bytes) => bytes.fill(0xab))).toBe(`wk_${'ab'.repeat(12)}`);
    const form = newSourceForm();
    expect(form).toMatchObject({ id: null, name: '', kind: 'server' });
    expect(form.writeKey).toMatch(/^wk_[0-9a-f]{24}$/);
    expect(newSourceForm().writeKey).not.toBe(form.writeKey);
  });

  it('makes the save request: an id only for an edit, the key trimmed', () => {
    expect(sourceRequestOf({ id: null, name: 'ios', writeKey: ' wk_ios ', kind: 'mobile' })).toEqual({ name: 'ios', writeKey: 'wk_ios', kind: 'mobile' });
    expect(sourceRequestOf({ ...sourceFormOf({ ...web, id: 4, fromConfig: null }), name: 'site' })).toEqual({ id: 4, name: 'site', writeKey: 'wk_web', kind: 'web' });
  });

  it('says each problem beside its field, as a sentence: the schema’s, and the names and keys taken', () => {
    expect(validateSource({ id: null, name: '', writeKey: 'wk ios', kind: 'mobile' }, [web])).toEqual({
      name: 'The name must not be empty.',
      writeKey: 'The write key may contain only letters, digits and _ - . ~.',
    });
    expect(validateSource({ id: null, name: 'web', writeKey: 'wk_web', kind: 'web' }, [web])).toEqual({
      name: 'Another source is already called “web”; choose another name.',
      writeKey: 'The source “web” already has this write key; each source needs its own — generate one.',
    });
    expect(validateSource({ id: null, name: 'ios', writeKey: 'wk_ios', kind: 'mobile' }, [web])).toEqual({});
  });

  it('puts the core’s refusal on the field it names, and one without a field in the form’s line', () => {
    const taken = 'another source is already called “ios”; choose another name';
    expect(errorsFromSourceRefusal({ message: taken, issues: [{ path: ['name'], message: taken }] })).toEqual({
      name: 'Another source is already called “ios”; choose another name.',
    });
    expect(errorsFromSourceRefusal({ message: '“web” is declared in /p/sluice.json, which Sluice applies at every start; edit it there and restart Sluice' })).toEqual({
      form: '“web” is declared in /p/sluice.json, which Sluice applies at every start; edit it there and restart Sluice.',
    });
  });
});
