// What the desktop window hands to the user's browser (electron/main/external-links.ts).
import { describe, expect, it } from 'vitest';
import { externalUrl } from '../../electron/main/external-links.ts';

const OWN = ['app://sluice', 'http://127.0.0.1:8787', 'http://127.0.0.1:8789'];

describe('externalUrl', () => {
  it('opens plain http(s) addresses elsewhere, as the parser wrote them', () => {
    expect(externalUrl('https://segment.com/docs/connections/spec/', OWN)).toBe('https://segment.com/docs/connections/spec/');
    expect(externalUrl('http://example.com', OWN)).toBe('http://example.com/');
    expect(externalUrl('HTTPS://Example.COM/a?b=1#c', OWN)).toBe('https://example.com/a?b=1#c');
    // Another local program is not the app: its own ports only are refused.
    expect(externalUrl('http://127.0.0.1:3000/', OWN)).toBe('http://127.0.0.1:3000/');
  });

  it.each([
    ['javascript:', 'javascript:alert(1)'],
    ['javascript: hidden by a tab', 'java\tscript:alert(1)'],
    ['file:', 'file:///etc/passwd'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['a custom scheme that starts a program', 'vscode://file/etc/passwd'],
    ['the app’s own page', 'app://sluice/index.html#/stream'],
    ['a backslash read as a slash', 'http:/\\evil.example/'],
    ['backslashes for slashes', 'https:\\\\evil.example'],
    ['a missing slash', 'http:/evil.example/'],
    ['no slashes', 'http:evil.example'],
    ['credentials (reads as the bank’s)', 'https://bank.example@evil.example/'],
    ['a user and password', 'https://user:pass@example.com/'],
    ['a leading space', ' https://example.com/'],
    ['a newline inside', 'https://exa\nmple.com/'],
    ['malformed', 'https://'],
    ['malformed host', 'http://[::1/'],
    ['not a URL', 'example.com'],
    ['empty', ''],
    ['the app’s ingestion endpoint', 'http://127.0.0.1:8787/v1/batch'],
    ['the app’s receiver under another loopback name', 'http://localhost:8789/hooks/demo'],
    ['the app’s receiver over IPv6 loopback', 'http://[::1]:8789/'],
  ])('refuses %s', (_, url) => {
    expect(externalUrl(url, OWN)).toBe(null);
  });
});
