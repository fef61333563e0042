// Sluice's matchers on Vitest's expect, for every test file (vitest.config.mjs setupFiles). In a
// TypeScript project, import from 'sluice/matchers/vitest' instead: the same module, with the types.
import { expect } from 'vitest';
import { sluiceMatchers } from 'sluice/matchers';

expect.extend(sluiceMatchers);
