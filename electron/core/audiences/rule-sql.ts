// Compiles an audience rule or a computed trait into one SQL query over the profile tables (see
// profile-fold.ts) that yields the current (user_id, value) pairs, value as JSON text. Membership is
// thus a query, run per sync or preview, over compact per-user tables — never a scan of the messages.
import { windowMs, type AudienceKind, type AudienceRule, type Computation, type Condition, type TraitCondition } from '../../../shared/audiences.ts';
import { MIN_TIME } from '../../../shared/limits.ts';

export interface CompiledQuery {
  sql: string;
  params: (string | number)[];
}

/** A trait's stored (type, value) as JSON text; NULL for a JSON null. */
export const JSON_OF = (type: string, value: string) =>
  `CASE ${type} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN NULL
     WHEN 'object' THEN ${value} WHEN 'array' THEN ${value} ELSE json_quote(${value}) END`;

export function compile(kind: AudienceKind, definition: AudienceRule | Computation, sourceId: number, now: number): CompiledQuery {
  return kind === 'audience' ? compileRule(definition as AudienceRule, sourceId, now) : compileComputation(definition as Computation, sourceId, now);
}

/**
 * Members of an audience: every user of the source for whom the rule holds, with the value `true`.
 * Each condition is a set of users computed once — "plan equals pro" is one range of profile_traits,
 * "Order Completed at least 3 times in 7 days" one range of profile_events grouped by user — and
 * the users are tested against the sets (SQLite builds each IN set once, as a temporary index).
 * A negative condition (not equals, does not exist, at most N times) is "not in" the positive set,
 * so users without the trait or without the event count too.
 */
export function compileRule(rule: AudienceRule, sourceId: number, now: number): CompiledQuery {
  const params: (string | number)[] = [sourceId];
  const parts = rule.conditions.map((condition) => {
    const { sql, negated } = conditionSet(condition, sourceId, now, params);
    return `u.user_id ${negated ? 'NOT IN' : 'IN'} (${sql})`;
  });
  return {
    sql: `SELECT u.user_id, 'true' AS value FROM profile_users u WHERE u.source_id = ? AND (${parts.join(rule.match === 'all' ? ' AND ' : ' OR ')})`,
    params,
  };
}

/** The users for whom a condition's positive form holds, and whether the condition is its negation. */
function conditionSet(condition: Condition, sourceId: number, now: number, params: (string | number)[]): { sql: string; negated: boolean } {
  if (condition.kind === 'event') {
    params.push(sourceId, condition.event);
    let window = '';
    if (condition.within) {
      window = ' AND at >= ?';
      params.push(now - windowMs(condition.within));
    }
    // at least N: count >= N; at most N: not (count > N), which includes users who never did it.
    params.push(condition.operator === 'at_least' ? condition.count : condition.count + 1);
    return {
      sql: `SELECT user_id FROM profile_events WHERE source_id = ? AND event = ?${window} GROUP BY user_id HAVING count(*) >= ?`,
      negated: condition.operator === 'at_most',
    };
  }
  const users = (test: string, ...values: (string | number)[]) => {
    params.push(sourceId, condition.trait, ...values);
    return `SELECT user_id FROM profile_traits t WHERE source_id = ? AND key = ? AND ${test}`;
  };
  switch (condition.operator) {
    case 'exists':
      return { sql: users(`t.type != 'null'`), negated: false };
    case 'not_exists':
      return { sql: users(`t.type != 'null'`), negated: true };
    case 'equals':
      return { sql: users(...equalsTest(condition)), negated: false };
    case 'not_equals':
      // Users without the trait are "not equal" too: "plan is not free" includes users with no plan.
      return { sql: users(...equalsTest(condition)), negated: true };
    case 'contains':
      // A string containing the text (case-sensitive), or an array with an element equal to it.
      return {
        sql: users(
          `((t.type = 'text' AND instr(t.value, ?) > 0) OR (t.type = 'array' AND EXISTS (SELECT 1 FROM json_each(t.value) a WHERE a.type = 'text' AND a.value = ?)))`,
          condition.value as string,
          condition.value as string,
        ),
        negated: false,
      };
    case 'greater_than':
      return { sql: users(`t.type IN ('integer', 'real') AND t.value > ?`, condition.value as number), negated: false };
    case 'less_than':
      return { sql: users(`t.type IN ('integer', 'real') AND t.value < ?`, condition.value as number), negated: false };
  }
}

/** A string equals only a string, a number only a number, true only true. */
function equalsTest(condition: TraitCondition): [string, ...(string | number)[]] {
  const value = condition.value;
  if (typeof value === 'boolean') return [`t.type = '${value ? 'true' : 'false'}'`];
  if (typeof value === 'number') return [`t.type IN ('integer', 'real') AND t.value = ?`, value];
  return [`t.type = 'text' AND t.value = ?`, value ?? ''];
}

/** A computed trait's value for every user who has one. */
export function compileComputation(computation: Computation, sourceId: number, now: number): CompiledQuery {
  if (computation.kind === 'event_count') {
    const params: (string | number)[] = [sourceId, computation.event];
    let window = '';
    if (computation.within) {
      window = ' AND e.at >= ?';
      params.push(now - windowMs(computation.within));
    }
    return {
      sql: `SELECT e.user_id, CAST(count(*) AS TEXT) AS value FROM profile_events e
            WHERE e.source_id = ? AND e.event = ?${window} GROUP BY e.user_id`,
      params,
    };
  }
  // The latest of the user's events that carried the property: by the event's time, then message id
  // (max over "time ‖ message id ‖ value"; the time is shifted past year 1's negative ms so that it
  // sorts as text).
  return {
    sql: `SELECT user_id, substr(latest, 33) AS value FROM (
            SELECT e.user_id, max(format('%016d', e.at + ${-MIN_TIME}) || format('%016d', e.message_id) || (
              SELECT ${JSON_OF('p.type', 'p.value')} FROM json_each(m.raw, '$.properties') p WHERE p.key = ?)) AS latest
            FROM profile_events e JOIN messages m ON m.id = e.message_id
              -- The event's own message: a pruned or cleared one's id may be another's now (ids are given again).
              AND m.source_id = e.source_id AND m.user_id = e.user_id AND m.type = 'track' AND m.event = e.event
            WHERE e.source_id = ? AND e.event = ? AND json_type(m.raw, '$.properties') = 'object'
            GROUP BY e.user_id)
          WHERE latest IS NOT NULL`,
    params: [computation.property, sourceId, computation.event],
  };
}

/** The value a user is sent when they leave: false for an audience, 0 for a count, null for a last value. */
export function leavingValue(kind: AudienceKind, definition: AudienceRule | Computation): string {
  if (kind === 'audience') return 'false';
  return (definition as Computation).kind === 'event_count' ? '0' : 'null';
}
