/**
 * A request body's text for the Webhook tab: JSON re-indented without parsing it (so the start of a
 * body cut anywhere reads as indented JSON too), and a body parsed for the tree. Pure, tested in Node.
 */

const CLOSER: Record<string, string> = { '{': '}', '[': ']' };

function isSpace(c: string): boolean {
  return c === ' ' || c === '\n' || c === '\r' || c === '\t';
}

/**
 * JSON text indented token by token, in one pass and without parsing: a line per member and item,
 * `": "` after a key, `{}` and `[]` kept on one line; strings are copied as they are. Text cut anywhere
 * (inside a string, an escape or a number) gives the start of what the whole text would give — so the
 * start of a huge body reads indented before the rest is loaded. Text that is not JSON is indented as
 * far as its brackets go, never refused.
 */
export function indentJson(text: string, indent = '  '): string {
  let out = '';
  let depth = 0;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, Math.min(j + 1, n));
      i = j + 1;
      continue;
    }
    if (c === '{' || c === '[') {
      let k = i + 1;
      while (k < n && isSpace(text[k]!)) k++;
      if (k < n && text[k] === CLOSER[c]) {
        out += c + text[k];
        i = k + 1;
      } else if (k >= n) {
        out += c; // cut right after it: whether it is empty is not known yet
        i = n;
      } else {
        depth++;
        out += `${c}\n${indent.repeat(depth)}`;
        i = k;
      }
      continue;
    }
    if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      out += `\n${indent.repeat(depth)}${c}`;
    } else if (c === ',') {
      out += `,\n${indent.repeat(depth)}`;
    } else if (c === ':') {
      out += ': ';
    } else if (!isSpace(c)) {
      // A number or a literal: copied up to the next character that means something here.
      let j = i + 1;
      while (j < n && !'{}[],:" \n\r\t'.includes(text[j]!)) j++;
      out += text.slice(i, j);
      i = j;
      continue;
    }
    i++;
  }
  return out;
}

/** The body parsed as JSON, or why it is shown as text. */
export function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
