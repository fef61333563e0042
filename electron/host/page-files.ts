// The built inspector page's files (out/renderer) as both hosts serve them — the headless host over
// HTTP (ui-server.ts), the desktop window over `app://` (main/app-protocol.ts): one table of
// content types and one set of security headers, so that the page gets the same policy either way.
import fs from 'node:fs';
import path from 'node:path';
import { INSPECTOR_CSP } from '../../shared/csp.ts';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.md': 'text/markdown; charset=utf-8',
};

/** A file's Content-Type by its extension; unknown ones are bytes (never sniffed: nosniff). */
export function contentType(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Sent with every answer of the page's origin: the inspector's CSP (never framed), no sniffing, no Referer. */
export const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy': `${INSPECTOR_CSP}; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
} as const;

/** The regular file at `pathname` (decoded, from the URL) strictly inside `root`; null for anything else. */
export function fileUnder(root: string, pathname: string): string | null {
  const base = path.resolve(root);
  const file = path.resolve(base, `.${pathname}`);
  if (!file.startsWith(base + path.sep)) return null;
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null; // missing
  }
}
