// `npm start`: the desktop app where Electron can start, otherwise the headless relay
// (`sluice serve`), saying why. Checks by looking at files: requiring the `electron` package would
// try to download its binary, which cannot work offline.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';

const root = path.resolve(import.meta.dirname, '..');
const electronPackage = path.join(root, 'node_modules', 'electron');
const desktopEntry = path.join(root, 'out', 'main', 'index.js');

function electronBinary(): string | undefined {
  const pathFile = path.join(electronPackage, 'path.txt');
  if (!fs.existsSync(pathFile)) return undefined;
  const binary = path.join(electronPackage, 'dist', fs.readFileSync(pathFile, 'utf8').trim());
  return fs.existsSync(binary) ? binary : undefined;
}

function whyNotElectron(): string | undefined {
  if (!fs.existsSync(electronPackage)) return 'the electron package is not installed (run npm ci)';
  if (!electronBinary()) {
    return "Electron's binary is not downloaded (npx install-electron fetches it; that needs internet access)";
  }
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'there is no display';
  if (!fs.existsSync(desktopEntry)) return 'the desktop shell is not built (out/main/index.js is missing)';
  return undefined;
}

const reason = whyNotElectron();
if (reason === undefined) {
  const child = spawn(electronBinary()!, [root, ...process.argv.slice(2)], { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 1));
} else {
  process.stderr.write(`sluice: not opening the desktop app: ${reason}.\nsluice: starting the headless relay (sluice serve) instead.\n`);
  process.argv = [process.argv[0]!, path.join(import.meta.dirname, 'cli.ts'), 'serve', ...process.argv.slice(2)];
  await import('./cli.ts');
}
