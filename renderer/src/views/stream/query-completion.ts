/**
 * The search box's completion: what fits the clause at the caret — a field name while one is being
 * typed, a value after `field:` (types, outcomes, sources, events seen) — and the query with one
 * taken. Plain TypeScript, no React.
 */
import { COLUMN_FIELDS, PATH_ROOTS, QUERY_STATUSES, asciiLower, quoteValue, type ColumnField } from '../../../../shared/message-query.ts';
import { MESSAGE_TYPES } from '../../store/filters.ts';

export interface Suggestion {
  /** What replaces the clause's part being typed. */
  insert: string;
  /** What the list shows, and what it says about it. */
  label: string;
  detail: string;
}

export interface CompletionContext {
  sources: readonly string[];
  events: readonly string[];
}

export interface Completion {
  /** The span of the query the suggestion replaces. */
  from: number;
  to: number;
  suggestions: Suggestion[];
}

const MAX = 12;
const ORIGINS = ['ingest', 'client', 'audience', 'plan'];
const PATH_HINTS: Record<string, string> = {
  properties: 'a track, page or screen property, e.g. properties.sku',
  traits: 'an identify or group trait, e.g. traits.email',
  context: 'the context, e.g. context.page.path',
  integrations: 'an integrations entry',
};

/**
 * Suggestions for the clause around `caret` (null: nothing to suggest). `all`: the list was asked for
 * (↓ in an empty clause), so every field is offered.
 */
export function complete(query: string, caret: number, context: CompletionContext, all = false): Completion | null {
  let from = caret;
  while (from > 0 && !/\s/.test(query[from - 1]!)) from--;
  let to = caret;
  while (to < query.length && !/\s/.test(query[to]!)) to++;
  let clause = query.slice(from, caret);
  if (clause.startsWith('-')) (from++, (clause = clause.slice(1)));
  if (clause.includes('"')) return null; // inside a quoted value: nothing to add
  const colon = clause.indexOf(':');
  if (colon < 0) {
    if (clause === '' && !all) return null;
    const typed = asciiLower(clause);
    const fields: Suggestion[] = [
      ...Object.entries(COLUMN_FIELDS).map(([name, detail]) => ({ insert: `${name}:`, label: `${name}:`, detail })),
      ...Object.entries(PATH_HINTS).map(([name, detail]) => ({ insert: `${name}.`, label: `${name}.…`, detail })),
    ].filter((s) => asciiLower(s.insert).startsWith(typed) && s.insert !== clause);
    return fields.length ? { from, to, suggestions: fields.slice(0, MAX) } : null;
  }
  const field = clause.slice(0, colon);
  const typed = asciiLower(clause.slice(colon + 1));
  const values = valuesOf(field, context);
  if (!values) return null;
  const suggestions = values
    .filter((v) => asciiLower(v.value).startsWith(typed) && asciiLower(v.value) !== typed)
    .slice(0, MAX)
    .map((v) => ({ insert: `${field}:${quoteValue(v.value)} `, label: v.value, detail: v.detail }));
  return suggestions.length ? { from, to, suggestions } : null;
}

function valuesOf(field: string, context: CompletionContext): { value: string; detail: string }[] | null {
  const name = (Object.keys(COLUMN_FIELDS) as ColumnField[]).find((f) => asciiLower(f) === asciiLower(field));
  const list = (values: readonly string[], detail: string) => values.map((value) => ({ value, detail }));
  switch (name) {
    case 'type':
      return list(MESSAGE_TYPES, 'message type');
    case 'status':
      return list(QUERY_STATUSES, 'outcome');
    case 'violations':
      return [
        { value: 'yes', detail: 'breaks a tracking plan' },
        { value: 'no', detail: 'breaks none' },
      ];
    case 'pinned':
      return [
        { value: 'true', detail: 'pinned: kept through retention and clears' },
        { value: 'false', detail: 'not pinned' },
      ];
    case 'origin':
      return list(ORIGINS, 'where it came from');
    case 'source':
      return list(context.sources, 'source');
    case 'event':
      return list(context.events, 'seen in the list');
    default:
      return null;
  }
}

/** The query with `suggestion` in place of [from, to), and where the caret goes. */
export function applySuggestion(query: string, completion: Completion, suggestion: Suggestion): { query: string; caret: number } {
  const before = query.slice(0, completion.from);
  const after = query.slice(completion.to);
  const glue = suggestion.insert.endsWith(' ') && after.startsWith(' ') ? suggestion.insert.slice(0, -1) : suggestion.insert;
  return { query: before + glue + after, caret: before.length + glue.length };
}

/** The syntax help's examples: each one a query, and what it finds. */
export const QUERY_EXAMPLES: readonly { query: string; finds: string }[] = [
  { query: 'ord_123', finds: 'messages holding these words anywhere (a payload value, a trait, the context)' },
  { query: '"Order Completed"', finds: 'the words together, exactly (no quote: the last word may continue)' },
  { query: 'event:"Order Completed"', finds: 'a field that equals the value (A–Z in any case)' },
  { query: 'userId:u_*', finds: '* stands for any characters' },
  { query: 'properties.sku:sku_17', finds: "a payload field by its path (items.0.sku: an array's first item)" },
  { query: 'properties.price:>=10', finds: 'a number compared: >, >=, <, <=' },
  { query: 'traits.email:*', finds: 'the field is there, whatever its value' },
  { query: '-type:identify', finds: 'a leading minus leaves these out' },
  { query: 'status:failed', finds: `the row's outcome: ${QUERY_STATUSES.join(', ')}` },
  { query: 'source:web violations:yes', finds: 'clauses separated by spaces must all hold' },
];

/** For the help: the fields by name. */
export const QUERY_FIELDS = { ...COLUMN_FIELDS, [`${PATH_ROOTS.slice(0, 4).join('. / ')}.`]: 'a path into the message, e.g. properties.sku, context.page.path' };
