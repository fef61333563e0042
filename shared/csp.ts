/**
 * The inspector's Content Security Policy, in one place for its three ways in: the headless host's
 * header (and the desktop window's app:// handler's, electron/host/page-files.ts), the Electron session's
 * header, and a `<meta>` tag in the built index.html (the page holds to it however it is loaded). Only
 * the app's own scripts, styles and connections; no plugins; no <base>.
 */
export const INSPECTOR_CSP = "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'";
