/**
 * Runtime logging, on when the `DEBUG` environment variable names `analytics` (seed §4.3): `DEBUG=analytics`,
 * or a list such as `DEBUG=express,analytics`; `*` and `analytics*` work too, as with the `debug` package.
 * Lines go to stderr, one per event: `analytics <time> <what> key=value ...`.
 */
export type DebugLog = ((what: string, fields?: Record<string, unknown>) => void) | null;

/** True when `debug` (the value of DEBUG) turns the client's logging on. */
export function debugEnabled(debug: string | undefined): boolean {
  if (!debug) return false;
  return debug
    .split(/[\s,]+/)
    .some((name) => name === 'analytics' || name === '*' || name === 'analytics*' || name === 'analytics:*');
}

/** A logger writing to `write` (stderr by default), or null when DEBUG does not ask for one. */
export function createDebugLog(
  debug: string | undefined = process.env.DEBUG,
  write: (line: string) => void = (line) => process.stderr.write(line),
  now: () => number = Date.now,
): DebugLog {
  if (!debugEnabled(debug)) return null;
  return (what, fields) => {
    let line = `analytics ${new Date(now()).toISOString()} ${what}`;
    if (fields) {
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        line += ` ${key}=${typeof value === 'string' && !/[\s"]/.test(value) ? value : JSON.stringify(value)}`;
      }
    }
    write(`${line}\n`);
  };
}
