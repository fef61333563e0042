/**
 * Event names as TypeScript names: "Order Completed" → trackOrderCompleted and OrderCompletedProperties.
 * Words are runs of what an identifier may continue with (Unicode's ID_Continue: letters, digits and
 * marks of any script; not `_`, which separates words, nor ², ½ or ①, which no name may hold); each
 * starts with a capital; a type name whose first character cannot start a name (a digit, a mark) is
 * prefixed with Event. Two events whose names give the same words ("Order Completed", "order_completed") get a
 * suffix in the order of their names (the second trackOrderCompleted2), and a note says so; an event
 * whose name has no letter or digit is called trackEvent (numbered the same way).
 */

export interface EventNames {
  event: string;
  /** trackOrderCompleted */
  fn: string;
  /** OrderCompletedProperties */
  type: string;
}

/** Names for every event, in the order given (sorted by the caller), and a note per renamed one. */
export function eventNames(events: readonly string[]): { names: EventNames[]; notes: string[] } {
  const used = new Map<string, string>();
  const notes: string[] = [];
  const names = events.map((event) => {
    const words = event.match(/(?:(?!_)\p{ID_Continue})+/gu) ?? [];
    const base = words.length > 0 ? words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') : 'Event';
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}${n}`;
    if (name !== base) notes.push(`"${event}" is named track${name}: track${base} is taken by "${used.get(base)}"`);
    else if (words.length === 0) notes.push(`"${event}" has no letter or digit to name it by: it is named track${name}`);
    used.set(name, event);
    return { event, fn: `track${name}`, type: `${/^\p{ID_Start}/u.test(name) ? '' : 'Event'}${name}Properties` };
  });
  return { names, notes };
}
