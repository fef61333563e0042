// The Architecture map (docs/architecture.md) stays true: it names every folder of the repository (what git tracks,
// or would: new files count, ignored ones such as node_modules/ and out/ do not), one line each, and
// only folders that exist; the message's path under it names existing folders too. And the docs refer
// to nothing outside the repository: no link leaves the checkout, no machine path.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { docFiles, linksOf, readDoc } from '../helpers/markdown.ts';
import { checkoutRoot } from '../helpers/packed-sluice.ts';

const HEADING = '## Architecture map';

/** The map's section of the page: from its heading to the next `## ` heading. */
function mapSection(readme: string): string {
  const start = readme.indexOf(`\n${HEADING}\n`);
  if (start < 0) throw new Error(`docs/architecture.md has no "${HEADING}" section`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The folders the map's table lists: each row's first cell, a folder in backticks (`electron/core/`). */
function mappedFolders(section: string): string[] {
  return [...section.matchAll(/^\| `([^`]+\/)` \|/gm)].map((m) => m[1]!);
}

/** Every folder named anywhere in the section (rows and the message's path): `a/b/` in backticks. */
function namedFolders(section: string): string[] {
  return [...section.matchAll(/`([.\w-]+(?:\/[.\w-]+)*\/)`/g)].map((m) => m[1]!);
}

/** The repository's folders, as `a/b/`: every ancestor folder of the files git tracks or would track. */
function treeFolders(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: checkoutRoot, encoding: 'utf8' });
  const folders = new Set<string>();
  for (const file of out.split('\0')) {
    if (!file || !fs.existsSync(path.join(checkoutRoot, file))) continue;
    const parts = file.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) folders.add(`${parts.slice(0, i).join('/')}/`);
  }
  return [...folders].sort();
}

/** What the map lacks and what it names that is not a folder of the tree. */
function compare(mapped: string[], tree: string[]): { missing: string[]; stale: string[] } {
  return { missing: tree.filter((f) => !mapped.includes(f)), stale: mapped.filter((f) => !tree.includes(f)) };
}

describe('the Architecture map (docs/architecture.md)', () => {
  const readme = readDoc('docs/architecture.md');

  it('lists every folder of the repository, one row each, and nothing that is not one', () => {
    const mapped = mappedFolders(mapSection(readme));
    const tree = treeFolders();
    // The probe sees the tree (so that an empty list cannot pass).
    expect(tree).toEqual(expect.arrayContaining(['electron/', 'electron/core/', 'electron/core/store/', 'renderer/src/', 'shared/', 'tests/unit/']));
    expect(compare(mapped, tree)).toEqual({ missing: [], stale: [] });
    expect(new Set(mapped).size, 'a folder listed twice').toBe(mapped.length);
  });

  it('names only folders that exist, in the table and in the message’s path', () => {
    const named = namedFolders(mapSection(readme));
    expect(named.length).toBeGreaterThan(mappedFolders(mapSection(readme)).length);
    expect(named.filter((f) => !fs.statSync(path.join(checkoutRoot, f), { throwIfNoEntry: false })?.isDirectory())).toEqual([]);
  });

  it('follows one message through ingest, writer, store, delivery, bus, hosts and the page, in that order', () => {
    const section = mapSection(readme);
    const pathText = section.slice(section.lastIndexOf('\n|'));
    const order = ['electron/core/ingest/', 'electron/core/writer/', 'electron/core/store/', 'electron/core/delivery/', 'electron/core/bus/', 'electron/host/', 'renderer/src/'];
    const at = order.map((f) => pathText.indexOf(`\`${f}`));
    expect(at.every((i) => i >= 0), `the path names ${order.join(', ')}`).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('finds what is wrong with a map (a folder missing, one that is gone)', () => {
    const text = `# T\n${HEADING}\n\n| folder | what |\n|---|---|\n| \`electron/\` | x |\n| \`electron/gone/\` | y |\n\n## Next\n| \`shared/\` | z |\n`;
    const mapped = mappedFolders(mapSection(text));
    expect(mapped).toEqual(['electron/', 'electron/gone/']);
    expect(compare(mapped, ['electron/', 'electron/core/', 'shared/'])).toEqual({ missing: ['electron/core/', 'shared/'], stale: ['electron/gone/'] });
  });
});

describe('the documentation', () => {
  it('refers to no file outside the repository: no link leaves the checkout, no machine path', () => {
    const outside: string[] = [];
    for (const file of docFiles()) {
      const text = readDoc(file);
      for (const { line, target } of linksOf(text)) {
        if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const resolved = path.resolve(checkoutRoot, path.dirname(file), target.split('#')[0]!);
        if (path.relative(checkoutRoot, resolved).startsWith('..') || target.startsWith('/')) outside.push(`${file}:${line}: (${target})`);
      }
      // A path in the text that climbs out of the checkout from where the page is (README.md: any `../`).
      const climbsOut = new RegExp(`(\\.\\./){${file.split('/').length}}`);
      text.split('\n').forEach((line, i) => {
        if (/\/work\//.test(line) || climbsOut.test(line)) outside.push(`${file}:${i + 1}: ${line.trim().slice(0, 80)}`);
      });
    }
    expect(outside).toEqual([]);
  });
});
