// `npm start` (after `npm run build`): the desktop app where Electron can start, otherwise the
// headless relay (`sluice serve`, which serves the same built inspector), saying why.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { electronBinary, whyElectronCannotStart } from './electron-binary.ts';

const root = path.resolve(import.meta.dirname, '..');
const desktopEntry = path.join(root, 'out', 'main', 'index.js');

function whyNotElectron(): string | undefined {
  return whyElectronCannotStart() ?? (fs.existsSync(desktopEntry) ? undefined : 'the desktop app is not built (npm run build writes out/main/index.js)');
}

const reason = whyNotElectron();
if (reason === undefined) {
  // Electron is given the main process's file: the root package.json has no "main" (the packaged app's
  // comes from electron-builder's extraMetadata), and the app names itself (electron/main/index.ts).
  const child = spawn(electronBinary()!, [desktopEntry, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 1));
} else {
  process.stderr.write(`sluice: not opening the desktop app: ${reason}.\nsluice: starting the headless relay (sluice serve) instead.\n`);
  process.argv = [process.argv[0]!, path.join(import.meta.dirname, 'cli.ts'), 'serve', ...process.argv.slice(2)];
  await import('./cli.ts');
}
