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
