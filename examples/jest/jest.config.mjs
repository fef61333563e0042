// Jest for examples/jest/: ES module tests as they are (no transform), in Node.
export default {
  rootDir: '.',
  testMatch: ['**/*.test.mjs'],
  testEnvironment: 'node',
  transform: {},
};
