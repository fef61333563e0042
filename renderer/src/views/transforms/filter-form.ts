/**
 * The filters editor's model, without React: a destination's filters (shared/destination-filters.ts)
 * as rows of a form — a query, an action, the action's sample rate or field paths as typed — the
 * request's `filters` made from them, and each problem placed on its row's control (the core's own
 * schema, run here: a query is checked as the search box checks it). Pure, tested in Node.
 */
import { destinationFiltersSchema, type DestinationFilter } from '../../../../shared/destination-filters.ts';

export const FILTER_ACTIONS = ['drop', 'sample', 'allowFields', 'blockFields'] as const;
export type FilterAction = (typeof FILTER_ACTIONS)[number];

export const ACTION_LABELS: Record<FilterAction, string> = {
  drop: 'Drop the message',
  sample: 'Keep a sample',
  allowFields: 'Send only these fields',
  blockFields: 'Remove these fields',
};

export interface FilterRow {
  /** React key: rows move and are removed in the middle. */
  key: number;
  if: string;
  action: FilterAction;
  /** The sample rate as typed (0–1). */
  sample: string;
  /** Field paths as typed: separated by commas or spaces. */
  fields: string;
}

let lastKey = 0;

export function emptyFilter(): FilterRow {
  return { key: ++lastKey, if: '', action: 'drop', sample: '0.1', fields: '' };
}

export function filterRowsOf(filters: readonly DestinationFilter[] | undefined): FilterRow[] {
  return (filters ?? []).map((f) => {
    const action: FilterAction = f.sample !== undefined ? 'sample' : f.allowFields ? 'allowFields' : f.blockFields ? 'blockFields' : 'drop';
    return { key: ++lastKey, if: f.if, action, sample: f.sample !== undefined ? String(f.sample) : '0.1', fields: (f.allowFields ?? f.blockFields ?? []).join(', ') };
  });
}

/** The rows as the settings' `filters` (what a save or a preview sends); a blank sample is NaN, which the schema refuses. */
export function filtersRequestOf(rows: readonly FilterRow[]): Record<string, unknown>[] {
  return rows.map((row) => {
    const base = { if: row.if.trim() };
    switch (row.action) {
      case 'drop':
        return { ...base, drop: true };
      case 'sample':
        return { ...base, sample: row.sample.trim() === '' ? Number.NaN : Number(row.sample) };
      default:
        return { ...base, [row.action]: row.fields.split(/[\s,]+/).filter(Boolean) };
    }
  });
}

/** Where a problem of `filters` is shown, from its path in the request: `filters.<i>.if`, `.sample`, `.fields`, `filters.<i>`, or `filters`. */
export function filterField(path: readonly PropertyKey[]): string {
  const [, index, part] = path;
  if (typeof index !== 'number') return 'filters';
  if (part === 'if' || part === 'sample') return `filters.${index}.${part}`;
  if (part === 'allowFields' || part === 'blockFields') return `filters.${index}.fields`;
  return `filters.${index}`;
}

/** A problem as a sentence naming what is wrong on the row and the fix. */
export function filterSentence(field: string, message: string): string {
  let text = message;
  if (field.endsWith('.if')) text = `The query: ${message}; the search box's syntax applies (e.g. type:track event:"Order Completed")`;
  else if (field.endsWith('.sample')) text = 'The sample rate must be a number from 0 to 1 (0.1 keeps one message in ten).';
  else if (field.endsWith('.fields')) text = /at least one/.test(message) ? 'Name at least one field path, e.g. properties.price, context.ip.' : `The field paths: ${message}`;
  text = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?)]$/.test(text) ? text : `${text}.`;
}

/** Every problem of the rows, by field (first per field); empty when the core would take them. */
export function filterProblems(rows: readonly FilterRow[]): Record<string, string> {
  const errors: Record<string, string> = {};
  const parsed = destinationFiltersSchema.safeParse(filtersRequestOf(rows));
  if (parsed.success) return errors;
  for (const issue of parsed.error.issues) {
    const field = filterField(['filters', ...issue.path]);
    errors[field] ??= filterSentence(field, issue.message);
  }
  return errors;
}

/** `rows` with the one at `from` moved to `to` (clamped). */
export function moved<T>(rows: readonly T[], from: number, to: number): T[] {
  const next = [...rows];
  const [row] = next.splice(from, 1);
  next.splice(Math.max(0, Math.min(next.length, to)), 0, row!);
  return next;
}
