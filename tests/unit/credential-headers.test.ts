// Which header values the inspector masks until revealed, and how a masked value reads.
import { describe, expect, it } from 'vitest';
import { isCredentialHeader, keepMaskedValues, maskCredentials, maskCredentialValues, maskedHeaderValue, SECRET_MASK } from '../../shared/credential-headers.ts';

describe('isCredentialHeader', () => {
  it('takes credentials by name, in any case', () => {
    for (const name of ['Authorization', 'authorization', 'Proxy-Authorization', 'Cookie', 'X-Api-Key', 'api_key', 'X-Auth-Token', 'X-Access-Token', 'X-Client-Secret', 'X-Password', 'X-Session-Id', 'X-Credential']) {
      expect(isCredentialHeader(name), name).toBe(true);
    }
  });

  it('leaves ordinary headers, and X-Signature (derived from the secret, compared by users), readable', () => {
    for (const name of ['X-Signature', 'x-signature', 'User-Agent', 'Content-Type', 'X-Env', 'X-Request-Id', 'Accept', 'Content-Length']) {
      expect(isCredentialHeader(name), name).toBe(false);
    }
  });
});

describe('maskedHeaderValue', () => {
  it('keeps an auth scheme readable and hides the rest', () => {
    expect(maskedHeaderValue('Bearer tok_123')).toBe('Bearer ••••••••');
    expect(maskedHeaderValue('basic dXNlcjpwYXNz')).toBe('basic ••••••••');
    expect(maskedHeaderValue('tok_123')).toBe('••••••••');
    // A scheme-looking word that is the whole value is the secret itself.
    expect(maskedHeaderValue('Bearer')).toBe('••••••••');
    expect(maskedHeaderValue('')).toBe('');
  });
});

describe('maskCredentials', () => {
  it('masks each credential header of a request, says which, and leaves the others (the signature too) as they are', () => {
    const headers = { 'User-Agent': 'Sluice/1.0', Authorization: 'Basic d2tfdXA6', 'X-Api-Key': 'k_1', 'X-Signature': 'abc', Cookie: '' };
    expect(maskCredentials(headers)).toEqual({
      headers: { 'User-Agent': 'Sluice/1.0', Authorization: 'Basic ••••••••', 'X-Api-Key': '••••••••', 'X-Signature': 'abc', Cookie: '' },
      masked: ['Authorization', 'X-Api-Key'],
    });
    expect(maskCredentials({ 'Content-Type': 'application/json' })).toEqual({ headers: { 'Content-Type': 'application/json' }, masked: [] });
  });
});

describe('credential values in JSON (a transform’s settings)', () => {
  it('masks a credential-named member at any depth, in objects and arrays, and leaves empty values and other members', () => {
    const settings = { apiKey: 'k1', region: 'eu', token: '', nested: { password: 'p', list: [{ secret: 's', n: 1 }] }, auth: { user: 'u' } };
    expect(maskCredentialValues(settings)).toEqual({ apiKey: SECRET_MASK, region: 'eu', token: '', nested: { password: SECRET_MASK, list: [{ secret: SECRET_MASK, n: 1 }] }, auth: SECRET_MASK });
  });

  it('puts the stored value back where a mask stands, and lists each place where nothing is stored', () => {
    const stored = { apiKey: 'k1', nested: { password: 'p', list: [{ secret: 's' }] }, auth: { user: 'u' } };
    expect(keepMaskedValues(maskCredentialValues(stored), stored)).toEqual({ value: stored, missing: [] });
    expect(keepMaskedValues({ apiKey: 'new', nested: { password: SECRET_MASK, list: [{ secret: SECRET_MASK }, { secret: SECRET_MASK }] }, other: SECRET_MASK }, stored)).toEqual({
      value: { apiKey: 'new', nested: { password: 'p', list: [{ secret: 's' }, { secret: undefined }] }, other: undefined },
      missing: [['nested', 'list', 1, 'secret'], ['other']],
    });
  });
});
