// Sluice's matchers on Jest's expect, for every test file (jest.config.mjs setupFilesAfterEnv). In a
// TypeScript project, import from 'sluice/matchers/jest' instead: the same module, with the types.
import { expect } from '@jest/globals';
import { sluiceMatchers } from 'sluice/matchers';

expect.extend(sluiceMatchers);
