// The sandboxed preload: exposes the contract's channels, and nothing else, to the page.
import { contextBridge, ipcRenderer } from 'electron';
import { CHANNELS, IPC_EVENTS, IPC_PREFIX, type Channel, type CoreEvent } from '../../shared/contract.ts';

const allowed = new Set<string>(CHANNELS);

contextBridge.exposeInMainWorld('sluice', {
  invoke(channel: Channel, request: unknown) {
    if (!allowed.has(channel)) return Promise.resolve({ ok: false, error: { code: 'unknown_channel', message: `no channel "${String(channel)}"` } });
    return ipcRenderer.invoke(`${IPC_PREFIX}${channel}`, request);
  },
  onEvents(listener: (events: CoreEvent[]) => void) {
    const wrapped = (_event: unknown, events: CoreEvent[]) => listener(events);
    ipcRenderer.on(IPC_EVENTS, wrapped);
    return () => ipcRenderer.removeListener(IPC_EVENTS, wrapped);
  },
});
