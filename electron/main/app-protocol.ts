// The desktop window's page comes from `app://sluice/`, served out of the built renderer by
// protocol.handle (index.ts), not from file://: a file:// page is an origin that reaches every file
// on the disk (and Electron grants it more still, unless a fuse says otherwise), an app:// page only
// what this handler serves. Kept free of Electron so that it is tested with real files and requests.
import fs from 'node:fs';
import { contentType, fileUnder, PAGE_SECURITY_HEADERS } from '../host/page-files.ts';

export const APP_SCHEME = 'app';
export const APP_HOST = 'sluice';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
/** The window's page; the views are its hash routes (`#/destinations`). */
export const APP_PAGE_URL = `${APP_ORIGIN}/index.html`;

/**
 * How `app:` is registered (protocol.registerSchemesAsPrivileged, before the app is ready): standard,
 * so that relative URLs resolve and the page has an origin of its own; secure, a secure context as
 * https is. No CORS, no service workers, no CSP bypass.
 */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true } as const;

/** Whether a frame's URL is the app's own page (an IPC sender, a navigation): the page itself, any of its routes. */
export function isAppPage(url: string): boolean {
  return url === APP_PAGE_URL || url.startsWith(`${APP_PAGE_URL}#`);
}

export type AppFile = { status: 200; file: string; contentType: string } | { status: 400 | 403 | 404; message: string };

/**
 * The file an `app:` URL names under `root` (the built renderer), or why there is none: 404 for
 * another host or a missing file, 403 for a path out of `root` (`..`, also percent-encoded, a
 * backslash, a NUL), 400 for a URL that does not parse. `/` is index.html.
 */
export function resolveAppRequest(rawUrl: string, root: string): AppFile {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { status: 400, message: 'malformed URL' };
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST || url.username !== '' || url.password !== '') {
    return { status: 404, message: 'no such page' };
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return { status: 400, message: 'malformed URL' };
  }
  if (/[\\\0]/.test(pathname) || pathname.split('/').some((segment) => segment === '..' || segment === '.')) {
    return { status: 403, message: 'outside the app' };
  }
  const file = fileUnder(root, pathname === '/' ? '/index.html' : pathname);
  if (file === null) return { status: 404, message: 'no such file' };
  return { status: 200, file, contentType: contentType(file) };
}

/** protocol.handle's handler for `app:`: the file, or a short plain-text refusal; GET and HEAD only. */
export async function serveAppRequest(request: { url: string; method: string }, root: string): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return refusal(405, 'GET only', { Allow: 'GET, HEAD' });
  }
  const found = resolveAppRequest(request.url, root);
  if (found.status !== 200) return refusal(found.status, found.message);
  let body: Buffer;
  try {
    body = await fs.promises.readFile(found.file);
  } catch {
    return refusal(404, 'no such file'); // gone between the check and the read
  }
  const headers = { 'Content-Type': found.contentType, 'Content-Length': String(body.length), ...PAGE_SECURITY_HEADERS };
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}

function refusal(status: number, message: string, extra: Record<string, string> = {}): Response {
  return new Response(message, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...PAGE_SECURITY_HEADERS, ...extra } });
}
