import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Real servers, real SQLite files, real child processes: give them room, but not forever.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Removes the temporary folders a test file made (tests/helpers/temp-dirs.ts) once the file has run.
    setupFiles: ['tests/helpers/temp-dirs-setup.ts'],
    // Node 24's V8 can abort in a worker thread while it tiers up a Wasm-to-JS import wrapper
    // (Runtime_TierUpWasmToJSWrapper → WasmImportWrapperCache::Free → ThreadIsolation::
    // UnregisterWasmAllocation: V8_Fatal, SIGTRAP), that cache being shared by every isolate of the
    // process. A test's process runs Wasm in several isolates at once: the core's worker threads strip
    // the checkout's TypeScript with Node's amaro (SWC in Wasm), the main thread parses HTTP with
    // undici's llhttp (Wasm). A core dump of a crashed fork showed that stack (one crash in about 30
    // reruns of two test files). Never tiering the wrappers up keeps every isolate on the generic
    // wrapper. The installed package is not concerned: its worker threads run bundled JavaScript.
    execArgv: ['--wasm-wrapper-tiering-budget=2147483647'],
    reporters: ['default'],
  },
});
