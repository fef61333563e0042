// What `import 'sluice/client'` loads. Each module costs the application resident memory for as
// long as it runs: zod (the schemas are ingestion's) and undici's full index (fetch, WebSocket,
// caches) cost ~25 MB together, and the client needs neither.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every module URL a fresh Node process resolves while importing the client (ESM and CommonJS). */
function modulesLoadedBy(specifier: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(spec, context, next) { const r = next(spec, context); seen.push(r.url); return r; } });
    await import(${JSON.stringify(specifier)});
    process.stdout.write(JSON.stringify(seen));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

describe('sluice/client', () => {
  it('loads neither zod nor undici’s full package', () => {
    const loaded = modulesLoadedBy('sluice/client');
    // The probe sees the client's own modules (so an empty list cannot pass).
    expect(loaded.some((url) => url.endsWith('/electron/core/client/client.ts'))).toBe(true);
    expect(loaded.some((url) => url.endsWith('/shared/message-rules.ts'))).toBe(true);
    expect(loaded.filter((url) => url.includes('/node_modules/zod/'))).toEqual([]);
    expect(loaded.filter((url) => url.endsWith('/shared/messages.ts'))).toEqual([]);
    expect(loaded.filter((url) => /\/node_modules\/undici\/index\.js$/.test(url))).toEqual([]);
  });
});
