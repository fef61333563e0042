/**
 * The stream's query language: what the search box (and every `search` of the API) means.
 *
 *   Order Completed                 words anywhere in the message (its JSON as received, escapes read)
 *   "ord_123"                       the same, kept together
 *   event:"Order Completed"         a field equals the value (ASCII case-insensitive)
 *   userId:u_*                      `*` stands for any characters
 *   properties.sku:sku_17           a field of the payload, by its path (items.0.sku for arrays)
 *   properties.price:>=10           a number compared (>, >=, <, <=)
 *   -type:identify                  a leading minus leaves out what the clause matches
 *   status:failed                   the row's outcome (a delivery state, rejected, duplicate, none)
 *   delivery:"myapp:failed"         its automatic delivery to destination myapp is at this step
 *                                   (DELIVERY_STEPS: the delivery overview's funnel); delivery:myapp: any
 *   issue:12                        a delivery of it is failed or retrying in Issues group 12
 *
 * Clauses are separated by spaces and all must hold. Words are those of the message's JSON with its
 * string escapes read (`caf\u00e9` is café, `a\nb` is a and b: wordText). They follow SQLite FTS5's `ascii` tokenizer,
 * which indexes them: letters and digits (and every non-ASCII character) make words, anything else
 * separates them, A–Z match a–z. The words of a clause must appear one after the other, and the last
 * one may be the start of a longer word once it has PREFIX_MIN characters ("ord_12" finds ord_123).
 *
 * Plain TypeScript without dependencies: the inspector parses as the user types (errors, completion)
 * and the core parses what it is sent (store/message-query-sql.ts turns clauses into SQL).
 */

/** The longest query (characters): the search box's limit and the contract's. */
export const MAX_QUERY_LENGTH = 1000;

/** Clauses a search may have (each is a term of the SQL, and of the index's query). */
export const MAX_CLAUSES = 32;

/** The last word of a clause matches longer words from this many characters on. */
export const PREFIX_MIN = 3;

/** The outcomes a row can show (renderer/src/store/outcome.ts), as `status:` takes them. */
export const QUERY_STATUSES = ['accepted', 'rejected', 'duplicate', 'pending', 'retrying', 'delivered', 'failed', 'skipped', 'cancelled', 'none'] as const;

/** Fields stored beside the message: compared as a whole, `*` as a wildcard. */
export const COLUMN_FIELDS = {
  event: 'the track event, or the page or screen name',
  type: 'identify, track, page, screen, group or alias',
  userId: 'the userId',
  anonymousId: 'the anonymousId',
  messageId: 'the messageId',
  source: 'the name of the source that received it',
  status: `the row's outcome: ${QUERY_STATUSES.join(', ')}`,
  origin: 'ingest (a client), client (the composer), audience (a sync) or plan (a Violation Generated event)',
  violations: 'yes: it breaks a tracking plan; no: it does not',
  plan: 'it breaks the tracking plan of this name',
  delivery: 'DESTINATION or DESTINATION:STEP — its automatic delivery to that destination (at that step of the delivery overview)',
  pinned: 'true: you pinned it (kept through retention and clears); false: not pinned',
  issue: 'ID — a delivery of it is failed or retrying in this group of Issues',
} as const;
export type ColumnField = keyof typeof COLUMN_FIELDS;

/**
 * The steps of the delivery overview's funnel, as `delivery:DESTINATION:STEP` takes them: what the
 * automatic delivery (the one ingestion made for the destination its source routes to) of a message is.
 * received: any; skipped (not sent), split by the reason's kind (skipReason's words: a tracking plan
 * blocked it, one of the destination's filters dropped or sampled it out, its transform dropped it, the
 * message's integrations turned webhooks off, other); attempted: delivered, retrying or failed; and each
 * state. The store's SQL (store/message-query-sql.ts) and shared/message-match.ts read them so.
 */
export const DELIVERY_STEPS = [
  'received', 'skipped', 'skipped-plan', 'skipped-filter', 'skipped-transform', 'skipped-integrations', 'skipped-other',
  'attempted', 'pending', 'delivered', 'retrying', 'failed', 'cancelled',
] as const;
export type DeliveryStep = (typeof DELIVERY_STEPS)[number];
export type SkipKind = 'plan' | 'filter' | 'transform' | 'integrations';

/** The start of a skip reason (lowercase; LIKE and skipKindOf compare ASCII case-insensitively), by kind. */
export const SKIP_REASON_STARTS: Readonly<Record<SkipKind, readonly string[]>> = {
  plan: ['blocked by the tracking plan'],
  filter: ['dropped by filter ', 'sampled out by filter '],
  transform: ['dropped by transform'],
  integrations: ['integrations.'],
};

/** The kind of a skipped delivery's reason; 'other' for none of them (or no reason). */
export function skipKindOf(reason: string | null): SkipKind | 'other' {
  const lower = asciiLower(reason ?? '');
  for (const [kind, starts] of Object.entries(SKIP_REASON_STARTS)) if (starts.some((s) => lower.startsWith(s))) return kind as SkipKind;
  return 'other';
}

/** The delivery states a step takes (null: any), and for a skipped-… step the reason's kind. */
export function stepStates(step: DeliveryStep): { states: readonly string[] | null; skip?: SkipKind | 'other' } {
  if (step === 'received') return { states: null };
  if (step === 'attempted') return { states: ['delivered', 'retrying', 'failed'] };
  if (step.startsWith('skipped-')) return { states: ['skipped'], skip: step.slice('skipped-'.length) as SkipKind | 'other' };
  return { states: [step] };
}

/** A delivery: clause's value read: the destination's name (`*` any characters) and the step (after the last colon, when it names one). */
export function deliveryClauseValue(value: string): { destination: string; step: DeliveryStep } {
  const colon = value.lastIndexOf(':');
  const step = colon >= 0 ? asciiLower(value.slice(colon + 1)) : '';
  if ((DELIVERY_STEPS as readonly string[]).includes(step)) return { destination: value.slice(0, colon), step: step as DeliveryStep };
  return { destination: value, step: 'received' };
}

/** The clause that picks the messages of one step of a destination's funnel: `delivery:"myapp:failed"`. */
export function deliveryStepQuery(destination: string, step: DeliveryStep): string {
  return `delivery:${quoteValue(`${destination}:${step}`)}`;
}

/** Top-level fields of a message that a path may start with (any other path is refused, to catch typos). */
export const PATH_ROOTS = ['properties', 'traits', 'context', 'integrations', 'name', 'category', 'groupId', 'previousId', 'timestamp', 'sentAt'] as const;

export type Comparison = '>' | '>=' | '<' | '<=';

export type Clause =
  /** Words anywhere in the message; `words` lowercased, `prefix`: the last may start a longer word. */
  | { kind: 'words'; negated: boolean; text: string; words: string[]; prefix: boolean }
  /** A stored field equals `value` (ASCII case-insensitive), `*` for any characters. */
  | { kind: 'column'; negated: boolean; field: ColumnField; value: string }
  /** A payload field (path segments from the message's root) equals `value` (`*` any characters), or compares to a number. */
  | { kind: 'path'; negated: boolean; path: string[]; value: string; compare?: { op: Comparison; number: number } };

export class QueryError extends Error {
  override readonly name = 'QueryError';
  /** Where in the query the problem starts (a character offset), for the search box to point at. */
  readonly at: number;
  /** The query as it was probably meant (a field's missing colon put back), when there is one. */
  readonly suggestion: string | undefined;

  constructor(message: string, at: number, suggestion?: string) {
    super(message);
    this.at = at;
    this.suggestion = suggestion;
  }
}

const ESCAPED: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: ' ', f: ' ', n: ' ', r: ' ', t: ' ' };

/**
 * The text whose words the index holds for a message: its JSON as received with the string escapes
 * read — as the client meant them, whichever encoder wrote them (Python's json.dumps writes é as
 * \u00e9, Go writes & as \u0026; a newline is \n, which would otherwise glue "n" to the next word).
 * Deterministic: the index is given this text when a message enters it and again when it leaves.
 */
export function wordText(json: string): string {
  if (!json.includes('\\')) return json;
  return json.replace(/\\(?:u([0-9A-Fa-f]{4})|(.))/gs, (_, hex: string | undefined, char: string | undefined) =>
    hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : (ESCAPED[char!] ?? char!),
  );
}

/** A query's words as the `ascii` tokenizer makes them: runs of ASCII letters and digits or non-ASCII characters, A–Z lowered. */
export function wordsOf(text: string): string[] {
  return (text.match(/[A-Za-z0-9\u0080-\uffff]+/g) ?? []).map(asciiLower);
}

export function asciiLower(text: string): string {
  return HAS_UPPER.test(text) ? text.replace(/[A-Z]+/g, (run) => run.toLowerCase()) : text;
}
const HAS_UPPER = /[A-Z]/;

/**
 * Whether `text` holds `words` one after the other (the last as a word's start when `prefix`): the
 * index's phrase match, for the messages it does not hold yet (the core registers it as an SQL
 * function, store/connection.ts).
 */
export function hasWords(text: string, words: readonly string[], prefix: boolean): boolean {
  if (words.length === 0) return true;
  // One pass over the text's UTF-16 units, no token list: this runs on every message a filter with
  // words tests, and for every row of a search the index does not cover yet.
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && !isWordUnit(text.charCodeAt(i))) i++;
    if (i < n && wordsAt(text, i, words, prefix)) return true;
    while (i < n && isWordUnit(text.charCodeAt(i))) i++;
  }
  return false;
}

/** A unit of a word for the `ascii` tokenizer: an ASCII letter or digit, or anything beyond ASCII. */
function isWordUnit(code: number): boolean {
  return code >= 0x80 || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
}

/** Whether the words (lowercase, as wordsOf makes them) are the tokens from `at`, a token's start, on. */
function wordsAt(text: string, at: number, words: readonly string[], prefix: boolean): boolean {
  const n = text.length;
  const last = words.length - 1;
  let i = at;
  for (let j = 0; j <= last; j++) {
    if (j > 0) {
      while (i < n && !isWordUnit(text.charCodeAt(i))) i++;
      if (i >= n) return false;
    }
    const word = words[j]!;
    for (let k = 0; k < word.length; k++, i++) {
      let code = i < n ? text.charCodeAt(i) : -1;
      if (code >= 65 && code <= 90) code += 32;
      if (code !== word.charCodeAt(k)) return false;
    }
    // The token goes on: only the last word, as a prefix, may be its start.
    if (i < n && isWordUnit(text.charCodeAt(i)) && !(j === last && prefix)) return false;
  }
  return true;
}

const FIELD_NAMES = new Map(Object.keys(COLUMN_FIELDS).map((name) => [name.toLowerCase(), name as ColumnField]));
const ROOTS = new Map(PATH_ROOTS.map((name) => [name.toLowerCase(), name]));

/** The query's clauses; a QueryError says what is wrong and where. An empty query has none. */
export function parseQuery(query: string): Clause[] {
  const clauses: Clause[] = [];
  let i = 0;
  while (i < query.length) {
    if (/\s/.test(query[i]!)) {
      i++;
      continue;
    }
    const start = i;
    const negated = query[i] === '-' && i + 1 < query.length && !/\s/.test(query[i + 1]!);
    if (negated) i++;
    // A field name: letters, digits, dots and underscores before a colon.
    const field = /^([A-Za-z_$][\w$]*(?:\.[\w$-]+)*):/.exec(query.slice(i));
    if (field) {
      i += field[0].length;
      const value = readValue(query, i);
      i = value.end;
      if (clauses.length >= MAX_CLAUSES) throw new QueryError(`a search takes at most ${MAX_CLAUSES} clauses`, start);
      clauses.push(fieldClause(field[1]!, value.text, negated, start, value.quoted));
      continue;
    }
    const slip = operatorSlip(query, i, negated);
    if (slip) throw new QueryError(slip.message, start, `${query.slice(0, start)}${slip.meant}${query.slice(slip.end)}`);
    const value = readValue(query, i);
    i = value.end;
    const words = wordsOf(value.text);
    if (words.length === 0) {
      throw new QueryError(`"${value.text}" has no letters or digits to look for; search for words, or use a field, e.g. properties.coupon:"${value.text}"`, start);
    }
    if (clauses.length >= MAX_CLAUSES) throw new QueryError(`a search takes at most ${MAX_CLAUSES} clauses`, start);
    // Quoted: these words exactly. Bare: the last may still be being typed.
    const prefix = !value.quoted && endsInWord(value.text) && words.at(-1)!.length >= PREFIX_MIN;
    clauses.push({ kind: 'words', negated, text: value.text, words, prefix });
  }
  return clauses;
}

/**
 * A field written with an operator but no colon (`properties.revenue>=10`, `event=Signup`,
 * `type!=identify`) would search for its words and match nothing: what was meant, as a sentence. Only
 * for the names of fields (a column, or a path from a root), so words such as `a=b` stay words.
 */
function operatorSlip(query: string, at: number, negated: boolean): { message: string; meant: string; end: number } | null {
  const match = /^([A-Za-z_$][\w$]*(?:\.[\w$-]+)*)(>=|<=|==|!=|=|>|<)/.exec(query.slice(at));
  if (!match) return null;
  const [written, name, op] = match as unknown as [string, string, string];
  const column = !name.includes('.') ? FIELD_NAMES.get(name.toLowerCase()) : undefined;
  if (!column && !ROOTS.has(name.split('.')[0]!.toLowerCase())) return null;
  const valueAt = at + written.length;
  let end: number;
  try {
    end = readValue(query, valueAt).end;
  } catch {
    end = query.length; // an unclosed quote: the rest
  }
  const value = query.slice(valueAt, end);
  const compares = op === '>=' || op === '<=' || op === '>' || op === '<';
  const field = column ?? name;
  // A column compares as text: its value without the operator. A path compares numbers after the colon.
  const meant =
    op === '!='
      ? `${negated ? '' : '-'}${field}:${value || 'something'}`
      : `${negated ? '-' : ''}${field}:${compares && !column ? op : ''}${value || (compares ? '10' : 'something')}`;
  const asText = compares && column ? ` (${column} compares as text; numbers compare in a payload path, e.g. properties.total:${op}10)` : '';
  return {
    message: `${negated ? '-' : ''}${written}${value} has no colon after the field, so it would only look for words: did you mean ${meant}?${asText} To look for the words, put them in quotes`,
    meant,
    end,
  };
}

/** A value: "quoted" (with "" or \" for a quote inside) or up to the next space. */
function readValue(query: string, at: number): { text: string; end: number; quoted: boolean } {
  if (query[at] !== '"') {
    let end = at;
    while (end < query.length && !/\s/.test(query[end]!)) end++;
    return { text: query.slice(at, end), end, quoted: false };
  }
  let text = '';
  for (let i = at + 1; i < query.length; i++) {
    const c = query[i]!;
    if (c === '\\' && query[i + 1] === '"') (text += '"'), i++;
    else if (c === '"' && query[i + 1] === '"') (text += '"'), i++;
    else if (c === '"') return { text, end: i + 1, quoted: true };
    else text += c;
  }
  throw new QueryError('a quote is not closed: end the value with "', at);
}

function endsInWord(text: string): boolean {
  return /[A-Za-z0-9\u0080-\uffff]$/.test(text);
}

function fieldClause(name: string, value: string, negated: boolean, at: number, quoted: boolean): Clause {
  if (value === '' && !quoted) throw new QueryError(`${name}: needs a value, e.g. ${name}:something (or ${name}:* for any)`, at);
  const segments = name.split('.');
  const column = segments.length === 1 ? FIELD_NAMES.get(name.toLowerCase()) : undefined;
  if (column) {
    checkColumnValue(column, value, at);
    return { kind: 'column', negated, field: column, value };
  }
  const root = ROOTS.get(segments[0]!.toLowerCase());
  if (!root) {
    throw new QueryError(
      `unknown field "${name}": fields are ${Object.keys(COLUMN_FIELDS).join(', ')}, or a path into ${PATH_ROOTS.slice(0, 4).join(', ')} (e.g. properties.${name}); to search for the text, put it in quotes`,
      at,
    );
  }
  const path = [root, ...segments.slice(1)];
  const compare = /^(>=|<=|>|<)(.*)$/.exec(quoted ? '' : value);
  if (compare) {
    const number = Number(compare[2]);
    if (compare[2]!.trim() === '' || !Number.isFinite(number)) throw new QueryError(`${name}:${value}: ${compare[1]} compares with a number, e.g. ${name}:${compare[1]}10`, at);
    return { kind: 'path', negated, path, value, compare: { op: compare[1] as Comparison, number } };
  }
  return { kind: 'path', negated, path, value };
}

function checkColumnValue(field: ColumnField, value: string, at: number): void {
  if (field === 'delivery') {
    if (deliveryClauseValue(value).destination === '') throw new QueryError(`delivery:${value}: name the destination first, e.g. delivery:"myapp:${value.replace(/^:/, '')}"`, at);
    return;
  }
  if (field === 'issue') {
    if (!/^[1-9]\d{0,15}$/.test(value)) throw new QueryError(`issue:${value}: issue takes a group's id, a whole number as Issues lists it, e.g. issue:12`, at);
    return;
  }
  if (value.includes('*') && field !== 'violations' && field !== 'pinned') return;
  const allowed =
    field === 'status'
      ? QUERY_STATUSES
      : field === 'violations'
        ? ['yes', 'no']
        : field === 'pinned'
          ? ['true', 'false']
          : field === 'type'
            ? ['identify', 'track', 'page', 'screen', 'group', 'alias']
            : null;
  if (allowed && !(allowed as readonly string[]).includes(asciiLower(value))) {
    throw new QueryError(`${field}:${value}: ${field} is one of ${allowed.join(', ')}`, at);
  }
}

/** A field value as SQL's LIKE takes it: `*` any characters, `%`, `_` and `\` escaped (ESCAPE '\'). */
export function likePattern(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll('*', '%');
}

/** Whether `text` equals `pattern` as LIKE compares (ASCII case-insensitive, `*` any characters): the inspector's live rows. */
export function matchesPattern(text: string, pattern: string): boolean {
  return partsMatch(asciiLower(text), asciiLower(pattern).split('*'));
}

/** matchesPattern with the pattern read once: a test for many texts (a filter runs on every message). */
export function patternTest(pattern: string): (text: string) => boolean {
  const parts = asciiLower(pattern).split('*');
  if (parts.length === 1) {
    const exact = parts[0]!;
    return (text) => text.length === exact.length && asciiLower(text) === exact;
  }
  return (text) => partsMatch(asciiLower(text), parts);
}

function partsMatch(lowered: string, parts: readonly string[]): boolean {
  if (parts.length === 1) return lowered === parts[0];
  if (!lowered.startsWith(parts[0]!) || !lowered.endsWith(parts.at(-1)!)) return false;
  let at = parts[0]!.length;
  const end = lowered.length - parts.at(-1)!.length;
  for (let i = 1; i < parts.length - 1; i++) {
    const part = parts[i]!;
    const found = lowered.indexOf(part, at);
    if (found < 0 || found + part.length > end) return false;
    at = found + part.length;
  }
  return at <= end;
}

/** The query written back from its clauses (e.g. after completion inserted one). */
export function quoteValue(value: string): string {
  return /[\s"]/.test(value) || value === '' ? `"${value.replaceAll('"', '""')}"` : value;
}
