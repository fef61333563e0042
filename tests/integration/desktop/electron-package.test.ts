// electron-builder's configuration (build/electron-builder.yml), checked as far as this machine
// allows: it passes electron-builder's own schema, and an unpacked Linux package (`--linux dir`) is
// made from it with a stand-in Electron distribution (the real one is a download). The app.asar must
// hold the built app and package.json — and nothing else: the bundles carry their dependencies. The
// stand-in binary carries a fuse wire set as Electron ships it; the packaged one must have the
// hardened fuses flipped (@electron/fuses reads them back).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { appRoot as root, ensureAppBuilt } from '../../helpers/app-build.ts';
import { tempDir } from '../../helpers/temp-dirs.ts';

const config = path.join(root, 'build/electron-builder.yml');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  main?: string;
  dependencies?: Record<string, string>;
  version: string;
};
// electron-builder's own modules (app-builder-lib, @electron/asar), as it resolves them.
const builderRequire = createRequire(createRequire(import.meta.url).resolve('electron-builder'));
/** app-builder-lib's own dependencies (@electron/fuses, the version it flips fuses with). */
const libRequire = createRequire(builderRequire.resolve('app-builder-lib/package.json'));
const fuses = libRequire('@electron/fuses') as {
  getCurrentFuseWire(binary: string): Promise<Record<string, number | string>>;
  FuseV1Options: Record<string, number>;
};
/** Where a binary's fuse wire starts, and a fuse's states on it ('1' on, '0' off). */
const { SENTINEL, FuseState } = libRequire('@electron/fuses/dist/constants.js') as { SENTINEL: string; FuseState: Record<string, number> };
const ON = FuseState.ENABLE!;
const OFF = FuseState.DISABLE!;

/** Each fuse as build/electron-builder.yml must set it: electron-builder's key, @electron/fuses' option, the value. */
const HARDENED = [
  ['runAsNode', 'RunAsNode', false],
  ['enableCookieEncryption', 'EnableCookieEncryption', true],
  ['enableNodeOptionsEnvironmentVariable', 'EnableNodeOptionsEnvironmentVariable', false],
  ['enableNodeCliInspectArguments', 'EnableNodeCliInspectArguments', false],
  ['enableEmbeddedAsarIntegrityValidation', 'EnableEmbeddedAsarIntegrityValidation', true],
  ['onlyLoadAppFromAsar', 'OnlyLoadAppFromAsar', true],
  ['grantFileProtocolExtraPrivileges', 'GrantFileProtocolExtraPrivileges', false],
] as const;
/** Electron's own defaults, the opposite of every hardened value but the V8 snapshot's (left alone). */
const SHIPPED = '10110001';
const work = tempDir('sluice-package-');

/** Enough of an unpacked Electron for electron-builder's Linux `dir` target to copy and rename. */
function fakeElectronDist(): string {
  const dist = path.join(work, 'electron-dist');
  fs.mkdirSync(dist, { recursive: true });
  // A fuse wire as Electron's binaries carry it: the sentinel, version 1, its length, one byte per fuse.
  const wire = Buffer.concat([Buffer.from(SENTINEL), Buffer.from([1, SHIPPED.length]), Buffer.from(SHIPPED)]);
  fs.writeFileSync(path.join(dist, 'electron'), Buffer.concat([Buffer.from('#!/bin/sh\necho "a stand-in for Electron"\nexit 0\n'), wire]), { mode: 0o755 });
  fs.writeFileSync(path.join(dist, 'version'), `v${builderRequire('electron/package.json').version}`);
  fs.writeFileSync(path.join(dist, 'LICENSE'), '');
  fs.writeFileSync(path.join(dist, 'LICENSES.chromium.html'), '');
  return dist;
}

let unpacked: string;

beforeAll(() => {
  ensureAppBuilt();
  const output = path.join(work, 'dist');
  execFileSync(
    process.execPath,
    [
      path.join(root, 'node_modules/electron-builder/cli.js'),
      '--config', config,
      '--linux', 'dir',
      '--publish', 'never',
      `-c.electronDist=${fakeElectronDist()}`,
      `-c.directories.output=${output}`,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], timeout: 120_000 },
  );
  unpacked = path.join(output, 'linux-unpacked');
}, 180_000);

describe('electron-builder configuration', () => {
  it('passes electron-builder’s schema', async () => {
    const { getConfig, validateConfiguration } = builderRequire('app-builder-lib/out/util/config/config.js');
    const loaded = await getConfig(root, config, null);
    await expect(validateConfiguration(loaded, { isEnabled: false, add() {} })).resolves.toBeUndefined();
    expect(loaded).toMatchObject({ appId: expect.any(String), productName: 'Sluice', asar: true, files: [{ filter: ['out/**', 'package.json'] }] });
    // Installers go to release/: dist/ is the npm package's build, and the package ships all of it.
    expect(loaded.directories.output).toBe('release');
    expect(loaded.linux.target).toEqual(['AppImage', 'deb']);
    expect(loaded.mac.target).toBe('dmg');
    expect(loaded.win.target).toBe('nsis');
    // The icon electron-builder makes every platform's from: a 512×512 PNG.
    const icon = fs.readFileSync(path.join(root, loaded.icon));
    expect(icon.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([icon.readUInt32BE(16), icon.readUInt32BE(20)]).toEqual([512, 512]);
  });

  it('packs the built app and package.json into app.asar, and nothing else', () => {
    const asar = builderRequire('@electron/asar') as { listPackage(file: string): string[]; extractFile(file: string, inner: string): Buffer };
    const archive = path.join(unpacked, 'resources/app.asar');
    const files = asar.listPackage(archive).map((f) => f.replaceAll('\\', '/'));
    for (const file of ['/package.json', '/out/main/index.js', '/out/main/writer-worker.js', '/out/main/checkpointer-worker.js', '/out/main/store-check-worker.js', '/out/preload/index.cjs', '/out/renderer/index.html']) {
      expect(files).toContain(file);
    }
    // No node_modules: the package has no run-time dependency (undici, ws and zod are bundled).
    expect(pkg.dependencies).toBeUndefined();
    const topLevel = new Set(files.map((f) => f.split('/')[1]));
    expect([...topLevel].sort()).toEqual(['out', 'package.json']);
    // No sources: the app runs from out/.
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    // No native modules to unpack: node:sqlite is part of Electron's Node.
    expect(files.filter((f) => f.endsWith('.node'))).toEqual([]);
    expect(fs.existsSync(path.join(unpacked, 'resources/app.asar.unpacked'))).toBe(false);
    // The root package.json has no "main" (it is the npm package's manifest); electron-builder gives the
    // packaged one the main process's file.
    expect(pkg.main).toBeUndefined();
    const packed = JSON.parse(asar.extractFile(archive, 'package.json').toString('utf8')) as { main: string; type: string; version: string };
    expect(packed).toMatchObject({ main: 'out/main/index.js', type: 'module', version: pkg.version });
    expect(files).toContain(`/${packed.main}`);
  });

  it('sets the hardened Electron fuses, under the names electron-builder’s schema knows', async () => {
    const { getConfig } = builderRequire('app-builder-lib/out/util/config/config.js');
    const loaded = await getConfig(root, config, null);
    expect(loaded.electronFuses).toEqual(Object.fromEntries(HARDENED.map(([key, , value]) => [key, value])));
    // A misspelt key would be dropped by electron-builder's fuse mapping: each must be in its schema.
    const schema = JSON.parse(fs.readFileSync(libRequire.resolve('app-builder-lib/scheme.json'), 'utf8')) as {
      definitions: { FuseOptionsV1: { properties: Record<string, unknown>; additionalProperties: boolean } };
    };
    expect(schema.definitions.FuseOptionsV1.additionalProperties).toBe(false);
    for (const key of Object.keys(loaded.electronFuses)) expect(Object.keys(schema.definitions.FuseOptionsV1.properties)).toContain(key);
    // And flipped in the packaged binary (the stand-in shipped with Electron's defaults).
    const wire = await fuses.getCurrentFuseWire(path.join(unpacked, 'sluice'));
    for (const [key, option, value] of HARDENED) {
      const index = fuses.FuseV1Options[option]!;
      expect(SHIPPED[index], `${key} as shipped`).toBe(value ? '0' : '1');
      expect(wire[index], key).toBe(value ? ON : OFF);
    }
  });

  it('names the Linux executable sluice', () => {
    expect(fs.statSync(path.join(unpacked, 'sluice')).mode & 0o111).not.toBe(0);
  });
});
