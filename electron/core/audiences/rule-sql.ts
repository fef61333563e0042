// Compiles an audience rule or a computed trait into one SQL query over the profile tables (see
// profile-fold.ts) that yields the current (user_id, value) pairs, value as JSON text. Membership is
// thus a query, run per sync or preview, over compact per-user tables — never a scan of the messages.
import { windowMs, type AudienceKind, type AudienceRule, type Computation, type Condition, type TraitCondition } from '../../../shared/audiences.ts';

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

/** Members of an audience: every user of the source for whom the rule holds, with the value `true`. */
export function compileRule(rule: AudienceRule, sourceId: number, now: number): CompiledQuery {
  const params: (string | number)[] = [sourceId];
  const parts = rule.conditions.map((condition) => `(${conditionSql(condition, now, params)})`);
  return {
    sql: `SELECT u.user_id, 'true' AS value FROM profile_users u WHERE u.source_id = ? AND (${parts.join(rule.match === 'all' ? ' AND ' : ' OR ')})`,
    params,
  };
}

function conditionSql(condition: Condition, now: number, params: (string | number)[]): string {
  if (condition.kind === 'event') {
    params.push(condition.event);
    let window = '';
    if (condition.within) {
      window = ' AND e.at >= ?';
      params.push(now - windowMs(condition.within));
    }
    params.push(condition.count);
    return `(SELECT count(*) FROM profile_events e WHERE e.source_id = u.source_id AND e.event = ? AND e.user_id = u.user_id${window}) ${condition.operator === 'at_least' ? '>=' : '<='} ?`;
  }
  const has = (test: string, ...values: (string | number)[]) => {
    params.push(condition.trait, ...values);
    return `EXISTS (SELECT 1 FROM profile_traits t WHERE t.source_id = u.source_id AND t.key = ? AND t.user_id = u.user_id AND ${test})`;
  };
  switch (condition.operator) {
    case 'exists':
      return has(`t.type != 'null'`);
    case 'not_exists':
      return `NOT ${has(`t.type != 'null'`)}`;
    case 'equals':
      return has(...equalsTest(condition));
    case 'not_equals':
      // Users without the trait are "not equal" too: "plan is not free" includes users with no plan.
      return `NOT ${has(...equalsTest(condition))}`;
    case 'contains':
      // A string containing the text (case-sensitive), or an array with an element equal to it.
      return has(
        `((t.type = 'text' AND instr(t.value, ?) > 0) OR (t.type = 'array' AND EXISTS (SELECT 1 FROM json_each(t.value) a WHERE a.type = 'text' AND a.value = ?)))`,
        condition.value as string,
        condition.value as string,
      );
    case 'greater_than':
      return has(`t.type IN ('integer', 'real') AND t.value > ?`, condition.value as number);
    case 'less_than':
      return has(`t.type IN ('integer', 'real') AND t.value < ?`, condition.value as number);
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
  // The latest of the user's events that carried the property (max over "message id ‖ value").
  return {
    sql: `SELECT user_id, substr(latest, 17) AS value FROM (
            SELECT e.user_id, max(format('%016d', e.message_id) || (
              SELECT ${JSON_OF('p.type', 'p.value')} FROM json_each(m.raw, '$.properties') p WHERE p.key = ?)) AS latest
            FROM profile_events e JOIN messages m ON m.id = e.message_id
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
