/**
 * A matcher's errors point at the test's line (caller-stack.ts does it for sluice/testing's functions).
 * A runner calls a matcher through its own frames, so the stack recorded at the call is trimmed to the
 * frames outside any package (node_modules), Node's internals and Sluice's own files: the test's.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { atCaller, type CallSite } from '../caller-stack.ts';

/** Sluice's own files: the folder of the built package's files (dist/…) or of the sources (electron/…). */
const own = ownRoot(fileURLToPath(import.meta.url));

function ownRoot(file: string): string | null {
  const at = Math.max(file.lastIndexOf(`${path.sep}dist${path.sep}`), file.lastIndexOf(`${path.sep}electron${path.sep}`));
  return at < 0 ? null : file.slice(0, file.indexOf(path.sep, at + 1) + 1);
}

/** The stack of a matcher's call, its runner's and Sluice's frames left out. */
export function testSite(matcher: (...args: never[]) => unknown): CallSite {
  const site: CallSite = {};
  Error.captureStackTrace(site, matcher);
  if (site.stack === undefined) return site;
  const [header, ...frames] = site.stack.split('\n');
  const kept = frames.filter((frame) => !/[\\/]node_modules[\\/]|\(node:|at node:|<anonymous>/.test(frame) && (own === null || !frame.includes(own)));
  return { stack: [header, ...(kept.length > 0 ? kept : frames)].join('\n') };
}

/** `body`'s result; an error it throws carries the test's stack. */
export async function atTestLine<T>(site: CallSite, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw atCaller(error, site);
  }
}
