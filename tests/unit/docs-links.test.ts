// The documentation holds together: every relative link and #anchor in README.md and docs/*.md leads
// somewhere (a file of the checkout, a heading of the page as GitHub names it), and the README stays
// a page a newcomer reads (the reference lives in docs/).
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLink, docFiles, linksOf, readDoc, slug } from '../helpers/markdown.ts';

describe('GitHub anchors', () => {
  it('are the heading as rendered, lowercased, punctuation dropped, spaces to hyphens', () => {
    expect(slug('Where this build differs from DESIGN.md, and why')).toBe('where-this-build-differs-from-designmd-and-why');
    expect(slug('Security: the inspector\'s link and the desktop app')).toBe('security-the-inspectors-link-and-the-desktop-app');
    expect(slug('Settings › Storage')).toBe('settings--storage');
    expect(slug('`sluice/testing` start and close')).toBe('sluicetesting-start-and-close');
    expect(slug('Run and test (contributors)')).toBe('run-and-test-contributors');
    expect(slug('[Node.js](https://nodejs.org) versions')).toBe('nodejs-versions');
    expect(slug('Café, 日本 and snake_case')).toBe('café-日本-and-snake_case');
  });

  it('number a repeated heading -1, -2, and count explicit ids; headings inside code blocks are not headings', () => {
    const anchors = anchorsOf('# Title\n## Replay\n### Replay\n## Replay\n<a id="by-hand"></a>\n```sh\n# not a heading\n```\n');
    expect([...anchors].sort()).toEqual(['by-hand', 'replay', 'replay-1', 'replay-2', 'title']);
  });
});

describe('the documentation', () => {
  it('has pages to check', () => {
    expect(docFiles()).toContain('README.md');
    expect(docFiles().filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(5);
  });

  it('links only to files that exist and to anchors their pages have', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of docFiles()) {
      for (const { line, target } of linksOf(readDoc(file))) {
        checked++;
        const why = brokenLink(file, target);
        if (why !== undefined) broken.push(`${file}:${line}: (${target}) — ${why}`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  it('finds a broken link when there is one (a missing page, a missing anchor, a stale one)', () => {
    expect(brokenLink('README.md', 'docs/no-such-page.md')).toMatch(/no file docs\/no-such-page\.md/);
    expect(brokenLink('README.md', '#no-such-heading')).toMatch(/README\.md has no heading .*#no-such-heading/);
    expect(brokenLink('docs/configuration.md', '../README.md#install')).toBeUndefined();
    expect(brokenLink('docs/configuration.md', 'README.md#install')).toMatch(/no file docs\/README\.md/);
    expect(brokenLink('README.md', 'https://example.com/#anything')).toBeUndefined();
  });

  it('keeps the README under 400 lines: reference, configuration and figures belong in docs/', () => {
    expect(readDoc('README.md').split('\n').length).toBeLessThan(400);
  });

  it('gives each page of docs/ a table of contents that lists its sections', () => {
    for (const file of docFiles().filter((f) => f.startsWith('docs/'))) {
      const text = readDoc(file);
      const sections = text.split('\n').filter((l) => /^## /.test(l)).map((l) => `#${slug(l.slice(3))}`);
      const contents = text.slice(0, text.indexOf('\n## '));
      for (const anchor of sections) expect(contents, `${file}: the contents lack ${anchor}`).toContain(`](${anchor})`);
    }
  });
});
