// The page's token (renderer/src/transport/page-token.ts) with a page made of plain parts: an
// address, a history that records replaceState, and a Map-backed sessionStorage. The real browser
// (history entries, reloads) is in tests/e2e/inspector-link.test.ts.
import { describe, expect, it } from 'vitest';
import { takePageToken, TOKEN_KEY, type TokenPage } from '../../renderer/src/transport/page-token.ts';

function page(href: string, stored: Record<string, string> = {}, options: { storageThrows?: boolean } = {}) {
  const items = new Map(Object.entries(stored));
  const replaced: string[] = [];
  const location = { href };
  const p: TokenPage & { replaced: string[]; items: Map<string, string> } = {
    location,
    replaced,
    items,
    history: {
      state: { kept: true },
      replaceState(data, _unused, url) {
        expect(data).toEqual({ kept: true }); // the page's own history state survives
        replaced.push(url!);
        location.href = new URL(url!, location.href).href;
      },
    },
    sessionStorage: {
      getItem: (key) => items.get(key) ?? null,
      setItem: (key, value) => {
        if (options.storageThrows) throw new DOMException('quota', 'QuotaExceededError');
        items.set(key, value);
      },
    },
  };
  return p;
}

describe('takePageToken', () => {
  it('reads the token from the address, keeps it in the tab and takes it out of the address, keeping the rest', () => {
    const p = page('http://127.0.0.1:8788/?token=tok_1&view=x#/destinations');
    expect(takePageToken(p)).toBe('tok_1');
    expect(p.items.get(TOKEN_KEY)).toBe('tok_1');
    expect(p.replaced).toEqual(['/?view=x#/destinations']);
    expect(p.location.href).not.toContain('tok_1');
    // The reload: no token in the address any more, the kept one is used.
    expect(takePageToken(p)).toBe('tok_1');
    expect(p.replaced).toHaveLength(1);
  });

  it('prefers a token in the address to the one kept (a newer link opened in the same tab)', () => {
    const p = page('http://127.0.0.1:8788/?token=new#/stream', { [TOKEN_KEY]: 'old' });
    expect(takePageToken(p)).toBe('new');
    expect(p.items.get(TOKEN_KEY)).toBe('new');
    expect(p.location.href).toBe('http://127.0.0.1:8788/#/stream');
  });

  it('has no token when neither the address nor the tab has one', () => {
    expect(takePageToken(page('http://127.0.0.1:8788/#/stream'))).toBe(null);
    expect(takePageToken(page('http://127.0.0.1:8788/?token=#/stream'))).toBe(null);
  });

  it('leaves the token in the address when it cannot be kept, so that a reload still has it', () => {
    const p = page('http://127.0.0.1:8788/?token=tok_2', {}, { storageThrows: true });
    expect(takePageToken(p)).toBe('tok_2');
    expect(p.replaced).toEqual([]);
    expect(p.location.href).toContain('token=tok_2');
    const bare: TokenPage = { location: { href: 'http://127.0.0.1:8788/?token=tok_3' } };
    expect(takePageToken(bare)).toBe('tok_3');
  });

  it('survives a sessionStorage that cannot even be read (storage blocked)', () => {
    const blocked = {
      location: { href: 'http://127.0.0.1:8788/#/stream' },
      get sessionStorage(): Storage {
        throw new DOMException('blocked', 'SecurityError');
      },
    };
    expect(takePageToken(blocked)).toBe(null);
  });
});
