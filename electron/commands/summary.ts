/**
 * `sluice summary [--data-dir D] [--limit N] [--json]`: what a store holds, as Markdown tables for a CI
 * job's summary (GitHub's GITHUB_STEP_SUMMARY, a merge request comment): messages by type and status,
 * track events by name, tracking-plan violations, deliveries that failed or are being retried. A thin
 * command over the store's counts and indexed reads (core/store/run-summary.ts): it stays quick at a
 * million messages. The store is opened read-only, so a relay may be serving from it meanwhile.
 *
 * Exit code: 0 summarised (violations and failures are reported, not a failure of the command); 2 the
 * summary could not be made (usage, store).
 */
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../core/config/data-dir.ts';
import { databaseFile } from '../core/store/database.ts';
import { runSummary, SUMMARY_ROWS_MAX, type Listed, type RunSummary, type SummaryCount } from '../core/store/run-summary.ts';
import { formatCount as count, plural } from '../../shared/counted.ts';
import { ndjsonLine } from '../core/transfer/json-lines.ts';
import { InputError, storeFailureInput, UsageError } from './command-error.ts';
import { openStore } from './read-store.ts';

/** Rows per table unless --limit says otherwise. */
const DEFAULT_ROWS = 10;
/** Characters of one cell (an error sentence, a violation, an event's name) before it is cut. */
const CELL_CHARS = 160;

export async function summaryCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { 'data-dir': { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length > 0) throw new UsageError(`summary reads the store and takes no file (got ${positionals.map((p) => JSON.stringify(p)).join(', ')})`);
  if (values['data-dir'] === '') throw new UsageError('--data-dir needs a value');
  const limit = values.limit === undefined ? DEFAULT_ROWS : Number(values.limit);
  if (!/^\d+$/.test(values.limit ?? '1') || limit < 1 || limit > SUMMARY_ROWS_MAX) {
    throw new UsageError(`--limit must be a whole number from 1 to ${SUMMARY_ROWS_MAX}, not "${values.limit}"`);
  }
  const dataDir = values['data-dir'] ?? defaultDataDir();
  const { db } = openStore(dataDir);
  let summary: RunSummary;
  try {
    summary = runSummary(db, limit);
  } catch (error) {
    throw storeFailureInput(error, databaseFile(dataDir)) ?? new InputError(`cannot read the store in ${dataDir}: ${(error as Error).message}`);
  } finally {
    db.close();
  }
  process.stdout.write(values.json ? `${ndjsonLine(summary)}\n` : markdown(summary));
  return 0;
}

/** The summary as GitHub-flavoured Markdown: a heading, a line of totals, then one table per part. */
export function markdown(s: RunSummary): string {
  const { messages, types, deliveries } = s.stats;
  const total = Object.values(messages).reduce((a, b) => a + b, 0);
  const sent = Object.values(deliveries).reduce((a, b) => a + b, 0);
  const out: string[] = ['## Sluice', ''];
  out.push(
    `**${plural(total, 'message')}** (${breakdown(messages)}) · **${plural(sent, 'delivery', 'deliveries')}**${sent > 0 ? ` (${breakdown(deliveries)})` : ''} · ` +
      `**${plural(s.violations.total, 'message')}** broke a tracking plan`,
    '',
  );

  const byType = Object.entries(types).sort(([a, m], [b, n]) => n - m || a.localeCompare(b));
  out.push('### Messages by type', '');
  out.push(...(byType.length === 0 ? ['No messages.'] : table(['type', 'messages'], byType.map(([type, n]) => [type, count(n)]), ['-', '-:'])), '');

  out.push('### Track events', '');
  out.push(...(s.events.total === 0 ? ['No track events.'] : [...table(['event', 'received'], s.events.rows.map((e) => [e.event ?? '', count(e.messages)]), ['-', '-:']), ...more(s.events, 'event')]), '');

  out.push('### Tracking-plan violations', '');
  if (s.violations.total === 0) out.push('No message broke a tracking plan.', '');
  else {
    out.push(...table(['plan', 'event', 'messages'], s.violationsByEvent.rows.map((v) => [v.plan ?? '', eventName(v), count(v.messages)]), ['-', '-', '-:']), ...more(s.violationsByEvent, 'event'), '');
    out.push(`The newest ${plural(s.violations.rows.length, 'message')} that broke a plan:`, '');
    out.push(
      ...table(
        ['message', 'event', 'source', 'violations'],
        s.violations.rows.map((v) => [
          v.messageId ?? '',
          v.type === 'track' ? (v.event ?? '') : (v.type ?? ''),
          v.source,
          v.violations.map((x) => `${x.type} ${x.path}: ${x.message}`).join('; '),
        ]),
      ),
      ...more(s.violations, 'message'),
      '',
    );
  }

  out.push('### Failed deliveries', '');
  if (s.deliveries.total === 0) out.push('No delivery failed or is being retried.', '');
  else {
    out.push(
      ...table(
        ['destination', 'message', 'event', 'status', 'attempts', 'last error'],
        s.deliveries.rows.map((d) => [d.destination, d.messageId ?? '', d.type === 'track' ? (d.event ?? '') : (d.type ?? ''), d.status, count(d.attempts), d.lastError ?? '']),
        ['-', '-', '-', '-', '-:', '-'],
      ),
      ...more(s.deliveries, 'delivery', 'deliveries'),
      '',
    );
  }
  return `${out.join('\n')}\n`;
}

function table(head: string[], rows: string[][], align: string[] = head.map(() => '-')): string[] {
  return [`| ${head.join(' | ')} |`, `|${align.map((a) => (a === '-:' ? '---:' : '---')).join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)];
}

/** A table cell: one line, cut to CELL_CHARS, with what Markdown or HTML would read escaped (`|` ends a cell). */
export function cell(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  const cut = line.length > CELL_CHARS ? `${line.slice(0, CELL_CHARS - 1)}…` : line;
  return cut.replace(/[\\`*_[\]<>|~&#!]/g, '\\$&') || ' ';
}

function more<T>(listed: Listed<T>, one: string, many = `${one}s`): string[] {
  const left = listed.total - listed.rows.length;
  return left > 0 ? ['', `…and ${plural(left, `more ${one}`, `more ${many}`)} (\`--limit\` lists up to ${SUMMARY_ROWS_MAX}).`] : [];
}

function eventName(c: SummaryCount): string {
  return c.event ?? c.type;
}

function breakdown(counts: Record<string, number>): string {
  const parts = Object.entries(counts).filter(([, n]) => n > 0);
  return parts.length === 0 ? 'none' : parts.map(([status, n]) => `${count(n)} ${status}`).join(', ');
}

