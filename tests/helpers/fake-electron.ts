// Stands in for the `electron` module so that the bundled main process (out/main/index.js) runs in
// plain Node: tests/integration/desktop/electron-bundle.test.ts loads it with a resolve hook
// (fake-electron-hooks.ts). It records what the main process does with the window and, once the
// window has loaded, drives the app as Chromium would — the page and its assets fetched through the
// registered app:// handler, links and navigations put to the window's handlers — as the renderer
// would — over the registered IPC handlers — and as a developer would — one message POSTed to the
// ingestion endpoint — then quits the app and prints a JSON report on stdout for the test to check.
import { EventEmitter } from 'node:events';
import fs from 'node:fs';

type Handler = (event: { senderFrame: { url: string } | null }, request: unknown) => Promise<unknown>;
type ProtocolHandler = (request: Request) => Promise<Response>;
type OpenHandler = (details: { url: string }) => { action: string };

const handlers = new Map<string, Handler>();
const protocolHandlers = new Map<string, ProtocolHandler>();
const opened: string[] = [];
let openHandler: OpenHandler | undefined;
let window: BrowserWindow | undefined;
let ready = false;
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

export const shell = {
  openExternal: async (url: string) => {
    opened.push(url);
  },
};

export const protocol = {
  registerSchemesAsPrivileged(schemes: unknown[]) {
    report.privilegedSchemes = schemes;
    report.privilegedBeforeReady = !ready; // Electron ignores it once the app is ready
  },
  handle(scheme: string, handler: ProtocolHandler) {
    protocolHandlers.set(scheme, handler);
  },
};

export const dialog = {
  showErrorBox(title: string, content: string) {
    report.errorBox = { title, content };
  },
};

export class BrowserWindow {
  readonly webContents = Object.assign(new EventEmitter(), {
    setWindowOpenHandler(handler: OpenHandler) {
      openHandler = handler;
    },
    send(channel: string, events: unknown[]) {
      sent.push({ channel, count: events.length });
    },
    isDestroyed: () => false,
  });

  constructor(options: { webPreferences?: Record<string, unknown> }) {
    window = this;
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
    report.loadedFile = file; // the old way in: the test expects none
    setImmediate(() => void drive());
  }

  async loadURL(url: string) {
    report.loadedUrl = url;
    rendererUrl = url;
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
  whenReady: () => Promise.resolve().then(() => void (ready = true)),
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

export default { app, BrowserWindow, dialog, ipcMain, protocol, session, shell };

/** Calls a contract channel the way the window's preload would. */
async function call(channel: string, request: unknown, url = rendererUrl): Promise<{ ok: boolean; value?: any; error?: unknown }> {
  const handler = handlers.get(`sluice:${channel}`);
  if (!handler) throw new Error(`no IPC handler for ${channel}`);
  return (await handler({ senderFrame: { url } }, request)) as { ok: boolean; value?: any };
}

/** Fetches a URL through the handler registered for its scheme, as Chromium would. */
async function fetchThrough(url: string): Promise<{ url: string; status: number; type: string | null; csp: string | null; body: string }> {
  const handler = protocolHandlers.get(new URL(url).protocol.slice(0, -1));
  if (!handler) return { url, status: -1, type: null, csp: null, body: '' };
  const response = await handler(new Request(url));
  return { url, status: response.status, type: response.headers.get('content-type'), csp: response.headers.get('content-security-policy'), body: await response.text() };
}

/** The page as the window loads it: the page, every script, stylesheet and icon it names (resolved against its URL), and a path out of it. */
async function drivePage(): Promise<void> {
  const page = await fetchThrough(rendererUrl);
  report.page = { status: page.status, type: page.type, csp: page.csp };
  const refs = [...page.body.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((m) => new URL(m[1]!, rendererUrl).href)
    .filter((url) => !url.startsWith('data:')); // the empty favicon, `data:,`
  report.assets = await Promise.all(refs.map(async (url) => {
    const { body: _body, ...rest } = await fetchThrough(url);
    return rest;
  }));
  report.outside = (await fetchThrough(new URL('/..%2f..%2fpackage.json', rendererUrl).href)).status;
}

/** Links the page would open (the window-open handler) and navigations it would start (will-navigate). */
function driveLinks(ingestUrl: string): void {
  const links = ['https://segment.com/docs/', 'javascript:alert(1)', 'file:///etc/passwd', 'http:/\\evil.example/', `${ingestUrl}/v1/batch`, rendererUrl];
  report.windowOpen = links.map((url) => openHandler?.({ url }).action);
  report.opened = [...opened];
  const navigate = (url: string) => {
    let prevented = false;
    window!.webContents.emit('will-navigate', { preventDefault: () => (prevented = true) }, url);
    return prevented;
  };
  report.navigationPrevented = { away: navigate('https://evil.example/'), ownRoute: navigate(`${rendererUrl}#/destinations`) };
}

async function drive(): Promise<void> {
  try {
    report.channels = [...handlers.keys()].length;
    await drivePage();
    rendererUrl = `${rendererUrl}#/stream`; // the page on a route: still the app's own
    report.untrustedFile = await call('app.info', {}, 'file:///app/out/renderer/index.html');
    report.untrusted = await call('app.info', {}, 'https://example.com/');
    const info = await call('app.info', {});
    report.info = info.ok;
    const { ingestUrl, sources, dataDir } = info.value as { ingestUrl: string; dataDir: string; sources: { name: string; writeKey: string }[] };
    report.ingestUrl = ingestUrl;
    report.dataDir = dataDir;
    report.sources = sources.map((s) => s.name);
    driveLinks(ingestUrl);
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
