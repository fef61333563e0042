// Reading the project's Markdown as GitHub renders it: the anchors its headings get and the links a
// page holds. Used by the docs tests (links resolve; figures match what they describe).
import fs from 'node:fs';
import path from 'node:path';
import { checkoutRoot } from './packed-sluice.ts';

/** README.md and every docs/*.md, as paths relative to the checkout. */
export function docFiles(): string[] {
  const docs = fs.readdirSync(path.join(checkoutRoot, 'docs')).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...docs.map((f) => `docs/${f}`)];
}

export function readDoc(file: string): string {
  return fs.readFileSync(path.join(checkoutRoot, file), 'utf8');
}

/** The text's lines with fenced code blocks blanked (kept as empty lines, so line numbers hold). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const open = /^\s*(```+|~~~+)/.exec(line);
    if (fence === undefined && open) {
      fence = open[1]![0]!.repeat(3);
      return '';
    }
    if (fence !== undefined) {
      if (line.trim().startsWith(fence)) fence = undefined;
      return '';
    }
    return line;
  });
}

/**
 * GitHub's anchor for a heading's text (github-slugger's rule): the text as rendered (inline code,
 * emphasis and link targets gone), lowercased, every character but letters, digits, marks, `_`, `-`
 * and spaces dropped, spaces turned into `-`.
 */
export function slug(heading: string): string {
  const rendered = heading
    .replace(/<[^>]+>/g, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '');
  return rendered.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors a page has: one per heading (a repeated one gets -1, -2, …) and each explicit `id`/`name`. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = slug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  }
  return anchors;
}

export interface DocLink {
  line: number;
  target: string;
}

/** The links and images of a page's prose (not of code blocks or inline code), with their line. */
export function linksOf(text: string): DocLink[] {
  const links: DocLink[] = [];
  proseLines(text).forEach((line, i) => {
    const prose = line.replace(/`[^`]*`/g, '');
    for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: i + 1, target: m[1]! });
    for (const m of prose.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g)) links.push({ line: i + 1, target: m[1]! });
  });
  return links;
}

/**
 * Why a link of `file` does not resolve, or undefined when it does: a relative path must name a file
 * or folder of the checkout, and an anchor one of the target page's anchors. Web addresses are not
 * followed.
 */
export function brokenLink(file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = pathPart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(pathPart)));
  const absolute = path.join(checkoutRoot, resolved);
  if (resolved.startsWith('..') || !fs.existsSync(absolute)) return `no file ${resolved}`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) return `an anchor into ${resolved}, which is not a Markdown page`;
  if (!anchorsOf(fs.readFileSync(absolute, 'utf8')).has(anchor)) return `${resolved} has no heading or id whose anchor is #${anchor}`;
  return undefined;
}

/** The code of a page: each inline code span (which may wrap), and each line of its code blocks, with its line. */
export function codeOf(text: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  const lines = text.split('\n');
  const prose = proseLines(text);
  lines.forEach((line, i) => {
    if (prose[i] !== line && !/^\s*(```|~~~)/.test(line)) out.push({ line: i + 1, code: line });
  });
  const joined = prose.join('\n');
  for (const m of joined.matchAll(/`([^`]+)`/g)) {
    out.push({ line: joined.slice(0, m.index).split('\n').length, code: m[1]!.replace(/\s*\n\s*/g, ' ') });
  }
  return out.sort((a, b) => a.line - b.line);
}

/** A size the documentation quotes for the package: what it measures, in bytes (npm's units: kB = 1,000 bytes). */
export interface QuotedSize {
  where: string;
  quoted: string;
  of: 'tarball' | 'unpacked' | 'installed project';
  bytes: number;
}

/**
 * Every size of the package the README and docs/ quote: "… KB to download", "… KB packed", "… MB
 * installed", "… MB unpacked", "a project with Sluice installed is … MB". Benchmarks' dated records
 * (tables of bench-results/) are not quoted this way.
 */
export function quotedSizes(): QuotedSize[] {
  const number = String.raw`(\d[\d,]*(?:\.\d+)?) (KB|MB)`;
  const kinds: [RegExp, QuotedSize['of']][] = [
    [new RegExp(String.raw`project with Sluice installed is ${number}`, 'g'), 'installed project'],
    [new RegExp(String.raw`${number} (?:to download|download|packed)`, 'g'), 'tarball'],
    [new RegExp(String.raw`${number} (?:unpacked|installed)`, 'g'), 'unpacked'],
  ];
  const sizes: QuotedSize[] = [];
  for (const file of docFiles()) {
    const text = readDoc(file).replace(/\s+/g, ' ');
    for (const [pattern, of] of kinds) {
      for (const m of text.matchAll(pattern)) {
        const value = Number(m[1]!.replace(/,/g, '')) * (m[2] === 'KB' ? 1e3 : 1e6);
        sizes.push({ where: file, quoted: m[0], of, bytes: value });
      }
    }
  }
  return sizes;
}
