/**
 * The store's figures and actions in words: sizes, times ("2026-11-20 14:03 · 5 days ago"), the last
 * prune, the clear question and its outcome, an export's and an import's outcome. Pure (no React, no
 * DOM), tested in Node.
 */
import { EXPORT_MAX_CHARS, IMPORT_SKIPPED, importRefusedAgain, type ImportOutcome, type PruneReport, type Retention } from '../../../../shared/storage.ts';
import type { StorageResponses } from '../../../../shared/channels/storage.ts';
import { formatCount, plural, relativeTime } from '../../lib/format.ts';

const KB = 1024;
const MB = 1024 ** 2;
const GB = 1024 ** 3;
const TB = 1024 ** 4;

function scaled(value: number, unit: string): string {
  // Three significant figures at most, and no ".0": "1.5 GB", "12.3 MB", "245 MB".
  const digits = value >= 100 ? 0 : value >= 10 ? 1 : 2;
  return `${Number(value.toFixed(digits)).toLocaleString('en-US')} ${unit}`;
}

/** Bytes in binary units, as the retention limits count them: "0 B", "12 KB", "12.3 MB", "2 GB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  if (bytes < KB) return `${bytes} B`;
  if (bytes < MB) return scaled(bytes / KB, 'KB');
  if (bytes < GB) return scaled(bytes / MB, 'MB');
  if (bytes < TB) return scaled(bytes / GB, 'GB');
  return scaled(bytes / TB, 'TB');
}

/** A count, "≈ 12,300,000" when the core estimated it. */
export function formatFigure(n: number, approximate: boolean): string {
  return `${approximate ? '≈ ' : ''}${formatCount(n)}`;
}

/** "just now", "12 s ago", "4 min ago", "3 h ago", "5 days ago", "2 years ago" (no calendar date: that is said beside it). */
export function agoWords(at: number, now: number): string {
  // A page's clock ticks once a second and the core's may differ a little: a time just ahead is now.
  if (now - at < -60_000) return 'in the future (check the clock)';
  const h = Math.floor(Math.round((now - at) / 1000) / 3600);
  if (h < 24) return relativeTime(at, now); // the lists' words, up to a day
  const d = Math.floor(h / 24);
  if (d < 365) return `${plural(d, 'day')} ago`;
  const y = Math.floor(d / 365);
  return `${plural(y, 'year')} ago`;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Local date and time to the minute: "2026-11-20 14:03". */
export function localMinute(at: number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A message's time for the figures: "2026-11-20 14:03 · 5 days ago", or "none stored". */
export function messageTime(at: number | null, now: number): string {
  return at === null ? 'none stored' : `${localMinute(at)} · ${agoWords(at, now)}`;
}

/** A retention limit in words: "30 days", "1,000,000 messages", "2 GB", or "no limit". */
export function limitWords(key: keyof Retention, value: number | null): string {
  if (value === null) return 'no limit';
  if (key === 'maxAgeDays') return plural(value, 'day');
  if (key === 'maxMessages') return plural(value, 'message');
  return formatBytes(value);
}

/**
 * The last prune: "removed 12,000 messages older than 30 days with 12,000 deliveries and 14,210
 * attempts, 2 min ago; kept 3 still being delivered". `retention` is the one in use now (the report
 * names which limit, not its value then).
 */
export function pruneWords(report: PruneReport, retention: Retention, now: number): string {
  const why =
    report.reason === 'clear'
      ? ''
      : report.reason === 'maxAgeDays'
        ? retention.maxAgeDays !== null
          ? ` older than ${plural(retention.maxAgeDays, 'day')}`
          : ' older than the age limit'
        : report.reason === 'maxMessages'
          ? ` over the limit of ${retention.maxMessages !== null ? plural(retention.maxMessages, 'message') : 'messages'}`
          : ` to keep the database under ${retention.maxBytes !== null ? formatBytes(retention.maxBytes) : 'its size limit'}`;
  const verb = report.reason === 'clear' ? 'cleared' : 'removed';
  const removed =
    report.messages === 0
      ? `${verb} no messages${why}`
      : `${verb} ${plural(report.messages, 'message')}${why} with ${plural(report.deliveries, 'delivery', 'deliveries')} and ${plural(report.attempts, 'attempt')}`;
  const kept = report.keptPending > 0 ? `; kept ${formatCount(report.keptPending)} still being delivered` : '';
  return `${removed}, ${agoWords(report.at, now)}${kept}`;
}

/** What a clear removes, for its question: every message, one source's, or a filter's set (in words). */
export type ClearWhat = { kind: 'all' } | { kind: 'source'; name: string } | { kind: 'filter'; words: string };

export interface ClearQuestion {
  text: string;
  /** The confirming button's label; null when there is nothing to remove. */
  button: string | null;
}

function whose(what: ClearWhat, n: number): string {
  if (what.kind === 'all') return n === 1 ? 'the only stored message' : `all ${plural(n, 'message')}`;
  if (what.kind === 'source') return `${plural(n, 'message')} of ${what.name}`;
  return `${plural(n, 'message')} matching ${what.words}`;
}

/**
 * "Remove 12,345 messages of web, with their deliveries and attempts? Deliveries still pending are
 * cancelled. This cannot be undone." — from a dry run's count.
 */
export function clearQuestion(what: ClearWhat, count: number): ClearQuestion {
  if (count === 0) {
    const none = what.kind === 'all' ? 'No messages are stored' : what.kind === 'source' ? `No messages of ${what.name} are stored` : `No stored message matches ${what.words}`;
    return { text: `${none}: nothing to remove.`, button: null };
  }
  const their = count === 1 ? 'its delivery and attempts' : 'their deliveries and attempts';
  return {
    text: `Remove ${whose(what, count)}, with ${their}? Deliveries still pending are cancelled. This cannot be undone.`,
    button: `Remove ${plural(count, 'message')}`,
  };
}

/** After a clear: "Removed 12,345 messages (with 12,345 deliveries and 13,002 attempts); 45.2 MB freed on disk." */
export function clearDone(result: StorageResponses['storage.clear']): string {
  const removed =
    result.messages === 0
      ? 'Nothing was removed (the messages had gone already).'
      : `Removed ${plural(result.messages, 'message')} (with ${plural(result.deliveries, 'delivery', 'deliveries')} and ${plural(result.attempts, 'attempt')})`;
  if (result.messages === 0) return removed;
  const freed = result.bytesFreed > 0 ? `; ${formatBytes(result.bytesFreed)} freed on disk.` : '; the file kept its size (its free space is reused for new messages).';
  return removed + freed;
}

/**
 * After an export's download: what it holds, and that it was cut short when it was. For a HAR file
 * the core counts its entries (the requests Sluice made: webhook attempts, forwarded requests), not messages.
 */
export function exportDone(result: StorageResponses['messages.export'], format: 'ndjson' | 'har', max: number): string {
  const n = result.messages;
  const saved =
    n === 0
      ? format === 'har'
        ? `Sluice made no request for these messages: ${result.fileName} holds none.`
        : `No message matches: ${result.fileName} is empty.`
      : `Saved ${format === 'har' ? plural(n, 'request') : plural(n, 'message')} to ${result.fileName}.`;
  const more = format === 'har' ? 'requests' : 'messages';
  // Cut at the count, or before it at the download's size (EXPORT_MAX_CHARS: a few very large messages).
  const holds = n >= max ? formatCount(max) : `${formatBytes(EXPORT_MAX_CHARS)} of text`;
  const cut = result.truncated ? ` More ${more} match than one download holds (${holds}): run sluice export in a terminal for all of them.` : '';
  return saved + cut;
}

/** At most this many refused messages and unreadable lines are named (the counts say the rest). */
export const NAMED_MAX = 5;

function lineOf(line: number | null): string {
  return line === null ? '' : `line ${formatCount(line)}: `;
}

/**
 * An import's outcome as lines: what was accepted, what was not sent and why, the first refusals with
 * their reasons, the unreadable lines with their numbers. The counts are the core's, whole; only the
 * lists are cut.
 */
export function importWords(outcome: ImportOutcome): { summary: string; notes: string[]; refused: string[]; unreadable: string[]; more: string | null } {
  const format = outcome.format === 'har' ? 'HAR file' : 'NDJSON file';
  const parts = [`Accepted ${plural(outcome.accepted, 'message')} of ${formatCount(outcome.sent)} sent`];
  if (outcome.refusedCount > 0) parts.push(`refused ${formatCount(outcome.refusedCount)}`);
  if (outcome.unreadableCount > 0) parts.push(`${plural(outcome.unreadableCount, 'line')} not read`);
  const summary = `${format}: ${parts.join('; ')}.`;
  const notes = [
    ...(outcome.refusedAgain > 0 ? [`${importRefusedAgain(formatCount(outcome.refusedAgain))}.`] : []),
    ...outcome.skipped.map(({ reason, count }) => `${IMPORT_SKIPPED[reason](formatCount(count), count === 1)}.`),
  ];
  const refused = outcome.refused.slice(0, NAMED_MAX).map((r) => `${lineOf(r.line)}${r.reason}`);
  const unreadable = outcome.unreadable.slice(0, NAMED_MAX).map((u) => `${lineOf(u.line)}${u.reason}`);
  const hidden = outcome.refusedCount - refused.length + (outcome.unreadableCount - unreadable.length);
  return { summary, notes, refused, unreadable, more: hidden > 0 ? `and ${formatCount(hidden)} more not shown` : null };
}

/** What a reset forgets and what it keeps (electron/core/api/operations/storage.ts: reset). */
const RESET_FORGETS = 'with their deliveries and attempts, refused requests, profiles, audience syncs and members, deletion requests, the receiver’s inbox and injected faults';
const RESET_KEEPS = 'Sources, destinations, audiences, tracking plans, saved searches and the retention stay.';

/**
 * "Reset Sluice? It forgets all 12,345 messages, with their deliveries and attempts, … Sources,
 * destinations, … stay. This cannot be undone." — from a dry run's count; a reset with nothing stored
 * still forgets the rest, so the button stays.
 */
export function resetQuestion(count: number): { text: string; button: string } {
  const messages = count === 0 ? 'every message (none is stored now)' : count === 1 ? 'the only stored message' : `all ${plural(count, 'message')}`;
  return { text: `Reset Sluice? It forgets ${messages}, ${RESET_FORGETS}. ${RESET_KEEPS} This cannot be undone.`, button: 'Reset and forget' };
}

/** After a reset: "Reset: 12,345 messages forgotten, with everything received; sources and destinations stay." */
export function resetDone(result: StorageResponses['storage.reset']): string {
  return `Reset: ${plural(result.messages, 'message')} forgotten, with everything received about them; sources, destinations and settings stay.`;
}
