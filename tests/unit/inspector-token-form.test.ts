import { describe, expect, it } from 'vitest';
import { newToken } from '../../electron/host/inspector-token.ts';

describe('a new inspector token', () => {
  it('is 32 URL-safe characters and never starts with a dash (it is passed as --token T)', () => {
    // Without the rule, 1 draw in 64 starts with '-': 4,000 draws all miss it with odds of about 1e-27.
    const tokens = Array.from({ length: 4_000 }, newToken);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{31}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});
