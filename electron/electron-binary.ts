// Where the Electron binary is, and whether it can open a window here — found by looking at files.
// Requiring the `electron` package would tell its path too, but it downloads the binary when it is
// missing, which cannot work offline (and should not happen as a side effect of a check).
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** The binary the installed `electron` package points at (path.txt), if it was downloaded. */
export function electronBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const pkg = path.join(root, 'node_modules', 'electron');
  const pathFile = path.join(pkg, 'path.txt');
  const name = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8').trim() : undefined;
  // The package's own override, e.g. a binary kept outside node_modules.
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const binary = path.join(env.ELECTRON_OVERRIDE_DIST_PATH, name || 'electron');
    return fs.existsSync(binary) ? binary : undefined;
  }
  if (!name) return undefined;
  const binary = path.join(pkg, 'dist', name);
  return fs.existsSync(binary) ? binary : undefined;
}

/** Why the desktop app cannot open here, in a sentence with the fix; undefined when it can. */
export function whyElectronCannotStart(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  if (!fs.existsSync(path.join(root, 'node_modules', 'electron', 'package.json'))) {
    return 'the electron package is not installed (run npm ci)';
  }
  if (!electronBinary(env)) {
    return "Electron's binary is not downloaded (npx install-electron fetches it; that needs internet access)";
  }
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return 'there is no display (set DISPLAY, or run under xvfb-run)';
  return undefined;
}
