// The stream's facets and timeline (issue 29, point 5): for the current search, the top values of
// event, type, source, userId and a chosen payload field, and the messages over time. Run in the
// counting thread (count-worker.ts), never on the core's.
//
// What is exact and what is not, measured at 1 M stored messages (docs/benchmarks.md#facets-benchmark):
// a GROUP BY over every message reads every row — 3.5 s for event alone over 2.2 M rows — so facets
// count the latest FACET_SCAN matches, newest first (one read through the search's parts, as a page
// of the list is read): exact when fewer match, "of the latest 50,000" when more. The timeline of an
// unfiltered list (or one filtered by time only) is counted on the time index — exact up to 500,000
// messages in the range, else the latest 500,000 (grouping 2.2 M index entries takes 1–3.5 s there);
// any other filter's timeline is drawn from the same latest matches as the facets. Each says which.
import type { DatabaseSync } from 'node:sqlite';
import { FACET_FIELDS, FACET_TOP, FACET_VALUE_MAX, bucketFor, checkFacetPath, facetClause } from '../../../shared/facets.ts';
import type { FacetsView, FacetView, TimelineView } from '../../../shared/channels/facets.ts';
import { parseQuery } from '../../../shared/message-query.ts';
import { NO_SOURCE_ID } from '../../../shared/refused-request.ts';
import { readSnapshot } from './connection.ts';
import { parts, type CountQuery } from './message-counts.ts';
import { ifJson, jsonPath } from './message-query-sql.ts';

/** Matches counted, at most: the latest ones (measured: ~0.3 s for 50,000 rows, 0.6–0.9 s for 100,000, on the benchmark's 2-core machine). */
export const FACET_SCAN = 50_000;

export interface FacetQuery extends CountQuery {
  /** A payload field (properties.plan) to count the values of too. */
  field?: string | undefined;
}

type Row = { event: string | null; type: string | null; source: number; userId: string | null; at: number; field?: string | number | null };

/** The latest `limit` matches of `query`, newest first, each handed to `visit`; how many there were. */
function latestMatches(db: DatabaseSync, query: CountQuery, select: string, selectParams: (string | number)[], limit: number, visit: (row: Row) => void): number {
  let seen = 0;
  for (const part of parts(db, query)) {
    if (seen >= limit) break;
    const statement = db.prepare(`SELECT ${select} ${part.sql} ORDER BY ${part.order} DESC LIMIT ?`);
    for (const row of statement.iterate(...selectParams, ...part.values, limit - seen) as Iterable<Row>) {
      seen++;
      visit(row);
    }
  }
  return seen;
}

/** The facets of `query`'s matches: the latest FACET_SCAN of them (`complete` when that is all). */
export function messageFacets(db: DatabaseSync, query: FacetQuery, scan = FACET_SCAN): FacetsView {
  const { field, ...filters } = query;
  let valueSql = '';
  let valueParams: string[] = [];
  if (field) {
    checkFacetPath(field);
    const clause = parseQuery(`${field}:*`)[0] as { path: string[] };
    const path = jsonPath(clause.path);
    // A string by its text, anything else by its JSON: as a path clause compares (message-query-sql.ts).
    valueSql = `, ${ifJson(`CASE json_type(m.raw, ?) WHEN 'text' THEN json_extract(m.raw, ?) ELSE m.raw -> ? END`)} AS field`;
    valueParams = [path, path, path];
  }
  return readSnapshot(db, () => {
    const counts = { event: new Map<unknown, number>(), type: new Map<unknown, number>(), source: new Map<unknown, number>(), userId: new Map<unknown, number>(), field: new Map<unknown, number>() };
    let counted = 0;
    const bump = (map: Map<unknown, number>, value: unknown) => map.set(value, (map.get(value) ?? 0) + 1);
    // One more than asked: whether every match was counted.
    const seen = latestMatches(db, filters, `m.event AS event, m.type AS type, m.source_id AS source, m.user_id AS userId${valueSql}`, valueParams, scan + 1, (row) => {
      if (counted === scan) return;
      counted++;
      bump(counts.event, row.event);
      bump(counts.type, row.type);
      bump(counts.source, row.source);
      bump(counts.userId, row.userId);
      if (field) bump(counts.field, row.field ?? null);
    });
    const names = new Map((db.prepare('SELECT id, name FROM sources').all() as { id: number; name: string }[]).map((s) => [s.id, s.name]));
    const facets: FacetView[] = FACET_FIELDS.map((name) =>
      name === 'source'
        ? top(name, counts.source, (id) => (id === NO_SOURCE_ID ? { value: 'no source', clause: null } : names.has(id as number) ? { value: names.get(id as number)!, clause: undefined } : { value: `source ${id}`, clause: null }))
        : top(name, counts[name]),
    );
    if (field) facets.push(top(field, counts.field));
    return { counted, complete: seen <= scan, facets };
  });
}

/**
 * A facet: its FACET_TOP most frequent values with their counts and clauses. `label` names a value
 * that is not the text a clause compares (a source by its name; clause null where no clause picks it).
 */
function top(field: string, counts: Map<unknown, number>, label?: (value: unknown) => { value: string; clause: string | null | undefined }): FacetView {
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || String(a[0]).localeCompare(String(b[0])));
  const values = sorted.slice(0, FACET_TOP).map(([raw, count]) => {
    const named = label?.(raw);
    const text = named ? named.value : raw === null || raw === undefined ? null : String(raw);
    const cut = text !== null && text.length > FACET_VALUE_MAX;
    const value = cut ? text!.slice(0, FACET_VALUE_MAX) : text;
    const clause = named?.clause === null ? null : facetClause(field, value, cut);
    return { value, count, clause, ...(cut ? { cut: true as const } : {}) };
  });
  const others = sorted.slice(FACET_TOP).reduce((sum, [, n]) => sum + n, 0);
  return { field, values, others, distinct: sorted.length };
}

/** The timeline of the times read (newest first); `exact`: they are every match. */
function timelineOf(times: number[], filters: CountQuery, exact: boolean): TimelineView | null {
  if (times.length === 0) return null;
  const oldest = times.at(-1)!;
  const newest = times[0]!;
  const from = exact && filters.from !== undefined ? Math.min(filters.from, oldest) : oldest;
  const to = exact && filters.to !== undefined ? Math.max(filters.to, newest) : newest;
  const bucketMs = bucketFor(to - from);
  const start = Math.floor(from / bucketMs) * bucketMs;
  const counts = new Array<number>(Math.floor((to - start) / bucketMs) + 1).fill(0);
  for (const at of times) counts[Math.floor((at - start) / bucketMs)]!++;
  return { from: start, bucketMs, counts, exact, since: exact ? null : oldest };
}

/** Whether only the time range filters (or nothing): then the time index counts the timeline exactly. */
export function timeOnly(query: CountQuery): boolean {
  return Object.entries(query).every(([key, value]) => key === 'from' || key === 'to' || value === undefined || value === '');
}

/** Messages the unfiltered timeline counts, at most: the latest (on the time index: ~0.2 s for 500,000 on a quiet 2-core machine). */
export const TIMELINE_SCAN = 500_000;

/**
 * The timeline of the messages in the time range (all when none), counted on the time index: every one
 * when the range holds at most `scan`, else the latest `scan` (those received after the one past them).
 */
export function exactTimeline(db: DatabaseSync, query: CountQuery, scan = TIMELINE_SCAN): TimelineView | null {
  return readSnapshot(db, () => {
    const lo = query.from ?? 0;
    const hi = query.to ?? Number.MAX_SAFE_INTEGER;
    const last = db.prepare('SELECT max(received_at) AS at FROM messages WHERE received_at BETWEEN ? AND ?').get(lo, hi) as { at: number | null };
    if (last.at === null) return null;
    // The message past the latest `scan`: when there is one, only those received after it are counted.
    const past = db
      .prepare('SELECT received_at AS at FROM messages INDEXED BY messages_received WHERE received_at BETWEEN ? AND ? ORDER BY received_at DESC LIMIT 1 OFFSET ?')
      .get(lo, hi, scan) as { at: number } | undefined;
    const exact = past === undefined;
    const first = exact
      ? (db.prepare('SELECT min(received_at) AS at FROM messages WHERE received_at BETWEEN ? AND ?').get(lo, hi) as { at: number }).at
      : past.at + 1;
    const bucketMs = bucketFor(last.at - first);
    const start = Math.floor(first / bucketMs) * bucketMs;
    const counts = new Array<number>(Math.floor((last.at - start) / bucketMs) + 1).fill(0);
    const rows = db
      .prepare('SELECT CAST((received_at - ?) / ? AS INTEGER) AS k, count(*) AS n FROM messages INDEXED BY messages_received WHERE received_at BETWEEN ? AND ? GROUP BY k')
      .all(start, bucketMs, first, last.at) as { k: number; n: number }[];
    for (const { k, n } of rows) counts[k] = n;
    return { from: start, bucketMs, counts, exact, since: exact ? null : first };
  });
}

/** The timeline of a filtered list: its latest FACET_SCAN matches', exact when fewer match. */
export function messageTimeline(db: DatabaseSync, query: CountQuery, scan = FACET_SCAN): TimelineView | null {
  return readSnapshot(db, () => {
    const times: number[] = [];
    const seen = latestMatches(db, query, 'm.received_at AS at', [], scan + 1, (row) => {
      if (times.length < scan) times.push(row.at);
    });
    return timelineOf(times, query, seen <= scan);
  });
}
