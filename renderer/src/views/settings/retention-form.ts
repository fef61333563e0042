/**
 * Settings' retention form: three limits, each a number or "no limit", checked as you type with the
 * core's own schema (shared/retention.ts) and its bounds said in the field's unit (the size is typed
 * in MB, the schema counts bytes); the core's issues placed beside their fields. Pure, tested in Node.
 */
import type { ContractIssue } from '../../../../shared/contract.ts';
import { DEFAULT_RETENTION, retentionSchema, type Retention } from '../../../../shared/retention.ts';
import { formatCount } from '../../lib/format.ts';
import { formatBytes } from '../storage/storage-words.ts';

export const LIMIT_KEYS = ['maxAgeDays', 'maxMessages', 'maxBytes'] as const;
export type LimitKey = (typeof LIMIT_KEYS)[number];

/** One limit as typed: the number in the field's unit (days, messages, MB), or no limit. */
export interface LimitInput {
  none: boolean;
  value: string;
}
export type RetentionForm = Record<LimitKey, LimitInput>;
export type RetentionErrors = Partial<Record<LimitKey | 'form', string>>;

const MB = 1024 ** 2;
/** Bytes per unit of each field. */
const UNIT: Record<LimitKey, number> = { maxAgeDays: 1, maxMessages: 1, maxBytes: MB };

/** A limit's bounds in bytes, days or messages, read from the schema (so they never drift from the core's). */
export function schemaBounds(key: LimitKey): { min: number; max: number } {
  const field = retentionSchema.shape[key] as unknown as { unwrap?: () => unknown };
  let inner: unknown = field;
  // default → nullable → number
  for (let i = 0; i < 3 && inner && typeof (inner as { unwrap?: unknown }).unwrap === 'function' && !('minValue' in (inner as object)); i++) {
    inner = (inner as { unwrap: () => unknown }).unwrap();
  }
  const number = inner as { minValue?: number | null; maxValue?: number | null };
  return { min: number.minValue ?? 1, max: number.maxValue ?? Number.MAX_SAFE_INTEGER };
}

/** What a limit may be, in words: "between 1 and 3,650 days". */
export function boundsWords(key: LimitKey): string {
  const { min, max } = schemaBounds(key);
  if (key === 'maxBytes') return `between ${formatBytes(min)} and ${formatBytes(max)}`;
  return `between ${formatCount(min)} and ${formatCount(max)} ${key === 'maxAgeDays' ? 'days' : 'messages'}`;
}

function show(key: LimitKey, value: number): string {
  if (key !== 'maxBytes') return String(value);
  const mb = value / MB;
  return String(Number.isInteger(mb) ? mb : Number(mb.toFixed(2)));
}

/** The form for a retention: a limit set to none keeps the default's number, ready if the user sets one again. */
export function formOf(retention: Retention): RetentionForm {
  const input = (key: LimitKey): LimitInput => {
    const value = retention[key];
    return value === null ? { none: true, value: show(key, DEFAULT_RETENTION[key] ?? schemaBounds(key).min) } : { none: false, value: show(key, value) };
  };
  return { maxAgeDays: input('maxAgeDays'), maxMessages: input('maxMessages'), maxBytes: input('maxBytes') };
}

/** A typed number: digits with optional separators (1,000,000 · 1 000 000 · 1_000_000) and, for MB, decimals. */
export function parseNumber(text: string): number | null {
  const cleaned = text.trim().replace(/[\s,_]/g, '');
  if (!/^\d+(\.\d+)?$/.test(cleaned)) return null;
  const n = Number(cleaned);
  return Number.isFinite(n) ? n : null;
}

function problem(key: LimitKey): string {
  const whole = key === 'maxBytes' ? '' : ', a whole number';
  const words = boundsWords(key);
  return `${words[0]!.toUpperCase()}${words.slice(1)}${whole} — or choose No limit.`;
}

/** The retention the form says, checked with the core's schema; or each field's problem. */
export function checkForm(form: RetentionForm): { ok: true; retention: Retention } | { ok: false; errors: RetentionErrors } {
  const errors: RetentionErrors = {};
  const candidate: Record<LimitKey, number | null> = { maxAgeDays: null, maxMessages: null, maxBytes: null };
  for (const key of LIMIT_KEYS) {
    const input = form[key];
    if (input.none) continue;
    const n = parseNumber(input.value);
    if (n === null) {
      errors[key] = problem(key);
      continue;
    }
    // Days and messages go as typed (the schema refuses a fraction); MB become whole bytes.
    candidate[key] = key === 'maxBytes' ? Math.round(n * UNIT[key]) : n;
  }
  const parsed = retentionSchema.safeParse(candidate);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = issue.path[0];
      if (typeof key === 'string' && (LIMIT_KEYS as readonly string[]).includes(key)) errors[key as LimitKey] ??= problem(key as LimitKey);
      else errors.form ??= issue.message;
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, retention: parsed.data! };
}

/** The core's issues (path `['retention', key]`) beside their fields; the rest in the form's own line. */
export function issuesToErrors(issues: readonly ContractIssue[] | undefined, message: string): RetentionErrors {
  const errors: RetentionErrors = {};
  for (const issue of issues ?? []) {
    const key = issue.path[0] === 'retention' ? issue.path[1] : issue.path[0];
    if (typeof key === 'string' && (LIMIT_KEYS as readonly string[]).includes(key)) errors[key as LimitKey] ??= issue.message;
    else errors.form = errors.form ? `${errors.form} ${issue.message}` : issue.message;
  }
  if (Object.keys(errors).length === 0) errors.form = message;
  return errors;
}

export function sameRetention(a: Retention, b: Retention): boolean {
  return LIMIT_KEYS.every((key) => a[key] === b[key]);
}
