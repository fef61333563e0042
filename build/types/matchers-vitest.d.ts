// `sluice/matchers/vitest`: sluice/matchers, and its matchers typed on Vitest's `expect` (declaration
// merging into Vitest's Assertion, as Vitest documents for expect.extend). Types only: import it as
// `import { sluiceMatchers } from 'sluice/matchers/vitest'` (the same module as sluice/matchers), or
// name it in tsconfig's "types" — it imports no Vitest at run time.
import type { SluiceMatchers } from './matchers.js';

export * from './matchers.js';

declare module 'vitest' {
  interface Assertion<R, T> extends SluiceMatchers<Promise<void>> {}
}
