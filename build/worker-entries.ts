// Worker threads in the bundled main process. The core starts each worker from its source file,
// `new Worker(new URL('../writer-worker.ts', import.meta.url))`, which is what Node runs from
// sources (tests, `sluice serve`). In the bundle that file does not exist: this plugin makes each
// such module an entry of its own (out/main/<name>.js) and points the URL at it, relative to the
// chunk the code ends up in. The sources stay as they are, and both ways of running resolve.
import path from 'node:path';
import type { Plugin } from 'vite';

/** `new URL('./<name>-worker.ts', import.meta.url)`, the one way the core names a worker's module. */
const WORKER_URL = /new URL\(\s*(['"])(\.{1,2}\/[\w./-]*-worker\.ts)\1\s*,\s*import\.meta\.url\s*\)/g;
const PLACEHOLDER = /__SLUICE_WORKER_([\w$]+)__/g;

export function workerEntries(): Plugin {
  return {
    name: 'sluice:worker-entries',
    apply: 'build',
    transform(code, id) {
      if (!code.includes('-worker.ts')) return null;
      let found = false;
      const rewritten = code.replace(WORKER_URL, (_match, _quote: string, specifier: string) => {
        found = true;
        const name = path.basename(specifier, '.ts');
        const ref = this.emitFile({ type: 'chunk', id: path.resolve(path.dirname(id), specifier), name, fileName: `${name}.js` });
        return `new URL("__SLUICE_WORKER_${ref}__", import.meta.url)`;
      });
      return found ? { code: rewritten, map: null } : null;
    },
    renderChunk(code, chunk) {
      if (!code.includes('__SLUICE_WORKER_')) return null;
      return code.replace(PLACEHOLDER, (_match, ref: string) => {
        const relative = path.posix.relative(path.posix.dirname(chunk.fileName), this.getFileName(ref));
        return relative.startsWith('.') ? relative : `./${relative}`;
      });
    },
  };
}
