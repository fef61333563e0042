// The licence notices of the packages a bundle carries (undici, ws, zod, ajv and its dependencies in the relay): MIT asks that
// copies keep them, and a bundle is a copy. A rolldown plugin: after bundling, it finds which files of
// node_modules went into the output and writes each package's name, version and licence text to one file.
import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'rolldown';

/** The package folder a bundled file came from, e.g. …/node_modules/@scope/name, or undefined for our own sources. */
function packageDir(file: string): string | undefined {
  const match = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(file);
  return match?.[1];
}

export function thirdPartyLicenses(fileName = 'THIRD-PARTY-LICENSES.md'): Plugin {
  return {
    name: 'sluice:third-party-licenses',
    generateBundle(_options, bundle) {
      const dirs = new Set<string>();
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        for (const id of output.moduleIds) {
          const dir = packageDir(id.replace(/^\0/, ''));
          if (dir) dirs.add(dir);
        }
      }
      const sections = [...dirs]
        .map((dir) => {
          const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
          const licenseFile = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
          if (!licenseFile) this.error(`${pkg.name} is bundled but ships no licence file to copy`);
          return { pkg, text: fs.readFileSync(path.join(dir, licenseFile), 'utf8').trim() };
        })
        .sort((a, b) => a.pkg.name.localeCompare(b.pkg.name));
      if (sections.length === 0) return;
      const body = sections.map(({ pkg, text }) => `## ${pkg.name} ${pkg.version} (${pkg.license ?? 'see below'})\n\n\`\`\`\n${text}\n\`\`\``).join('\n\n');
      this.emitFile({
        type: 'asset',
        fileName,
        source: `# Third-party licences\n\nThis folder's JavaScript includes code of the following packages, under their licences.\n\n${body}\n`,
      });
    },
  };
}
