import { CHANNELS, IPC_EVENTS, IPC_PREFIX, type CoreEvent } from '../../shared/contract.ts';
import { invoke, type Handlers } from '../core/api/contract-handlers.ts';
import { streamEvents } from '../core/api/event-stream.ts';
import type { EventBus } from '../core/bus/event-bus.ts';

// The contract's channels over IPC, each under IPC_PREFIX (shared/contract.ts) so that nothing else can be reached.

/** The sender of an IPC call, as much of Electron's IpcMainInvokeEvent as the bridge needs. */
export interface InvokeEventLike {
  senderFrame: { url: string } | null;
}

/** As much of Electron's ipcMain as the bridge needs: tests register against a plain object. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, request: unknown) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/** Where events go: Electron's webContents, in the app. */
export interface EventSinkLike {
  send(channel: string, events: CoreEvent[]): void;
  isDestroyed(): boolean;
}

export interface BridgeOptions {
  /** Whether a call comes from the app's own page (not an iframe, not a navigated-away window). */
  isTrustedUrl: (url: string) => boolean;
}

/**
 * Registers every contract channel on `ipcMain`, each checking its sender before running the
 * handler; returns the function that removes them. Calls from anywhere else get a typed refusal.
 */
export function registerContract(ipcMain: IpcMainLike, handlers: Handlers, options: BridgeOptions): () => void {
  for (const channel of CHANNELS) {
    ipcMain.handle(`${IPC_PREFIX}${channel}`, async (event, request) => {
      const url = event.senderFrame?.url;
      if (!url || !options.isTrustedUrl(url)) {
        return { ok: false, error: { code: 'untrusted_sender', message: 'calls are accepted only from the Sluice window' } };
      }
      return invoke(handlers, channel, request);
    });
  }
  return () => {
    for (const channel of CHANNELS) ipcMain.removeHandler(`${IPC_PREFIX}${channel}`);
  };
}

/** Forwards the core's events to the window, coalesced (one send per ~30 ms at most). */
export function forwardEvents(bus: EventBus, sink: EventSinkLike, intervalMs?: number): () => void {
  const stop = streamEvents(
    bus,
    (events) => {
      if (sink.isDestroyed()) stop();
      else sink.send(IPC_EVENTS, events);
    },
    intervalMs,
  );
  return stop;
}
