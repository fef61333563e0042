import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { ConfigError, parseConfig } from '../../electron/core/config/load-config.ts';
import { defaultDataDir } from '../../electron/core/config/data-dir.ts';

const ISSUE_EXAMPLE = `{"sources": [{"name": "web", "writeKey": "wk_web", "kind": "web"}],
 "destinations": [{"name": "hooks", "enabled": true, "sources": ["web"], "sharedSecret": "abc123",
   "webhooks": [{"url": "http://127.0.0.1:9000/a", "headers": {"X-Env": "dev"}}]}]}`;

function problems(config: unknown): string[] {
  try {
    parseConfig(JSON.stringify(config), 'sluice.json');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected the config to be refused');
}

const hook = { url: 'http://127.0.0.1:9000/a' };

describe('config file', () => {
  it('loads the documented example as written, with defaults filled in', () => {
    const config = parseConfig(ISSUE_EXAMPLE);
    expect(config.sources).toEqual([{ name: 'web', writeKey: 'wk_web', kind: 'web' }]);
    expect(config.destinations[0]).toEqual({
      name: 'hooks',
      enabled: true,
      sources: ['web'],
      sharedSecret: 'abc123',
      webhooks: [{ url: 'http://127.0.0.1:9000/a', headers: { 'X-Env': 'dev' } }],
      options: { bodyShape: 'seed', concurrency: 32 },
    });
  });

  it.each([
    ['a sixth webhook', { destinations: [{ name: 'd', webhooks: Array(6).fill(hook) }] }, 'destinations[0].webhooks: at most 5 webhooks'],
    ['a non-http URL', { destinations: [{ name: 'd', webhooks: [{ url: 'ftp://x/y' }] }] }, 'destinations[0].webhooks[0].url: must use http or https'],
    ['an unparsable URL', { destinations: [{ name: 'd', webhooks: [{ url: 'not a url' }] }] }, 'destinations[0].webhooks[0].url: "not a url" is not a valid URL'],
    ['an invalid header name', { destinations: [{ name: 'd', webhooks: [{ ...hook, headers: { 'X Bad': '1' } }] }] }, 'destinations[0].webhooks[0].headers.X Bad: "X Bad" is not a valid header name'],
    ['a reserved header', { destinations: [{ name: 'd', webhooks: [{ ...hook, headers: { 'X-Signature': 'forged' } }] }] }, 'cannot be overridden'],
    ['a header value with a line break', { destinations: [{ name: 'd', webhooks: [{ ...hook, headers: { 'X-A': 'a\r\nB: c' } }] }] }, 'line breaks'],
    ['no webhooks', { destinations: [{ name: 'd', webhooks: [] }] }, 'destinations[0].webhooks: needs at least one webhook'],
    ['an unknown source', { destinations: [{ name: 'd', sources: ['mobile'], webhooks: [hook] }] }, 'destinations[0].sources[0]: unknown source "mobile"'],
    ['a bad source kind', { sources: [{ name: 's', writeKey: 'k', kind: 'tv' }] }, 'sources[0].kind'],
    ['a write key with spaces', { sources: [{ name: 's', writeKey: 'a b' }] }, 'sources[0].writeKey: may contain only'],
    ['duplicate source names', { sources: [{ name: 's', writeKey: 'a' }, { name: 's', writeKey: 'b' }] }, 'sources[1].name: duplicate source name'],
    ['a misspelt field', { destinations: [{ name: 'd', webhooks: [hook], sharedSecrett: 'x' }] }, 'sharedSecrett'],
    ['an empty secret', { destinations: [{ name: 'd', webhooks: [hook], sharedSecret: '' }] }, 'destinations[0].sharedSecret'],
  ])('refuses %s, naming the field', (_, config, expected) => {
    expect(problems(config).join('\n')).toContain(expected);
  });

  it('refuses invalid JSON with the parser\'s reason', () => {
    expect(() => parseConfig('{"sources": [', 'x.json')).toThrow(/x\.json: not valid JSON/);
  });
});

describe('default data folder', () => {
  it('is the per-user data folder of each platform', () => {
    expect(defaultDataDir('linux', {}, '/home/ada')).toBe(path.join('/home/ada', '.local', 'share', 'sluice'));
    expect(defaultDataDir('linux', { XDG_DATA_HOME: '/data' }, '/home/ada')).toBe(path.join('/data', 'sluice'));
    expect(defaultDataDir('darwin', {}, '/Users/ada')).toBe(path.join('/Users/ada', 'Library', 'Application Support', 'Sluice'));
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'C:\\Users\\ada')).toBe(
      path.join('C:\\Users\\ada\\AppData\\Roaming', 'Sluice'),
    );
  });
});
