// The inspector's download and drop: the same export lines and HAR as `sluice export` writes
// (export-lines.ts, har.ts), gathered into one text for a download; and a dropped file sent through
// this relay's own ingestion endpoint as `sluice import` sends one (import-parse.ts, batch-sender.ts).
import type { DatabaseSync } from 'node:sqlite';
import type { MessageFilter } from '../../../shared/message-filter.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EXPORT_MAX_CHARS, EXPORT_MAX_MESSAGES, type ImportOutcome } from '../../../shared/storage.ts';
import type { StorageResponses } from '../../../shared/channels/storage.ts';
import { exportLineText, exportPages, type ExportFilter, type ExportLine } from './export-lines.ts';
import { ndjsonLine, splitLines } from './json-lines.ts';
import { HAR_TAIL, harHead, harPages, type HarEntry } from './har.ts';
import { harMessages, isHar, parseLine, type Parsed } from './import-parse.ts';
import { BatchSender, ImportTally } from './batch-sender.ts';

/** The stream's filter as the export's (the same fields, named as the CLI's). */
function exportFilter(filter: MessageFilter): ExportFilter {
  const { from, to, sourceId, event, status, type, userId, violations, search, plan, delivery } = filter;
  return {
    ...(sourceId !== undefined ? { sourceId } : {}),
    ...(from !== undefined ? { since: from } : {}),
    ...(to !== undefined ? { until: to } : {}),
    ...(event !== undefined ? { event } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(type !== undefined ? { type } : {}),
    ...(userId !== undefined ? { userId } : {}),
    ...(violations !== undefined ? { violations } : {}),
    ...(search !== undefined ? { search } : {}),
    ...(plan !== undefined ? { plan } : {}),
    ...(delivery !== undefined ? { delivery } : {}),
  };
}

/**
 * A download of the filter's messages (NDJSON) or of the requests Sluice made for them (HAR 1.2: webhook
 * attempts, forwarded requests): at most EXPORT_MAX_MESSAGES of them and EXPORT_MAX_CHARS of text (`limits`,
 * for tests). It
 * runs on the core's thread, beside ingestion and delivery, so it yields a turn of the event loop after
 * each page (as the HTTP API's streaming export does): a download of 100,000 messages, or a selective
 * filter read over a million, does not hold an ingestion answer for the whole of it.
 */
export async function exportForDownload(
  db: DatabaseSync,
  filter: MessageFilter,
  format: 'ndjson' | 'har',
  now: number,
  limits = { messages: EXPORT_MAX_MESSAGES, chars: EXPORT_MAX_CHARS },
): Promise<StorageResponses['messages.export']> {
  const stamp = new Date(now).toISOString().slice(0, 16).replace(':', '-');
  const wanted = exportFilter(filter);
  const parts: string[] = [];
  let chars = 0;
  let truncated = false;
  /** Takes a part if the download holds one more; false (and truncated) when it is full. */
  const take = (text: string): boolean => {
    if (parts.length === limits.messages || chars + text.length > limits.chars) return !(truncated = true);
    parts.push(text);
    chars += text.length + 1;
    return true;
  };
  const { since: _since, until: _until, ...messages } = wanted; // a HAR's time range is its attempts'
  const pages =
    format === 'ndjson'
      ? exportPages(db, wanted)
      : harPages(db, { ...messages, ...(filter.from !== undefined ? { since: filter.from } : {}), ...(filter.to !== undefined ? { until: filter.to } : {}) });
  try {
    for (let next = pages.next(); !next.done && !truncated; next = pages.next()) {
      for (const item of next.value) if (!take(format === 'ndjson' ? exportLineText(item as ExportLine) : ndjsonLine(item as HarEntry))) break;
      if (truncated) break; // no page read past the cut
      await nextTurn();
    }
  } finally {
    pages.return?.(undefined); // its statements are let go when it ends early
  }
  if (format === 'ndjson') {
    return { fileName: `sluice-${stamp}.ndjson`, mimeType: 'application/x-ndjson', text: parts.length ? `${parts.join('\n')}\n` : '', messages: parts.length, truncated };
  }
  return { fileName: `sluice-${stamp}.har`, mimeType: 'application/json', text: `${harHead()}${parts.join(',')}${HAR_TAIL}`, messages: parts.length, truncated };
}

/** Lines listed in an outcome at most (the counts are whole). */
const LISTED = 20;

/** A dropped file's messages sent through this relay's ingestion endpoint with the source's write key. */
export async function importDropped(ingestUrl: string, writeKey: string, fileName: string, text: string): Promise<ImportOutcome> {
  const lineOf = (where: string) => Number(/:(\d+)/.exec(where)?.[1] ?? NaN);
  const sender = new BatchSender(ingestUrl, writeKey, LISTED);
  const tally = new ImportTally(sender, LISTED);
  const take = (parsed: Parsed) => tally.take(parsed);
  let format: ImportOutcome['format'] = 'ndjson';
  let whole: unknown;
  try {
    whole = text.trimStart().startsWith('{') && !text.trim().includes('\n') ? JSON.parse(text) : undefined;
  } catch {
    whole = undefined;
  }
  if (whole === undefined && /^\s*\{\s*"log"\s*:/.test(text)) {
    try {
      whole = JSON.parse(text); // a HAR file is one document over many lines
    } catch {
      whole = undefined;
    }
  }
  if (isHar(whole)) {
    format = 'har';
    await take(harMessages(whole as Record<string, unknown>, fileName));
  } else {
    const lines = splitLines(text);
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]!.trim() === '') continue;
      const parsed = parseLine(lines[i]!, `${fileName}:${i + 1}`);
      if ('har' in parsed) {
        format = 'har';
        await take(harMessages(parsed.har, fileName));
      } else await take(parsed);
    }
  }
  await sender.flush();
  return {
    format,
    sent: sender.sent,
    accepted: sender.accepted,
    refusedCount: sender.refused,
    refused: sender.firstRefusals.map((r) => ({ line: lineOf(r.item.where) || null, reason: `${r.code}: ${r.message}` })),
    refusedAgain: sender.refusedAgain,
    unreadableCount: tally.unreadable,
    unreadable: tally.firstErrors.map((error) => ({ line: lineOf(error.where) || 0, reason: error.error })),
    skipped: [...tally.skipped].map(([reason, count]) => ({ reason, count })),
  };
}
