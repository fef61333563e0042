/**
 * An export streamed over HTTP from the relay's own process (`GET /api/v1/export`, http-api.ts): the
 * inspector downloads the current filter's messages, or their webhook attempts as HAR, the same lines
 * `sluice export` writes. Each page is one short query (export-lines.ts) written before the next is
 * read, and the next waits for the socket to drain when it is full — so a large export holds neither
 * the store's rows in memory nor the event loop for long: ingestion and other API calls go on between pages.
 */
import type { ServerResponse } from 'node:http';
import type { DatabaseSync } from 'node:sqlite';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { exportLineText, exportPages, type ExportLine } from './export-lines.ts';
import { ndjsonLine } from './json-lines.ts';
import { HAR_TAIL, harHead, harPages, type HarEntry, type HarFilter } from './har.ts';

export type ExportFormat = 'ndjson' | 'har';

/**
 * Writes the whole export to `res` (headers included) and ends it; resolves with how many lines
 * (messages or attempts) it wrote. A client that goes away, or Sluice stopping, ends it early (the
 * response is destroyed, so the client sees a cut download rather than a short file that looks whole).
 */
export async function streamExport(res: ServerResponse, db: DatabaseSync, format: ExportFormat, filter: HarFilter, stopping: AbortSignal, now = Date.now()): Promise<number> {
  // The NDJSON export's time bounds are when messages were received; the HAR's, when attempts were made.
  const pages: Iterator<HarEntry[] | ExportLine[]> = format === 'har' ? harPages(db, filter) : exportPages(db, filter);
  // The first page before the first byte: what the filter holds (a search that does not parse, a store
  // that cannot be read) is found while the caller can still answer with a JSON error and a status.
  let next = pages.next();
  const stamp = new Date(now).toISOString().replace(/\.\d+Z$/, 'Z').replaceAll(':', '-');
  res.writeHead(200, {
    'Content-Type': format === 'har' ? 'application/json; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    'Content-Disposition': `attachment; filename="sluice-${stamp}.${format === 'har' ? 'har' : 'ndjson'}"`,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  let closed = false;
  res.once('close', () => (closed = true));
  let count = 0;
  if (format === 'har') res.write(`${harHead()}\n`);
  try {
    for (; !next.done; next = pages.next()) {
      const page = next.value;
      if (closed || stopping.aborted) {
        res.destroy();
        return count;
      }
      if (page.length > 0) {
        const text =
          format === 'har'
            ? (page as HarEntry[]).map((entry, i) => `${count + i > 0 ? ',' : ''}${ndjsonLine(entry)}\n`).join('')
            : `${(page as ExportLine[]).map(exportLineText).join('\n')}\n`;
        count += page.length;
        if (!res.write(text)) {
          await drained(res);
          continue;
        }
      }
      // The socket took it: let whatever else waits (an ingestion answer, another API call) run first.
      await nextTurn();
    }
  } finally {
    pages.return?.(); // its statements are let go when it ends early
  }
  if (closed) return count;
  res.end(format === 'har' ? HAR_TAIL : undefined);
  return count;
}

/** Resolves when `res` can take more, or has closed (the loop then sees it destroyed). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
