/**
 * Whether a request the built-in receiver kept carries a user's data: its body holds a `userId` field
 * with that value (a number too, as clients may send one), at any depth — a webhook body of any shape,
 * or a forwarded batch (`{"batch": [{"userId": …}, …]}`: the whole request holds that user's message).
 * A delete notification (`{"type": "delete", "userId": …}`) is the record of a deletion, not the
 * user's data: it does not count. A body that is not JSON, or of which only the first 64 KB was kept,
 * is searched as text for `"userId": "<id>"` (written as JSON writes it).
 */
export function bodyCarriesUser(body: string, userId: string, asText = textMatcher(userId)): boolean {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return asText.test(body);
  }
  // A stack, not recursion: a body may nest deeper than the stack allows.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    const record = node as Record<string, unknown>;
    const own = Object.hasOwn(record, 'userId') ? record.userId : undefined;
    if ((own === userId || (typeof own === 'number' && String(own) === userId)) && record.type !== 'delete') return true;
    for (const item of Object.values(record)) stack.push(item);
  }
  return false;
}

/** `"userId": "<id>"` as JSON writes it, for text that does not parse: made once per user, tested on each kept request. */
export function textMatcher(userId: string): RegExp {
  const id = JSON.stringify(userId).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`"userId"\\s*:\\s*${id}`);
}
