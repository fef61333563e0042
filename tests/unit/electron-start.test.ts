// `npm start`: the desktop app where Electron can open a window, otherwise the headless relay,
// saying why — decided by looking at files, never by requiring `electron` (which downloads).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronBinary, whyElectronCannotStart } from '../../electron/electron-binary.ts';
import { tempDir } from '../helpers/temp-dirs.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dist = tempDir('sluice-electron-dist-');
fs.writeFileSync(path.join(dist, 'electron'), '', { mode: 0o755 });

describe('whyElectronCannotStart', () => {
  it('finds a binary where the electron package would look for it, and says when there is none', () => {
    expect(electronBinary({ ELECTRON_OVERRIDE_DIST_PATH: dist })).toBe(path.join(dist, 'electron'));
    expect(electronBinary({ ELECTRON_OVERRIDE_DIST_PATH: path.join(dist, 'missing') })).toBeUndefined();
    expect(whyElectronCannotStart({ ELECTRON_OVERRIDE_DIST_PATH: path.join(dist, 'missing') }, 'linux')).toMatch(/binary is not downloaded .*install-electron/);
  });

  it('needs a display on Linux, not elsewhere', () => {
    const env = { ELECTRON_OVERRIDE_DIST_PATH: dist };
    expect(whyElectronCannotStart(env, 'linux')).toMatch(/no display .*DISPLAY/);
    expect(whyElectronCannotStart({ ...env, DISPLAY: ':99' }, 'linux')).toBeUndefined();
    expect(whyElectronCannotStart({ ...env, WAYLAND_DISPLAY: 'wayland-0' }, 'linux')).toBeUndefined();
    expect(whyElectronCannotStart(env, 'darwin')).toBeUndefined();
  });
});

describe('electron/start.ts', () => {
  it('falls back to sluice serve, saying why, when Electron cannot start', () => {
    const run = spawnSync(process.execPath, [path.join(root, 'electron/start.ts'), '--help'], {
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: path.join(dist, 'missing') },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.stderr).toContain("sluice: not opening the desktop app: Electron's binary is not downloaded");
    expect(run.stderr).toContain('starting the headless relay (sluice serve) instead');
    // `sluice serve --help` ran.
    expect(run.stdout).toMatch(/serve/);
    expect(run.status).toBe(0);
  });
});
