// The options both hosts take — `sluice serve` and the desktop app — read the same way, so that a
// flag means one thing wherever it is given.
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { CoreOptions } from '../core/index.ts';
import { loadConfigFile } from '../core/config/load-config.ts';

/** A bad flag value; its message is a sentence for the user. */
export class UsageError extends Error {}

/** parseArgs definitions of the options the core takes. */
export const CORE_FLAGS = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
  'ingest-port': { type: 'string' },
  'receiver-port': { type: 'string' },
  host: { type: 'string' },
} as const;

/**
 * The inspector's token flag. `sluice serve` serves the inspector with the token kept in its data
 * folder (inspector-token.ts); `--new-token` replaces it. The desktop app's window needs no
 * token, but given the flag it replaces the folder's token too: `npm start -- --new-token` means the
 * same whichever host it starts.
 */
export const TOKEN_FLAGS = {
  'new-token': { type: 'boolean', default: false },
} as const;

export function parsePort(value: string | undefined, flag: string, fallback: number): number;
export function parsePort(value: string | undefined, flag: string): number | undefined;
export function parsePort(value: string | undefined, flag: string, fallback?: number): number | undefined {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`${flag} must be a port number (0-65535), not "${value}"`);
  return port;
}

/** What the core-related flags ask for: only what was given (the caller has the defaults). */
export type CoreFlags = Partial<Pick<CoreOptions, 'config' | 'configFile' | 'dataDir' | 'ingestPort' | 'receiverPort' | 'host'>>;

/**
 * Reads the core-related flags from parsed values: ports checked, the config file loaded and
 * validated (a ConfigError says what is wrong in it), paths resolved.
 */
export function coreFlags(values: { [K in keyof typeof CORE_FLAGS]?: string | boolean | undefined }): CoreFlags {
  const text = (name: keyof typeof CORE_FLAGS): string | undefined => {
    const value = values[name];
    if (value === true) throw new UsageError(`--${name} needs a value`);
    return typeof value === 'string' ? value : undefined;
  };
  const ingestPort = parsePort(text('ingest-port'), '--ingest-port');
  const receiverPort = parsePort(text('receiver-port'), '--receiver-port');
  const config = text('config');
  const dataDir = text('data-dir');
  const host = text('host');
  // An empty host (an unset variable, `--host "$HOST"`) would make Node listen on every interface.
  if (host !== undefined && host.trim() === '') throw new UsageError('--host needs an address (127.0.0.1 by default; 0.0.0.0 to listen on every interface)');
  return {
    ...(config !== undefined ? { config: loadConfigFile(path.resolve(config)), configFile: path.resolve(config) } : {}),
    ...(dataDir !== undefined ? { dataDir: path.resolve(dataDir) } : {}),
    ...(ingestPort !== undefined ? { ingestPort } : {}),
    ...(receiverPort !== undefined ? { receiverPort } : {}),
    ...(host !== undefined ? { host } : {}),
  };
}

/**
 * The desktop app's command line (`Sluice --config sluice.json`, or `npm start -- --config ...`):
 * the core-related flags of `sluice serve`. Electron's and Chromium's own switches, and the app
 * path an unpackaged run carries, are left alone rather than refused.
 */
export function desktopFlags(args: string[]): CoreFlags {
  const { values } = parseArgs({ args, options: CORE_FLAGS, strict: false, allowPositionals: true });
  return coreFlags(values);
}

/** Whether the desktop app's command line asks for a new inspector token (`--new-token`). */
export function desktopWantsNewToken(args: string[]): boolean {
  const { values } = parseArgs({ args, options: TOKEN_FLAGS, strict: false, allowPositionals: true });
  return values['new-token'] === true;
}
