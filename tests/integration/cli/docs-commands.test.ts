// What the documentation shows of the `sluice` command is what the command does: every command and
// flag the README and docs/ write after `sluice …` exists in that command's --help, and the ready line
// and the banner they show are those of a real `sluice serve`.
import { describe, expect, it } from 'vitest';
import { runCli, serveBanner, startCli } from '../../helpers/cli.ts';
import { codeOf, docFiles, readDoc } from '../../helpers/markdown.ts';
import { tempDir } from '../../helpers/core.ts';

const COMMANDS = ['serve', 'check', 'plan infer', 'plan import', 'plan codegen', 'plan diff', 'plan coverage', 'plan', 'export', 'summary', 'import', 'doctor', 'transform test', 'transform', 'tail', 'mcp', 'help'];

/** Each `sluice <command> …` a page writes in code, with the flags that follow it in the same span or line. */
function commandsOf(pages: { file: string; text: string }[]): { where: string; command: string; flags: string[] }[] {
  const found: { where: string; command: string; flags: string[] }[] = [];
  for (const { file, text } of pages) {
    for (const { line, code } of codeOf(text)) {
      // Each command of the line: from `sluice` to the next `sluice`, `&&`, `;` or a comment.
      for (const m of code.matchAll(/(?:^|[\s(])sluice ([a-z][a-z-]*)((?: [a-z][a-z-]*)?)([^;&#]*?)(?=\bsluice\b|[;&#]|$)/g)) {
        const two = `${m[1]}${m[2]}`;
        const command = COMMANDS.includes(two) ? two : m[1]!;
        const rest = COMMANDS.includes(two) ? m[3]! : `${m[2]}${m[3]}`;
        found.push({ where: `${file}:${line}`, command, flags: [...rest.matchAll(/(?:^|[\s[|])(--[a-z][a-z-]*)/g)].map((f) => f[1]!) });
      }
    }
  }
  return found;
}

/** What the pages write of the command that it does not have: unknown commands, and flags its --help does not list. */
async function staleCommands(pages: { file: string; text: string }[]): Promise<string[]> {
  const documented = commandsOf(pages);
  const stale = documented.filter((d) => !COMMANDS.includes(d.command)).map((d) => `${d.where}: sluice ${d.command}`);
  const helps = new Map<string, string>();
  for (const command of new Set(documented.filter((d) => COMMANDS.includes(d.command)).map((d) => d.command))) {
    const run = await runCli([...command.split(' '), '--help']);
    expect(run.code, `sluice ${command} --help`).toBe(0);
    helps.set(command, run.stdout);
  }
  for (const d of documented.filter((d) => helps.has(d.command))) {
    for (const flag of d.flags) if (!new RegExp(`(^|[\\s,])${flag}\\b`, 'm').test(helps.get(d.command)!)) stale.push(`${d.where}: sluice ${d.command} ${flag}`);
  }
  return stale;
}

describe('the commands the documentation shows', () => {
  const pages = () => docFiles().map((file) => ({ file, text: readDoc(file) }));

  it('exist, each with the flags written after it (checked against the command\'s own --help)', async () => {
    const documented = commandsOf(pages());
    for (const command of ['serve', 'check', 'plan infer', 'plan import', 'export', 'summary', 'import', 'doctor', 'transform test']) {
      expect(documented.map((d) => d.command), command).toContain(command);
    }
    expect(documented.flatMap((d) => d.flags).length).toBeGreaterThan(20);
    expect(await staleCommands(pages())).toEqual([]);
  });

  it('would find a command or a flag that does not exist, in a span, a wrapped span or a code block', async () => {
    const page = 'Run `sluice export --since 2h\n--sinse 2h` or `sluice exprot`:\n\n```sh\nsluice plan infer --out p.json --examples 5 --exemples 5 && sluice serve --jsn\n```\n';
    expect(await staleCommands([{ file: 'x.md', text: page }])).toEqual([
      'x.md:2: sluice exprot',
      'x.md:1: sluice export --sinse',
      'x.md:5: sluice plan infer --exemples',
      'x.md:5: sluice serve --jsn',
    ]);
  });
});

describe('the ready line and the banner the documentation shows', () => {
  it('--json: the documented ready line has the real one\'s fields, in its order', async () => {
    const row = readDoc('docs/configuration.md').split('\n').find((l) => l.startsWith('| `--json` |'))!;
    const documented = JSON.parse(/`(\{"ingest".*?\})`/.exec(row)![1]!) as Record<string, unknown>;
    const relay = await startCli(['--data-dir', tempDir('sluice-docs-ready-')]);
    try {
      expect(Object.keys(documented)).toEqual(Object.keys(relay.ready));
      expect(Object.keys((documented.sources as object[])[0]!)).toEqual(Object.keys(relay.ready.sources[0]!));
    } finally {
      expect(await relay.stop()).toBe(0);
    }
  });

  it('the README\'s banner has the real banner\'s lines, labelled and aligned alike', async () => {
    const readme = readDoc('README.md');
    const block = /```\n(Sluice is running\.\n[\s\S]*?)```/.exec(readme)![1]!.trimEnd().split('\n');
    const banner = await serveBanner(['--data-dir', tempDir('sluice-docs-banner-')]);
    const real = banner.trimEnd().split('\n');
    const label = (line: string) => /^(\s*\S.*?)\s{2,}/.exec(line)?.[1] ?? line;
    const column = (line: string) => /^\s*\S.*?\s{2,}/.exec(line)?.[0].length;
    expect(block.map(label)).toEqual(real.map((l) => label(l).replace(/"[^"]*"/, '"default"')));
    expect(block.map(column)).toEqual(real.map(column));
  });
});
