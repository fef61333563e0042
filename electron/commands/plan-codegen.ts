/**
 * `sluice plan codegen --plan FILE --out DIR [--client …]`: writes DIR/index.ts, a typed function per
 * planned track event (core/plans/codegen/), from a plan in any format Sluice reads. Regenerating
 * replaces a module it generated before, never another file: a hand-written index.ts is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { CODEGEN_CLIENTS, GENERATED_MARK, typedModule, type CodegenClient } from '../core/plans/codegen/typed-module.ts';
import { InputError, UsageError } from './command-error.ts';
import { FORMAT_NAMES, readPlan } from './plan-input.ts';

export const CODEGEN_FILE = 'index.ts';

export async function codegen(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { plan: { type: 'string' }, out: { type: 'string' }, client: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`plan codegen takes no file argument (got ${positionals.map((p) => JSON.stringify(p)).join(', ')}); name the plan with --plan FILE`);
  if (values.plan === undefined || values.plan === '') throw new UsageError('name the plan with --plan FILE');
  if (values.out === undefined || values.out === '') throw new UsageError('name the folder to write the module into with --out DIR');
  const client = values.client ?? 'analytics-node';
  if (!(CODEGEN_CLIENTS as readonly string[]).includes(client)) {
    throw new UsageError(`--client must be one of ${CODEGEN_CLIENTS.join(', ')}, not ${JSON.stringify(client)}`);
  }

  const { plan, format, notes: readNotes } = readPlan(values.plan);
  const out = values.out;
  const file = path.join(out, CODEGEN_FILE);
  checkTarget(out, file);
  // The plan as seen from the module, with forward slashes: the same header whatever folder the command runs in.
  const planPath = path.relative(path.resolve(out), path.resolve(values.plan)).split(path.sep).join('/');
  const generated = typedModule({ plan, planPath, formatName: FORMAT_NAMES[format], client: client as CodegenClient });

  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (before !== generated.text) {
    try {
      fs.mkdirSync(out, { recursive: true });
      fs.writeFileSync(file, generated.text);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new InputError(`cannot write ${file}: ${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOTDIR' || code === 'EEXIST' ? `${out} is not a folder` : (error as Error).message}`);
    }
  }
  const what = `${generated.functions} track function${generated.functions === 1 ? '' : 's'} for ${client}`;
  process.stderr.write(`${before === generated.text ? `${file} is up to date` : `wrote ${file}`}: ${what}\n`);
  for (const note of [...readNotes, ...generated.notes]) process.stderr.write(`  note: ${note}\n`);
  return 0;
}

/** --out must be a folder (or not exist yet), and its index.ts, if any, one this command wrote. */
function checkTarget(out: string, file: string): void {
  if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) throw new InputError(`--out ${out} is a file: name a folder (the module is written as ${CODEGEN_FILE} in it)`);
  if (!fs.existsSync(file)) return;
  const head = fs.readFileSync(file, 'utf8').slice(0, GENERATED_MARK.length);
  if (head !== GENERATED_MARK) throw new InputError(`${file} exists and was not written by sluice plan codegen: move it away or choose another --out folder`);
}
