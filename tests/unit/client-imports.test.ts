// What importing the client loads. It is a library inside other people's applications: each module
// costs them resident memory for as long as they run, and each package a dependency to install. It
// loads its own modules, two zod-free ones of shared/, and Node's own modules — no package at all
// (zod's schemas are ingestion's; undici, which the relay uses, needs Node 22.19).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every module URL a fresh Node process resolves while importing `file`. */
function modulesLoadedBy(file: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(spec, context, next) { const r = next(spec, context); seen.push(r.url); return r; } });
    await import(${JSON.stringify(pathToFileURL(file).href)});
    process.stdout.write(JSON.stringify(seen));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out) as string[];
}

describe('the client library', () => {
  it('loads its own modules, shared/limits and shared/message-rules, and Node’s own modules: no package', () => {
    const loaded = modulesLoadedBy(path.join(ROOT, 'electron/client/index.ts'));
    // The probe sees the client's own modules (so an empty list cannot pass).
    expect(loaded.some((url) => url.endsWith('/electron/client/client.ts'))).toBe(true);
    const outside = loaded.filter((url) => !url.startsWith('node:') && !url.includes('/electron/client/'));
    expect([...new Set(outside.map((url) => url.slice(pathToFileURL(ROOT).href.length)))].sort()).toEqual(['/package.json', '/shared/limits.ts', '/shared/message-rules.ts']);
  });
});
