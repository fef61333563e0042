// Stands in for the `electron` module so that the bundled main process (out/main/index.js) runs in
// plain Node: tests/integration/electron-bundle.test.ts loads it with a resolve hook
// (fake-electron-hooks.ts). It records what the main process does with the window and, once the
// window has loaded, drives the app as the renderer would — over the registered IPC handlers — and
// as a developer would — one message POSTed to the ingestion endpoint — then quits the app and
// prints a JSON report on stdout for the test to check.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

type Handler = (event: { senderFrame: { url: string } | null }, request: unknown) => Promise<unknown>;

const handlers = new Map<string, Handler>();
const appEvents = new EventEmitter();
const sent: { channel: string; count: number }[] = [];
const report: Record<string, unknown> = { windows: [] };
let rendererUrl = '';

export const ipcMain = {
  handle(channel: string, listener: Handler) {
    handlers.set(channel, listener);
  },
  removeHandler(channel: string) {
    handlers.delete(channel);
  },
};

export const session = {
  defaultSession: {
    webRequest: { onHeadersReceived(_listener: unknown) {} },
    setPermissionRequestHandler(_handler: unknown) {},
  },
};

export const shell = { openExternal: async (_url: string) => {} };

export const dialog = {
  showErrorBox(title: string, content: string) {
    report.errorBox = { title, content };
  },
};

export class BrowserWindow {
  readonly webContents = Object.assign(new EventEmitter(), {
    setWindowOpenHandler(_handler: unknown) {},
    send(channel: string, events: unknown[]) {
      sent.push({ channel, count: events.length });
    },
    isDestroyed: () => false,
  });

  constructor(options: { webPreferences?: Record<string, unknown> }) {
    const preload = String(options.webPreferences?.preload ?? '');
    (report.windows as unknown[]).push({
      webPreferences: options.webPreferences,
      preloadExists: fs.existsSync(preload),
      preloadIsCommonJs: preload.endsWith('.cjs') && fs.existsSync(preload) && /\brequire\("electron"\)/.test(fs.readFileSync(preload, 'utf8')),
    });
  }

  isDestroyed() {
    return false;
  }

  async loadFile(file: string) {
    report.loadedFile = file;
    report.loadedFileExists = fs.existsSync(file);
    rendererUrl = pathToFileURL(file).href;
    setImmediate(() => void drive());
  }
}

export const app = {
  // A packaged app unless the test says otherwise (an unpackaged run stores where `sluice serve` does).
  isPackaged: process.env.SLUICE_FAKE_UNPACKAGED !== '1',
  setName(name: string) {
    report.appName = name;
  },
  getPath(name: string) {
    if (name !== 'userData') throw new Error(`fake electron: no path "${name}"`);
    return process.env.SLUICE_FAKE_USER_DATA!;
  },
  whenReady: () => Promise.resolve(),
  on(event: string, listener: (...args: unknown[]) => void) {
    appEvents.on(event, listener);
    return app;
  },
  quit() {
    let prevented = false;
    appEvents.emit('before-quit', { preventDefault: () => (prevented = true) });
    if (!prevented) finish(0);
  },
  exit(code: number) {
    finish(code);
  },
};

export default { app, BrowserWindow, dialog, ipcMain, session, shell };

/** Calls a contract channel the way the window's preload would. */
async function call(channel: string, request: unknown, url = rendererUrl): Promise<{ ok: boolean; value?: any; error?: unknown }> {
  const handler = handlers.get(`sluice:${channel}`);
  if (!handler) throw new Error(`no IPC handler for ${channel}`);
  return (await handler({ senderFrame: { url } }, request)) as { ok: boolean; value?: any };
}

async function drive(): Promise<void> {
  try {
    report.channels = [...handlers.keys()].length;
    report.untrusted = await call('app.info', {}, 'https://example.com/');
    const info = await call('app.info', {});
    report.info = info.ok;
    const { ingestUrl, sources, dataDir } = info.value as { ingestUrl: string; dataDir: string; sources: { name: string; writeKey: string }[] };
    report.ingestUrl = ingestUrl;
    report.dataDir = dataDir;
    report.sources = sources.map((s) => s.name);
    const response = await fetch(`${ingestUrl}/v1/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${sources[0]!.writeKey}:`).toString('base64')}` },
      body: JSON.stringify({ batch: [{ type: 'track', userId: 'u_bundle', event: 'Bundle Smoke', messageId: 'bundle-smoke-1' }] }),
    });
    report.ingestStatus = response.status;
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const list = await call('messages.list', { limit: 10 });
      const found = list.ok ? (list.value.messages as { event?: string; userId?: string }[]).find((m) => m.event === 'Bundle Smoke') : undefined;
      if (found) {
        report.stored = { event: found.event, userId: found.userId };
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Events reach the window (coalesced every ~30 ms).
    await new Promise((resolve) => setTimeout(resolve, 200));
    report.eventSends = sent.filter((s) => s.channel === 'sluice:events').length;
  } catch (error) {
    report.error = String((error as Error)?.stack ?? error);
  }
  app.quit();
}

function finish(code: number): void {
  process.stdout.write(`${JSON.stringify({ ...report, exitCode: code })}\n`);
  process.exit(code);
}
