// The Electron host: one hardened window over the same core the headless host serves. Kept thin:
// everything that can be tested without Electron lives in the core and beside this file — the IPC
// bridge (ipc-bridge.ts), the app:// page (app-protocol.ts), the links it may open (external-links.ts).
import { app, BrowserWindow, dialog, ipcMain, protocol, session, shell } from 'electron';
import path from 'node:path';
import { createHandlers } from '../core/api/contract-handlers.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { ConfigError } from '../core/config/load-config.ts';
import type { Core } from '../core/index.ts';
import { desktopFlags, desktopWantsNewToken } from '../host/options.ts';
import { inspectorToken } from '../host/inspector-token.ts';
import { createDesktopCore } from './core-ports.ts';
import { forwardEvents, registerContract } from './ipc-bridge.ts';
import { PAGE_SECURITY_HEADERS } from '../host/page-files.ts';
import { APP_ORIGIN, APP_PAGE_URL, APP_SCHEME, APP_SCHEME_PRIVILEGES, isAppPage, serveAppRequest } from './app-protocol.ts';
import { externalUrl } from './external-links.ts';

// Run from a checkout, Electron is given this file rather than an app folder with a package.json
// (electron/start.ts), so it would call itself "Electron"; the packaged app is named by electron-builder.
if (!app.isPackaged) app.setName('Sluice');

/** The built inspector, served to the window as app://sluice/ (app-protocol.ts). */
const rendererDir = path.join(import.meta.dirname, '../renderer');
// Before the app is ready, or Electron ignores it.
protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: APP_SCHEME_PRIVILEGES }]);

let core: Core | undefined;

async function start(): Promise<void> {
  // `sluice serve`'s core flags, after the executable (an unpackaged run's app path comes first:
  // a positional, ignored).
  const flags = desktopFlags(process.argv.slice(1));
  const started = await createDesktopCore(
    { ...flags, dataDir: flags.dataDir ?? (app.isPackaged ? app.getPath('userData') : defaultDataDir()) },
    { ingest: flags.ingestPort !== undefined, receiver: flags.receiverPort !== undefined },
  );
  core = started.core;
  // The window needs no token; asked for a new one (`npm start -- --new-token`), the folder's is replaced
  // as sluice serve would, so that its earlier inspector links stop working.
  if (desktopWantsNewToken(process.argv.slice(1))) inspectorToken(core.dataDir, { rotate: true });
  if (started.movedBecause) console.warn(`sluice: ${started.movedBecause} — using free ports instead: ingestion at ${core.ingestUrl}, receiver at ${core.receiver.url}`);
  registerContract(ipcMain, createHandlers(core), { isTrustedUrl: isAppPage });
  protocol.handle(APP_SCHEME, (request) => serveAppRequest(request, rendererDir));
  const ownOrigins = [APP_ORIGIN, core.ingestUrl, core.receiver.url];

  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    // The page's own policy (page-files.ts: the headless host and the app:// handler send it too).
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [PAGE_SECURITY_HEADERS['Content-Security-Policy']] } });
  });
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, decide) => decide(false));

  const window = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'Sluice',
    webPreferences: {
      preload: path.join(import.meta.dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  // No navigation away from the app and no new windows; links open in the user's browser.
  window.webContents.on('will-navigate', (event, url) => {
    if (!isAppPage(url)) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    const external = externalUrl(url, ownOrigins);
    if (external !== null) void shell.openExternal(external);
    return { action: 'deny' };
  });
  forwardEvents(core.bus, {
    send: (channel, events) => window.webContents.send(channel, events),
    isDestroyed: () => window.isDestroyed() || window.webContents.isDestroyed(),
  });
  await window.loadURL(APP_PAGE_URL);
}

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault());
});
app
  .whenReady()
  .then(start)
  .catch((error: unknown) => {
    // A bad flag, an invalid config file, a port asked for that is taken: said in a dialog (there
    // may be no terminal), then the app quits.
    const message = error instanceof ConfigError ? `Invalid config ${error.message}` : (error as Error).message;
    console.error(`sluice: could not start: ${message}`);
    dialog.showErrorBox('Sluice could not start', message);
    app.exit(1);
  });
app.on('window-all-closed', () => app.quit());
app.on('before-quit', (event) => {
  if (!core) return;
  event.preventDefault();
  const closing = core;
  core = undefined;
  void closing.close().finally(() => app.quit());
});
