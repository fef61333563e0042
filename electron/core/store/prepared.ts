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
 * LIMIT and a value compared with a column a partial index's WHERE names written in
 * (message-search.ts partQuery, partialIndexTerm): bound there, SQLite prepares the statement again
 * at every run, and a kept statement saves nothing.
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
