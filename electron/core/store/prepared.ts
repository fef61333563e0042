import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * A repo's statements, each prepared on its first use (then kept): a repo built at every start of a
 * relay — a test's, one per test — prepared a dozen statements it may never run (1–3 ms of the start
 * on this machine). `arrays`: the statements that return rows as arrays (StatementSync.setReturnArrays).
 */
export function preparedOnUse<K extends string>(db: DatabaseSync, sql: Record<K, string>, arrays: readonly NoInfer<K>[] = []): Readonly<Record<K, StatementSync>> {
  const made = new Map<K, StatementSync>();
  const statements = {} as Record<K, StatementSync>;
  for (const key of Object.keys(sql) as K[]) {
    Object.defineProperty(statements, key, {
      enumerable: true,
      get() {
        let statement = made.get(key);
        if (!statement) {
          statement = db.prepare(sql[key]);
          if (arrays.includes(key)) statement.setReturnArrays(true);
          made.set(key, statement);
        }
        return statement;
      },
    });
  }
  return statements;
}

/**
 * Statements for reads composed at run time (a filter's, a search's, a wait's), prepared once per SQL
 * text and kept: a wait or a list with the same filter shape runs the same text again. At most `max`
 * texts are kept; past that the cache starts again. Compose them with their values bound, but with a
 * LIMIT (writtenLimit) and a value compared with a column a partial index's WHERE names (partialIndexTerm)
 * written in: bound there, SQLite prepares the statement again at every run (SQLite 3.50 and 3.53; `npm
 * run bench -- statements`: a test's wait's read of one messageId 79 µs bound, 11 µs written in), and a
 * kept statement saves nothing.
 */
export function composedStatements(db: DatabaseSync, max = 200): (sql: string) => StatementSync {
  let kept = new Map<string, StatementSync>();
  return (sql) => {
    let statement = kept.get(sql);
    if (!statement) {
      if (kept.size >= max) kept = new Map();
      statement = db.prepare(sql);
      kept.set(sql, statement);
    }
    return statement;
  };
}

/** `LIMIT n`, written in (composedStatements); a RangeError for anything but a whole number. */
export function writtenLimit(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`a read's limit is a whole number, not ${limit}`);
  return `LIMIT ${limit}`;
}

/**
 * `column = value` for a column that a partial index's WHERE names (messages' status and origin,
 * deliveries' status), the value written in when it is a plain lowercase word (the values these columns
 * hold), bound otherwise (composedStatements).
 */
export function partialIndexTerm(column: string, value: string): { sql: string; params: string[] } {
  return /^[a-z_]{1,32}$/.test(value) ? { sql: `${column} = '${value}'`, params: [] } : { sql: `${column} = ?`, params: [value] };
}
