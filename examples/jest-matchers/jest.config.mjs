// Jest for examples/jest-matchers/: ES module tests as they are (no transform), in Node —
// `NODE_OPTIONS=--experimental-vm-modules npx jest --config examples/jest-matchers/jest.config.mjs`.
// SLUICE_SHOW_FAILURE=1 runs wrong-total.failing.mjs instead: an expectation that fails on purpose,
// to show what a failure says (the closest message's difference, the test's line).
export default {
  rootDir: '.',
  testMatch: process.env.SLUICE_SHOW_FAILURE ? ['**/wrong-total.failing.mjs'] : ['**/*.test.mjs'],
  testEnvironment: 'node',
  transform: {},
  setupFilesAfterEnv: ['<rootDir>/setup.mjs'],
};
