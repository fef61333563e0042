// The inspector's access token, kept in the data folder (`inspector-token`, readable and writable
// by its owner only) so that an open tab, a bookmark and a script's HTTP API calls keep working
// after a restart. `sluice serve --new-token` replaces it. The token is never written anywhere else:
// the only places it is shown are the links the user is meant to copy (serve's ready output).
//
// What an unusable file does:
//  - missing: a new token is made (the first start on a folder);
//  - not a token (empty, cut short, edited), or readable by other users (its mode has group or other
//    bits, e.g. after a copy or a chmod): replaced by a new token, with a sentence saying so (the old
//    links were broken or may have been read; a new token costs one copied link);
//  - cannot be read (permissions, not a regular file): an error that names the file, since replacing
//    what Sluice cannot read would hide a problem with the folder itself.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeWholeFile } from '../core/whole-file.ts';

export const TOKEN_FILE = 'inspector-token';

/** The token's form: URL-safe (it travels in `?token=` unencoded), at least 32 characters (24 random bytes). */
const TOKEN_FORM = /^[A-Za-z0-9_-]{32,128}$/;

/** The token file cannot be used or written; the message is a sentence for the user, without the token. */
export class TokenFileError extends Error {}

export interface InspectorToken {
  token: string;
  /** `kept` read from the file; `created` there was none; `rotated` asked for; `replaced` the file was unusable. */
  origin: 'kept' | 'created' | 'rotated' | 'replaced';
  /** Why a file was replaced: a sentence for the user (never the token). */
  note?: string;
}

/**
 * 24 random bytes, URL-safe. Never starting with `-`: a token is passed as `--token T` (sluice tail,
 * sluice mcp, curl's scripts), where a leading dash reads as an option (1 token in 64 would).
 */
export function newToken(): string {
  for (;;) {
    const token = randomBytes(24).toString('base64url');
    if (!token.startsWith('-')) return token;
  }
}

/**
 * The token kept in `dataDir` (made there when missing or unusable), or a new one written there when
 * `rotate` is set. Call it with the data folder's lock held (after createCore): two processes never
 * write it at once, and the write is atomic anyway (a temporary file renamed over it).
 */
export function inspectorToken(dataDir: string, options: { rotate?: boolean } = {}): InspectorToken {
  const file = path.join(dataDir, TOKEN_FILE);
  if (options.rotate) return { token: writeToken(file), origin: 'rotated' };
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { token: writeToken(file), origin: 'created' };
    throw new TokenFileError(`cannot read the inspector's token file ${file}: ${(error as Error).message}`);
  }
  if (!stat.isFile()) {
    throw new TokenFileError(`the inspector's token file ${file} is not a regular file; remove it and Sluice makes a new token`);
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(4, '0');
    return replaced(file, `the inspector's token file ${file} could be read by other users (mode ${mode}): it now holds a new token, owner-only; earlier inspector links no longer work`);
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new TokenFileError(
      `cannot read the inspector's token file ${file}: ${(error as Error).message} (sluice serve --new-token replaces it, if the data folder is yours)`,
    );
  }
  const token = text.replace(/\r?\n$/, '');
  if (!TOKEN_FORM.test(token)) {
    return replaced(file, `the inspector's token file ${file} did not hold a token: it now holds a new one; earlier inspector links no longer work`);
  }
  return { token, origin: 'kept' };
}

function replaced(file: string, note: string): InspectorToken {
  return { token: writeToken(file), origin: 'replaced', note };
}

/** Writes a new token to an owner-only file, whole (a reader sees the old token or the new). */
function writeToken(file: string): string {
  const token = newToken();
  try {
    writeWholeFile(file, `${token}\n`, { mode: 0o600 });
  } catch (error) {
    throw new TokenFileError(`cannot write the inspector's token file ${file}: ${(error as Error).message}`);
  }
  return token;
}
