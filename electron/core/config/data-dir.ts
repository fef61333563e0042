import os from 'node:os';
import path from 'node:path';

/** The platform's per-user data folder for Sluice (XDG data home on Linux). */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home = os.homedir(),
): string {
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Sluice');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Sluice');
  return path.join(env.XDG_DATA_HOME || path.join(home, '.local', 'share'), 'sluice');
}
