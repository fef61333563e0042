// The Electron bridge through its small interface: the real core and handlers, no Electron.
import { afterEach, describe, expect, it } from 'vitest';
import { CHANNELS, IPC_EVENTS, IPC_PREFIX, type CoreEvent } from '../../shared/contract.ts';
import { createHandlers } from '../../electron/core/api/contract-handlers.ts';
import { forwardEvents, registerContract, type IpcMainLike, type InvokeEventLike } from '../../electron/main/ipc-bridge.ts';
import { APP_PAGE_URL, isAppPage } from '../../electron/main/app-protocol.ts';
import { post, startCore, type TestCore } from '../helpers/core.ts';

/** The window's page as the app serves it (app://, not file://), on one of its routes. */
const APP = `${APP_PAGE_URL}#/stream`;

/** An ipcMain stand-in that records handlers and lets a test call them as a given sender. */
class IpcMainRecorder implements IpcMainLike {
  readonly handlers = new Map<string, (event: InvokeEventLike, request: unknown) => Promise<unknown>>();
  handle(channel: string, listener: (event: InvokeEventLike, request: unknown) => Promise<unknown>) {
    if (this.handlers.has(channel)) throw new Error(`second handler for ${channel}`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string) {
    this.handlers.delete(channel);
  }
  call(channel: string, request: unknown, url: string | null = APP) {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return handler({ senderFrame: url === null ? null : { url } }, request);
  }
}

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function bridge() {
  core = await startCore({ config: { sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }], destinations: [] } });
  core.writeKey = 'wk_web';
  const ipc = new IpcMainRecorder();
  const unregister = registerContract(ipc, createHandlers(core), { isTrustedUrl: isAppPage });
  return { core, ipc, unregister };
}

describe('IPC bridge', () => {
  it('registers exactly the contract\'s channels, and removes them', async () => {
    const { ipc, unregister } = await bridge();
    expect([...ipc.handlers.keys()].sort()).toEqual(CHANNELS.map((c) => `${IPC_PREFIX}${c}`).sort());
    unregister();
    expect(ipc.handlers.size).toBe(0);
  });

  it('runs calls from the app\'s page and validates them', async () => {
    const { core, ipc } = await bridge();
    expect(await ipc.call('sluice:app.info', {})).toMatchObject({ ok: true, value: { ingestUrl: core.ingestUrl } });
    expect(await ipc.call('sluice:messages.get', { id: -1 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it.each([
    ['another page', 'https://evil.example/'],
    ['another file the app serves', 'app://sluice/other.html'],
    ['the page as a file (the old way in)', 'file:///app/out/renderer/index.html'],
    ['another app: host', 'app://evil/index.html'],
    ['no frame (navigated away)', null],
  ])('refuses calls from %s, and does not run them', async (_, url) => {
    const { core, ipc } = await bridge();
    const result = await ipc.call('sluice:destinations.save', { name: 'sneaky', webhooks: [{ url: 'http://127.0.0.1:9/x' }] }, url);
    expect(result).toEqual({ ok: false, error: { code: 'untrusted_sender', message: expect.any(String) } });
    expect(core.destinations.list()).toEqual([]);
  });

  it('forwards events coalesced, and stops when the window is gone', async () => {
    const { core } = await bridge();
    const sends: { channel: string; events: CoreEvent[] }[] = [];
    let destroyed = false;
    forwardEvents(core.bus, { send: (channel, events) => sends.push({ channel, events }), isDestroyed: () => destroyed });
    await Promise.all(Array.from({ length: 30 }, (_, i) => post(core, '/v1/track', { userId: 'u', event: `E${i}` })));
    await new Promise((r) => setTimeout(r, 120));
    const ids = sends.flatMap((s) => s.events).flatMap((e) => (e.type === 'messages.stored' ? e.ids : []));
    expect(new Set(ids).size).toBe(30);
    expect(sends.every((s) => s.channel === IPC_EVENTS)).toBe(true);
    expect(sends.length).toBeLessThanOrEqual(10);
    destroyed = true;
    const before = sends.length;
    await post(core, '/v1/track', { userId: 'u', event: 'After' });
    await new Promise((r) => setTimeout(r, 120));
    expect(sends.length).toBe(before);
  });
});
