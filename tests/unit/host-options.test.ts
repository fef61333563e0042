// The core-related flags both hosts take (electron/host/options.ts): the desktop app reads them from a
// command line that also carries Electron's and Chromium's switches and, unpackaged, the app's path.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../electron/core/config/load-config.ts';
import { desktopFlags, UsageError } from '../../electron/host/options.ts';
import { tempDir } from '../helpers/core.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('desktopFlags', () => {
  it("reads the core's flags and leaves Electron's switches and the app path alone", () => {
    const dir = tempDir();
    dirs.push(dir);
    const config = path.join(dir, 'sluice.json');
    fs.writeFileSync(config, JSON.stringify({ sources: [{ name: 'shop', writeKey: 'wk_shop', kind: 'web' }], destinations: [] }));
    const flags = desktopFlags(['/opt/sluice/app', '--no-sandbox', '--enable-logging', '--config', config, '--ingest-port', '9100', '--receiver-port=0', '--data-dir', 'rel/data']);
    expect(flags).toEqual({
      config: { sources: [expect.objectContaining({ name: 'shop', writeKey: 'wk_shop' })], destinations: [] },
      configFile: config,
      ingestPort: 9100,
      receiverPort: 0,
      dataDir: path.resolve('rel/data'),
    });
  });

  it('asks for nothing when given nothing: the app keeps its defaults', () => {
    expect(desktopFlags([])).toEqual({});
    expect(desktopFlags(['--inspect', '.'])).toEqual({});
  });

  it('refuses a bad port, a flag without its value, and an invalid config, each with a sentence', () => {
    expect(() => desktopFlags(['--ingest-port', 'eighty'])).toThrow(new UsageError('--ingest-port must be a port number (0-65535), not "eighty"'));
    expect(() => desktopFlags(['--receiver-port', '70000'])).toThrow(UsageError);
    expect(() => desktopFlags(['--config'])).toThrow(new UsageError('--config needs a value'));
    // An empty host would listen on every interface: refused, not taken as "any".
    for (const host of ['', '  ']) expect(() => desktopFlags(['--host', host])).toThrow(/--host needs an address/);
    expect(desktopFlags(['--host', '0.0.0.0'])).toEqual({ host: '0.0.0.0' });
    const dir = tempDir();
    dirs.push(dir);
    const config = path.join(dir, 'bad.json');
    fs.writeFileSync(config, '{"sources": [');
    expect(() => desktopFlags(['--config', config])).toThrow(ConfigError);
  });
});
