// `node --import ./tests/helpers/fake-electron-hooks.ts out/main/index.js`: `electron` resolves to
// fake-electron.ts, so the bundled main process runs in plain Node (see electron-bundle.test.ts).
import { registerHooks } from 'node:module';

const fake = new URL('./fake-electron.ts', import.meta.url).href;

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'electron') return { url: fake, shortCircuit: true };
    return next(specifier, context);
  },
});
