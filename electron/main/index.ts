// The Electron host: one hardened window over the same core the headless host serves. Kept thin:
// everything that can be tested without Electron lives in the core and in ipc-bridge.ts.
import { app, BrowserWindow, dialog, ipcMain, session, shell } from 'electron';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHandlers } from '../core/api/contract-handlers.ts';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { ConfigError } from '../core/config/load-config.ts';
import type { Core } from '../core/index.ts';
import { desktopFlags } from '../host-options.ts';
import { createDesktopCore } from './core-ports.ts';
import { forwardEvents, registerContract } from './ipc-bridge.ts';
import { INSPECTOR_CSP } from '../../shared/csp.ts';

// Run from a checkout, Electron is given this file rather than an app folder with a package.json
// (electron/start.ts), so it would call itself "Electron"; the packaged app is named by electron-builder.
if (!app.isPackaged) app.setName('Sluice');

const rendererIndex = path.join(import.meta.dirname, '../renderer/index.html');
const rendererUrl = pathToFileURL(rendererIndex).href;

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
  if (started.movedBecause) console.warn(`sluice: ${started.movedBecause} — using free ports instead: ingestion at ${core.ingestUrl}, receiver at ${core.receiver.url}`);
  registerContract(ipcMain, createHandlers(core), { isTrustedUrl: (url) => url === rendererUrl || url.startsWith(`${rendererUrl}#`) });

  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [INSPECTOR_CSP] } });
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
    if (url !== rendererUrl) event.preventDefault();
  });
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (url.startsWith('https://') || url.startsWith('http://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  forwardEvents(core.bus, {
    send: (channel, events) => window.webContents.send(channel, events),
    isDestroyed: () => window.isDestroyed() || window.webContents.isDestroyed(),
  });
  await window.loadFile(rendererIndex);
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
