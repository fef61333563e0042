/**
 * The times an export is bounded by, as a person types them (`--since 2h`, `--until 2025-03-01`) and as
 * the inspector sends them (ms since the epoch): one reading for the CLI and the HTTP API.
 */
import { isTime, parseTime } from '../../../shared/message-rules.ts';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** What `parseWhen` takes, for the sentence that refuses anything else. */
export const WHEN_FORMS = 'an ISO 8601 date or time (2025-03-01, 2025-03-01T12:00:00Z), a time ago (30m, 2h, 7d, 2w) or ms since 1970';

/**
 * A time in ms: an ISO 8601 date or time (no zone is UTC, as ingestion reads timestamps), a time ago
 * (`30s`, `15m`, `2h`, `7d`, `2w` before `now`), or ms since the epoch (13 digits or so: what the
 * inspector's filter holds). Undefined for anything else.
 */
export function parseWhen(text: string, now: number): number | undefined {
  const value = text.trim();
  const ago = /^(\d{1,9})([smhdw])$/.exec(value);
  if (ago) return now - Number(ago[1]) * UNITS[ago[2]!]!;
  // Ten or more digits: no ISO date is all digits, and no one means "9 seconds after 1970".
  if (/^\d{10,15}$/.test(value)) return Number(value);
  const ms = parseTime(value);
  return isTime(ms) ? ms : undefined;
}
