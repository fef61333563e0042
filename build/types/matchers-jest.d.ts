// `sluice/matchers/jest`: sluice/matchers, and its matchers typed on Jest's `expect` — `@jest/globals`'
// (the `expect` package's Matchers, as Jest documents for expect.extend) and the global `expect` of
// @types/jest (`jest.Matchers`). Types only: import it as `import { sluiceMatchers } from
// 'sluice/matchers/jest'` (the same module as sluice/matchers) — it imports no Jest at run time.
import type { SluiceMatchers } from './matchers.js';

export * from './matchers.js';

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends SluiceMatchers<Promise<void>> {}
}

declare global {
  namespace jest {
    interface Matchers<R, T = {}> extends SluiceMatchers<Promise<void>> {}
  }
}
