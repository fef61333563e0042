// The desktop window's app:// protocol (electron/main/app-protocol.ts) without Electron: real files
// in a temporary folder — the page, an asset, and a secret beside the folder that no request may
// reach — asked for with real Request objects, as protocol.handle passes them.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { APP_ORIGIN, APP_PAGE_URL, isAppPage, resolveAppRequest, serveAppRequest } from '../../electron/main/app-protocol.ts';
import { INSPECTOR_CSP } from '../../shared/csp.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const work = tempDir('sluice-app-protocol-');
const root = path.join(work, 'renderer');
fs.mkdirSync(path.join(root, 'assets'), { recursive: true });
fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><script type="module" src="./assets/index-1a2b.js"></script>');
fs.writeFileSync(path.join(root, 'assets', 'index-1a2b.js'), 'console.log("app")');
fs.writeFileSync(path.join(root, 'assets', 'index-3c4d.css'), 'body{}');
fs.writeFileSync(path.join(root, 'assets', 'blob.bin'), Buffer.from([0, 1, 2]));
fs.writeFileSync(path.join(root, 'THIRD-PARTY-LICENSES.md'), '# Licences');
fs.writeFileSync(path.join(work, 'secret.txt'), 'TOP-SECRET');
// A folder whose name starts like the page's: `renderer-private` is not inside `renderer`.
fs.mkdirSync(path.join(work, 'renderer-private'));
fs.writeFileSync(path.join(work, 'renderer-private', 'x.js'), 'TOP-SECRET');

const get = (url: string, method = 'GET') => serveAppRequest(new Request(url, { method }), root);

describe('app:// requests', () => {
  it('serves the page at / and /index.html, and its assets with their types and the host’s security headers', async () => {
    for (const url of [`${APP_ORIGIN}/`, APP_PAGE_URL, `${APP_PAGE_URL}?x=1#/stream`]) {
      const page = await get(url);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain('./assets/index-1a2b.js');
    }
    // The page's relative script URL resolves, against the page's app:// address, to a served file.
    const script = await get(new URL('./assets/index-1a2b.js', APP_PAGE_URL).href);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await script.text()).toBe('console.log("app")');
    expect(script.headers.get('content-security-policy')).toBe(`${INSPECTOR_CSP}; frame-ancestors 'none'`);
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect(script.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await get(`${APP_ORIGIN}/assets/index-3c4d.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await get(`${APP_ORIGIN}/THIRD-PARTY-LICENSES.md`)).headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const bytes = await get(`${APP_ORIGIN}/assets/blob.bin`);
    expect(bytes.headers.get('content-type')).toBe('application/octet-stream');
    expect([...new Uint8Array(await bytes.arrayBuffer())]).toEqual([0, 1, 2]);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get(APP_PAGE_URL, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(fs.statSync(path.join(root, 'index.html')).size));
    expect(await head.text()).toBe('');
    const post = await get(APP_PAGE_URL, 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it.each([
    ['a parent segment', `${APP_ORIGIN}/../secret.txt`],
    ['an encoded parent segment', `${APP_ORIGIN}/%2e%2e/secret.txt`],
    ['an encoded slash', `${APP_ORIGIN}/..%2fsecret.txt`],
    ['an encoded slash deeper', `${APP_ORIGIN}/assets/..%2f..%2fsecret.txt`],
    ['an encoded backslash', `${APP_ORIGIN}/..%5csecret.txt`],
    ['a sibling folder with the same prefix', `${APP_ORIGIN}/..%2frenderer-private/x.js`],
    ['an absolute path', `${APP_ORIGIN}/%2fetc%2fpasswd`],
    ['a NUL byte', `${APP_ORIGIN}/index.html%00.js`],
  ])('never serves a file outside the page’s folder: %s', async (_, url) => {
    const response = await get(url);
    expect([403, 404]).toContain(response.status);
    expect(await response.text()).not.toContain('TOP-SECRET');
  });

  it('says why: outside the app (403), another host or a missing file (404), a malformed URL (400)', () => {
    expect(resolveAppRequest(`${APP_ORIGIN}/..%2fsecret.txt`, root)).toEqual({ status: 403, message: 'outside the app' });
    expect(resolveAppRequest(`${APP_ORIGIN}/%2e%2e%2fsecret.txt`, root)).toEqual({ status: 403, message: 'outside the app' });
    expect(resolveAppRequest('app://evil/index.html', root)).toEqual({ status: 404, message: 'no such page' });
    expect(resolveAppRequest('app://sluice:8080/index.html', root)).toEqual({ status: 404, message: 'no such page' });
    expect(resolveAppRequest('app://user@sluice/index.html', root)).toEqual({ status: 404, message: 'no such page' });
    expect(resolveAppRequest('file:///etc/passwd', root)).toEqual({ status: 404, message: 'no such page' });
    expect(resolveAppRequest(`${APP_ORIGIN}/missing.js`, root)).toEqual({ status: 404, message: 'no such file' });
    expect(resolveAppRequest(`${APP_ORIGIN}/assets`, root)).toEqual({ status: 404, message: 'no such file' }); // a folder
    expect(resolveAppRequest(`${APP_ORIGIN}/%E0%A4%A`, root)).toEqual({ status: 400, message: 'malformed URL' });
    expect(resolveAppRequest('not a url', root)).toEqual({ status: 400, message: 'malformed URL' });
    expect(resolveAppRequest(`${APP_ORIGIN}/assets/index-1a2b.js`, root)).toEqual({
      status: 200,
      file: path.join(root, 'assets', 'index-1a2b.js'),
      contentType: 'text/javascript; charset=utf-8',
    });
  });

  it('answers a missing file 404 with the security headers, in plain text', async () => {
    const missing = await get(`${APP_ORIGIN}/nope.html`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(missing.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('knows the app’s own page, with its routes, from anything else', () => {
    expect(isAppPage(APP_PAGE_URL)).toBe(true);
    expect(isAppPage(`${APP_PAGE_URL}#/destinations`)).toBe(true);
    for (const url of [`${APP_ORIGIN}/`, `${APP_ORIGIN}/other.html`, `${APP_PAGE_URL}?x=1`, 'app://evil/index.html', 'file:///app/out/renderer/index.html', 'https://sluice/index.html', `${APP_PAGE_URL}.evil`]) {
      expect(isAppPage(url), url).toBe(false);
    }
  });
});
