import pkg from '../../package.json' with { type: 'json' };

/** `context.library` of every message the client sends. */
export const LIBRARY: Readonly<{ name: string; version: string }> = Object.freeze({ name: 'sluice-client', version: pkg.version });

/** `User-Agent` of the client's requests. */
export const USER_AGENT = `${LIBRARY.name}/${LIBRARY.version}`;
