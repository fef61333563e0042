// The stream's facets and timeline (issue 29, point 5), the parts both sides share: which fields have
// facets, the search clause a facet value adds (written so that the query language reads it back as
// that value), and the timeline's bucket for a span of time. Pure; depends on shared/ only.
import { parseQuery, QueryError } from './message-query.ts';

/** The stored fields every search has facets of, as the query language names them. */
export const FACET_FIELDS = ['event', 'type', 'source', 'userId'] as const;
export type FacetField = (typeof FACET_FIELDS)[number];

/** Values listed per facet, at most (the rest are counted as `others`). */
export const FACET_TOP = 10;
/** A value longer than this is listed cut (and its clause matches it by its start). */
export const FACET_VALUE_MAX = 200;

/** Whether `path` is a payload field the query language reads (properties.plan, context.app.version, …); a QueryError says why not. */
export function checkFacetPath(path: string): void {
  const clauses = parseQuery(`${path}:*`);
  if (clauses.length !== 1 || clauses[0]!.kind !== 'path' || /\s/.test(path)) {
    throw new QueryError(`"${path}" is not a payload field: give a path such as properties.plan or context.app.version`, 0);
  }
}

/**
 * The search clause that picks the messages whose `field` is `value` (null: the field is absent).
 * Quoted when the value has a space or a quote, is empty, or would read as something else (a
 * comparison `>10` of a path, a leading minus); a value cut at FACET_VALUE_MAX matches by its start.
 * `*` stays a wildcard in the language: such a value matches itself and more.
 */
export function facetClause(field: string, value: string | null, cut = false): string {
  if (value === null) return `-${field}:*`;
  const text = cut ? `${value}*` : value;
  const quote = text === '' || /[\s"]/.test(text) || /^[<>]/.test(text);
  return `${field}:${quote ? `"${text.replaceAll('"', '""')}"` : text}`;
}

/** The search with `clause` added (all clauses must hold). */
export function withClause(search: string, clause: string): string {
  const trimmed = search.trim();
  return trimmed ? `${trimmed} ${clause}` : clause;
}

/** Bucket widths the timeline picks from: the smallest that gives at most TIMELINE_BUCKETS buckets. */
const BUCKET_MS = [1, 5, 10, 30].map((s) => s * 1000).concat([1, 5, 10, 30].map((m) => m * 60_000), [1, 3, 6, 12].map((h) => h * 3_600_000), [1, 7, 30].map((d) => d * 86_400_000));
export const TIMELINE_BUCKETS = 60;

/** The timeline's bucket width for a span (ms): a round width, at most TIMELINE_BUCKETS buckets (days of 30 past that). */
export function bucketFor(spanMs: number): number {
  return BUCKET_MS.find((ms) => Math.ceil((spanMs + 1) / ms) <= TIMELINE_BUCKETS) ?? Math.ceil((spanMs + 1) / TIMELINE_BUCKETS / 86_400_000) * 86_400_000;
}
