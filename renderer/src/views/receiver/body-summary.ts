/** One line saying what a webhook body carries: "track “Order Completed” · u_ada", "delete · u_1". */
export function bodySummary(body: string): string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return body.trim() === '' ? '(empty body)' : 'not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'JSON, not an object';
  const m = value as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : null);
  const type = text(m.type) ?? 'object';
  const what = text(m.event) ?? text(m.name) ?? text(m.groupId) ?? null;
  const who = text(m.userId) ?? text(m.anonymousId) ?? text(m['User ID']);
  return [what ? `${type} “${what}”` : type, who].filter(Boolean).join(' · ');
}
