// Vitest for examples/vitest-matchers/: `npx vitest run --config examples/vitest-matchers/vitest.config.mjs`.
// SLUICE_SHOW_FAILURE=1 runs wrong-total.failing.mjs instead: an expectation that fails on purpose,
// to show what a failure says (the closest message's difference, the test's line).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: process.env.SLUICE_SHOW_FAILURE ? ['wrong-total.failing.mjs'] : ['*.test.mjs'],
    setupFiles: ['./setup.mjs'],
  },
});
