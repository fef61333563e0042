import { IpcTransport } from './ipc.ts';
import type { PreloadBridge, RelayApi } from './relay-api.ts';
import { apiUrlFor, WebSocketTransport } from './websocket.ts';
import { takePageToken, type TokenPage } from './page-token.ts';

export type TransportChoice = { ok: true; api: RelayApi } | { ok: false; reason: string };

function isBridge(value: unknown): value is PreloadBridge {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PreloadBridge).invoke === 'function' &&
    typeof (value as PreloadBridge).onEvents === 'function'
  );
}

/**
 * The renderer picks its transport: Electron's preload bridge when it is there, else the headless
 * host's WebSocket with the page's token (from its address, then kept in the tab: page-token.ts).
 */
export function pickTransport(win: { sluice?: unknown; location: Location; fetch: typeof fetch } & Omit<TokenPage, 'location'>): TransportChoice {
  if (isBridge(win.sluice)) return { ok: true, api: new IpcTransport(win.sluice) };
  const url = apiUrlFor(win.location, takePageToken(win));
  if (!url) {
    return {
      ok: false,
      reason:
        'This page was opened without its access token. Open the inspector URL that sluice serve printed (it ends in ?token=…); sluice serve --json prints it as "ui".',
    };
  }
  const origin = win.location.origin;
  return {
    ok: true,
    api: new WebSocketTransport({
      url,
      probe: async () => {
        try {
          const response = await win.fetch(`${origin}/`, { method: 'HEAD', cache: 'no-store' });
          return response.ok;
        } catch {
          return false;
        }
      },
    }),
  };
}
