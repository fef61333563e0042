/**
 * `sluice check --plan PLAN [--unplanned allow|flag|block] [--json] FILE...`: checks messages against
 * a tracking plan without a relay running — in CI, on pages of the HTTP API, on what a test suite
 * captured. The same compiled checks as ingestion (compile-plan.ts), the same refusals
 * (shared/message-rules.ts), so what passes here passes there. `--unplanned block` (a config file's
 * word) reads as `flag`: nothing is blocked here, an unplanned event is a violation either way.
 *
 * Exit code: 0 every message conforms (with a warning on stderr when there was none to check); 1 a
 * violation, a message ingestion would refuse, or a line that is not a message; 2 the command cannot
 * run (usage, plan, files: InputError / UsageError).
 */
import { parseArgs } from 'node:util';
import { findRejection } from '../../shared/message-rules.ts';
import { formatCount, plural } from '../../shared/counted.ts';
import type { UnplannedMode, Violation } from '../../shared/tracking-plan.ts';
import type { CompiledPlan } from '../core/plans/compile-plan.ts';
import { UsageError } from './command-error.ts';
import { ndjsonLine } from '../core/transfer/json-lines.ts';
import { checkInputFiles, clip, isObject, lineContent, LineWriter, readLines, STDIN_ARG, STDIN_NAME, tooLongLine } from './ndjson.ts';
import { readPlan, sayNotes } from './plan-input.ts';

const OPTIONS = {
  plan: { type: 'string' },
  unplanned: { type: 'string' },
  json: { type: 'boolean' },
} as const;

/** Which message a result is about, as both outputs name it. */
interface Subject {
  file: string;
  line: number;
  /** Its place in a batch line or a page of messages, and which of the two. */
  index?: number;
  list?: 'batch' | 'messages';
  messageId: string | null;
  type: unknown;
  /** The track event's name, or the page's or screen's. */
  event: string | null;
}

interface Totals {
  messages: number;
  withViolations: number;
  violations: number;
  refused: number;
  unreadable: number;
  /** What an export or a page holds that no plan checks at ingestion: left out (before 2026-12-01 they were checked). */
  skipped: { sluiceMade: number; duplicates: number };
}

export async function check(args: string[]): Promise<number> {
  const { values, positionals: files } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (values.plan === undefined || values.plan === '') throw new UsageError('--plan PLAN is required: the tracking plan to check the messages against');
  const unplanned = values.unplanned ?? 'flag';
  if (unplanned !== 'allow' && unplanned !== 'flag' && unplanned !== 'block') throw new UsageError(`--unplanned must be allow, flag or block, not "${unplanned}"`);
  if (files.length === 0) throw new UsageError('name the files to check (NDJSON, one message per line; - reads stdin)');
  checkInputFiles(files);
  const { format, compiled, notes } = readPlan(values.plan);
  sayNotes(values.plan, notes);

  const out = new LineWriter();
  const report = values.json ? jsonReport(out) : humanReport(out);
  const totals: Totals = { messages: 0, withViolations: 0, violations: 0, refused: 0, unreadable: 0, skipped: { sluiceMade: 0, duplicates: 0 } };
  for (const file of files) {
    const name = file === STDIN_ARG ? STDIN_NAME : file;
    for await (const { line, text, tooLong } of readLines(file)) {
      const content = tooLong !== undefined ? { error: tooLongLine(tooLong) } : lineContent(text);
      if ('error' in content) {
        totals.unreadable++;
        await report.unreadable(name, line, content.error);
        continue;
      }
      if (content.skipped) {
        totals.skipped.sluiceMade += content.skipped.sluiceMade;
        totals.skipped.duplicates += content.skipped.duplicates;
      }
      for (const { message, index, list, refused } of content.messages) {
        totals.messages++;
        const subject = { file: name, line, index, list, ...describeMessage(message) };
        if (refused) {
          totals.refused++;
          await report.refused(subject, refused);
          continue;
        }
        await checkOne(message, subject, compiled, unplanned, totals, report);
      }
    }
  }
  await report.summary({ plan: values.plan, format, ...totals });
  await out.flush();
  // Exits 0 all the same (an empty export is not a failure), but a check of nothing should not pass unnoticed.
  if (totals.messages === 0) process.stderr.write(`sluice: warning: no messages were checked: ${nothingChecked(files, totals.unreadable)}\n`);
  return totals.withViolations + totals.refused + totals.unreadable > 0 ? 1 : 0;
}

async function checkOne(message: unknown, subject: Subject, plan: CompiledPlan, unplanned: UnplannedMode, totals: Totals, report: Report): Promise<void> {
  // What ingestion would refuse never reaches a plan there; here it is told the same way.
  const rejection = findRejection(message);
  if (rejection) {
    totals.refused++;
    await report.refused(subject, rejection);
    return;
  }
  const m = message as Record<string, unknown>;
  const violations = plan.check({ type: m.type as string, event: m.event, properties: m.properties, traits: m.traits, context: m.context }, unplanned);
  if (violations.length === 0) return;
  totals.withViolations++;
  totals.violations += violations.length;
  await report.violations(subject, violations);
}

/** Why nothing was checked, to follow "no messages were checked: ". */
function nothingChecked(files: string[], unreadable: number): string {
  const names = files.map((f) => (f === STDIN_ARG ? STDIN_NAME : f));
  const input = names.length === 1 ? names[0]! : names.length <= 3 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}` : `the ${names.length} files`;
  if (unreadable > 0) return `no line of ${input} is a message (see the lines above)`;
  return `${input} ${names.length === 1 ? 'holds' : 'hold'} no messages (empty, blank lines or empty lists only)`;
}

function describeMessage(message: unknown): Pick<Subject, 'messageId' | 'type' | 'event'> {
  if (!isObject(message)) return { messageId: null, type: null, event: null };
  const name = message.type === 'track' ? message.event : message.type === 'page' || message.type === 'screen' ? message.name : undefined;
  return {
    messageId: typeof message.messageId === 'string' ? message.messageId : null,
    type: message.type ?? null,
    event: typeof name === 'string' ? name : null,
  };
}

interface Summary extends Totals {
  plan: string;
  format: string;
}

interface Report {
  violations(subject: Subject, violations: Violation[]): Promise<void>;
  refused(subject: Subject, rejection: { code: string; message: string }): Promise<void>;
  unreadable(file: string, line: number, error: string): Promise<void>;
  summary(summary: Summary): Promise<void>;
}

/**
 * For a person: one line per violation, each starting with where it is, so that an editor or a
 * terminal can jump to `file:line`:
 * `events.ndjson:12  track "Order Completed" (m-12)  Datatype-Mismatch at /properties/price: price must be a number; got the string "12"`.
 */
function humanReport(out: LineWriter): Report {
  const prefix = (s: Subject) => {
    const type = typeof s.type === 'string' ? clip(s.type, 40) : 'message';
    // A batch line or a page holds many messages: the place tells them apart when no messageId does.
    const which = [s.messageId, s.index !== undefined ? `${s.list ?? 'batch'}[${s.index}]` : null].filter((part) => part !== null);
    return `${s.file}:${s.line}  ${type}${s.event !== null ? ` ${JSON.stringify(s.event)}` : ''}${which.length > 0 ? ` (${which.join(', ')})` : ''}`;
  };
  return {
    async violations(subject, violations) {
      const where = prefix(subject);
      for (const v of violations) await out.line(`${where}  ${v.type}${v.path ? ` at ${v.path}` : ''}: ${v.message}`);
    },
    async refused(subject, rejection) {
      await out.line(`${prefix(subject)}  ingestion would refuse it (${rejection.code}): ${rejection.message}`);
    },
    async unreadable(file, line, error) {
      await out.line(`${file}:${line}  ${error}`);
    },
    async summary(s) {
      const parts = [`${formatCount(s.withViolations)} with violations (${plural(s.violations, 'violation')})`];
      if (s.refused > 0) parts.push(`${s.refused} that ingestion would refuse`);
      parts.push(plural(s.unreadable, 'unreadable line'));
      const left = [
        s.skipped.sluiceMade > 0 ? `${plural(s.skipped.sluiceMade, 'message')} Sluice made itself (audience syncs, Violation Generated)` : null,
        s.skipped.duplicates > 0 ? plural(s.skipped.duplicates, 'duplicate') : null,
      ].filter((part) => part !== null);
      const skipped = left.length > 0 ? `; left out, as ingestion does not check them: ${left.join(' and ')}` : '';
      await out.line(`checked ${plural(s.messages, 'message')} against ${JSON.stringify(s.plan)} (${s.format} format): ${parts.join(', ')}${skipped}`);
    },
  };
}

/** For a program: one JSON object per line, then `{"summary": {...}}`. */
function jsonReport(out: LineWriter): Report {
  const about = ({ index, list, ...s }: Subject) => ({ ...s, ...(index !== undefined ? { index, list } : {}) });
  return {
    violations: (subject, violations) => out.line(ndjsonLine({ ...about(subject), violations })),
    refused: (subject, rejection) => out.line(ndjsonLine({ ...about(subject), refused: rejection })),
    unreadable: (file, line, error) => out.line(ndjsonLine({ file, line, error })),
    summary: (summary) => out.line(ndjsonLine({ summary })),
  };
}

