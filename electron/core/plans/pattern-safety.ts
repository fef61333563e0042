/**
 * Whether a tracking plan's `pattern` is safe to run on message values in the relay's writer thread:
 * refused when its backtracking can take exponential time — a repeated group that holds a repetition
 * (`^(a+)+$`), unless a plain character marks where each repetition starts or ends (`^[a-z]+(-[a-z]+)*$`),
 * and backreferences. A star-height check like safe-regex's over a small parser of Unicode-mode patterns
 * (character classes and escapes read as such). compile-plan.ts asks it for every pattern of a plan.
 */

type Atom =
  | { kind: 'char'; value: string }
  /** A set of characters: [...], ., \d, \p{...}; `text` is its source. */
  | { kind: 'set'; text: string }
  | { kind: 'assertion' }
  | { kind: 'backreference'; text: string }
  | { kind: 'group'; alternatives: Term[][] };

interface Term {
  atom: Atom;
  min: number;
  max: number;
  lazy: boolean;
  /** Offsets in the pattern: the term, and where its atom ends (its quantifier follows). */
  start: number;
  atomEnd: number;
  end: number;
}

/** Groups nested deeper than this are refused rather than parsed (the parser recurses). */
const MAX_GROUP_DEPTH = 64;

/** Why `pattern` is refused, as a sentence after its place; undefined when it is safe to run. */
export function patternRisk(pattern: string): string | undefined {
  const shown = JSON.stringify(pattern.length > 120 ? `${pattern.slice(0, 119)}…` : pattern);
  let parsed: { alternatives: Term[][]; modifiers: boolean };
  try {
    parsed = parsePattern(pattern);
  } catch (error) {
    if (error instanceof GroupsTooDeep) return `${shown} nests groups deeper than ${MAX_GROUP_DEPTH} levels; simplify it`;
    throw error;
  }
  const found = riskIn(parsed.alternatives, parsed.modifiers);
  if (found === undefined) return undefined;
  if (found.atom.kind === 'backreference') {
    return `${shown} uses a backreference (${JSON.stringify(found.atom.text)}), which can take exponential time on some values; Sluice does not run patterns with backreferences: rewrite it without one`;
  }
  const group = pattern.slice(found.start, found.end);
  const shownGroup = JSON.stringify(group.length > 60 ? `${group.slice(0, 59)}…` : group);
  const rewrite = flattened(pattern, found);
  const how =
    rewrite !== undefined
      ? `rewrite it, e.g. ${JSON.stringify(rewrite)}`
      : 'rewrite it without the inner repetition, or so that the group starts or ends with a character nothing else in it matches (as "-" does in "^[a-z]+(-[a-z]+)*$")';
  return `${shown} nests a repetition inside a repeated group (${shownGroup}), which can take exponential time on some values; ${how}`;
}

/** The first (outermost, leftmost) term that makes the pattern unsafe: a backreference, or a repeated group. */
function riskIn(alternatives: Term[][], modifiers: boolean): Term | undefined {
  for (const sequence of alternatives) {
    for (const term of sequence) {
      const { atom } = term;
      if (atom.kind === 'backreference') return term;
      if (atom.kind !== 'group') continue;
      if (term.max > 1 && varies(atom.alternatives) && !delimited(atom.alternatives, modifiers)) return term;
      const inner = riskIn(atom.alternatives, modifiers);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

/** Whether something inside repeats a variable number of times. */
function varies(alternatives: Term[][]): boolean {
  return alternatives.some((sequence) =>
    sequence.some((t) => t.min < t.max || t.atom.kind === 'backreference' || (t.atom.kind === 'group' && varies(t.atom.alternatives))),
  );
}

/**
 * Whether the group's first or last element is one unrepeated character that nothing else in it matches.
 * Not with inline modifiers anywhere in the pattern (`(?i:…)`): the character tests below ignore them.
 */
function delimited(alternatives: Term[][], modifiers: boolean): boolean {
  if (modifiers || alternatives.length !== 1) return false;
  const sequence = alternatives[0]!;
  if (sequence.length < 2) return false;
  const ends = [sequence[0]!, sequence[sequence.length - 1]!];
  return ends.some((edge) => {
    if (edge.atom.kind !== 'char' || edge.min !== 1 || edge.max !== 1) return false;
    const c = edge.atom.value;
    return !sequence.some((t) => t !== edge && canMatch(t.atom, c));
  });
}

function canMatch(atom: Atom, c: string): boolean {
  switch (atom.kind) {
    case 'char':
      return atom.value === c;
    case 'set':
      return new RegExp(`^(?:${atom.text})$`, 'u').test(c);
    case 'assertion':
      return false;
    case 'backreference':
      return true;
    case 'group':
      return atom.alternatives.some((sequence) => sequence.some((t) => canMatch(t.atom, c)));
  }
}

/** `(a+)+` → `a+`, `(\d*)+` → `\d*`: the pattern with the group replaced by its one repeated element, when it is that simple. */
function flattened(pattern: string, term: Term): string | undefined {
  if (term.atom.kind !== 'group' || term.max !== Infinity || term.lazy) return undefined;
  const [sequence, ...others] = term.atom.alternatives;
  if (others.length > 0 || sequence?.length !== 1) return undefined;
  const inner = sequence[0]!;
  if ((inner.atom.kind !== 'char' && inner.atom.kind !== 'set') || inner.lazy || !(inner.max === Infinity || (inner.min === 0 && inner.max === 1))) return undefined;
  const quantifier = inner.min === 0 || term.min === 0 ? '*' : '+';
  return `${pattern.slice(0, term.start)}${pattern.slice(inner.start, inner.atomEnd)}${quantifier}${pattern.slice(term.end)}`;
}

const QUANTIFIER = /\{(\d+)(?:(,)(\d*))?\}/y;
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
const CONTROL_ESCAPES: Record<string, string> = { f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** The pattern's alternatives, and whether it has inline modifiers (`(?i:…)`). Assumes a valid Unicode-mode pattern. */
function parsePattern(p: string): { alternatives: Term[][]; modifiers: boolean } {
  let i = 0;
  let modifiers = false;
  /** Moves past the next `c` (there is one: the pattern is valid; the end otherwise, so that parsing ends). */
  const skipPast = (c: string): void => {
    const at = p.indexOf(c, i);
    i = at < 0 ? p.length : at + 1;
  };

  const alternation = (depth: number): Term[][] => {
    if (depth > MAX_GROUP_DEPTH) throw new GroupsTooDeep('');
    const alternatives: Term[][] = [[]];
    while (i < p.length && p[i] !== ')') {
      if (p[i] === '|') {
        i++;
        alternatives.push([]);
      } else alternatives[alternatives.length - 1]!.push(term(depth));
    }
    return alternatives;
  };

  const term = (depth: number): Term => {
    const start = i;
    const atom = parseAtom(depth);
    const atomEnd = i;
    let min = 1;
    let max = 1;
    const c = p[i];
    if (c === '*' || c === '+' || c === '?') {
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Infinity;
      i++;
    } else if (c === '{') {
      QUANTIFIER.lastIndex = i;
      const m = QUANTIFIER.exec(p);
      if (m) {
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
        i += m[0].length;
      }
    }
    let lazy = false;
    if (i > atomEnd && p[i] === '?') {
      lazy = true;
      i++;
    }
    return { atom, min, max, lazy, start, atomEnd, end: i };
  };

  const parseAtom = (depth: number): Atom => {
    const start = i;
    const c = p[i]!;
    if (c === '^' || c === '$') {
      i++;
      return { kind: 'assertion' };
    }
    if (c === '.') {
      i++;
      return { kind: 'set', text: '.' };
    }
    if (c === '[') {
      i++;
      // In Unicode mode the first unescaped ] ends the class (a class never nests).
      while (i < p.length && p[i] !== ']') i += p[i] === '\\' ? 2 : 1;
      i++;
      return { kind: 'set', text: p.slice(start, i) };
    }
    if (c === '(') {
      i++;
      if (p[i] === '?') {
        if (p.startsWith('?:', i) || p.startsWith('?=', i) || p.startsWith('?!', i)) i += 2;
        else if (p.startsWith('?<=', i) || p.startsWith('?<!', i)) i += 3;
        else if (p[i + 1] === '<') skipPast('>'); // (?<name>
        else {
          modifiers = true; // (?i:  (?-i:
          skipPast(':');
        }
      }
      const alternatives = alternation(depth + 1);
      i++; // )
      return { kind: 'group', alternatives };
    }
    if (c === '\\') return escape();
    const code = p.codePointAt(i)!;
    i += code > 0xffff ? 2 : 1;
    return { kind: 'char', value: String.fromCodePoint(code) };
  };

  const escape = (): Atom => {
    const start = i;
    const n = p[i + 1]!;
    i += 2;
    if (n === 'b' || n === 'B') return { kind: 'assertion' };
    if (n >= '1' && n <= '9') {
      while (p[i]! >= '0' && p[i]! <= '9') i++;
      return { kind: 'backreference', text: p.slice(start, i) };
    }
    if (n === 'k') {
      skipPast('>');
      return { kind: 'backreference', text: p.slice(start, i) };
    }
    if (CLASS_ESCAPES.has(n)) return { kind: 'set', text: p.slice(start, i) };
    if (n === 'p' || n === 'P') {
      skipPast('}');
      return { kind: 'set', text: p.slice(start, i) };
    }
    if (n === 'u') {
      if (p[i] === '{') {
        const close = p.indexOf('}', i);
        const value = String.fromCodePoint(parseInt(p.slice(i + 1, close), 16));
        i = close + 1;
        return { kind: 'char', value };
      }
      const lead = parseInt(p.slice(i, i + 4), 16);
      i += 4;
      // A surrogate pair written as two escapes is one character in Unicode mode.
      if (lead >= 0xd800 && lead <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(p.slice(i, i + 6))) {
        const trail = parseInt(p.slice(i + 2, i + 6), 16);
        i += 6;
        return { kind: 'char', value: String.fromCharCode(lead, trail) };
      }
      return { kind: 'char', value: String.fromCharCode(lead) };
    }
    if (n === 'x') {
      const value = String.fromCharCode(parseInt(p.slice(i, i + 2), 16));
      i += 2;
      return { kind: 'char', value };
    }
    if (n === 'c') {
      const value = String.fromCharCode(p.charCodeAt(i) % 32);
      i += 1;
      return { kind: 'char', value };
    }
    if (n === '0') return { kind: 'char', value: '\0' };
    if (CONTROL_ESCAPES[n] !== undefined) return { kind: 'char', value: CONTROL_ESCAPES[n] };
    // An escaped syntax character (\. \( \/ …): itself. (Unicode mode allows no other identity escapes.)
    return { kind: 'char', value: n };
  };

  const alternatives = alternation(0);
  return { alternatives, modifiers };
}

/** The parser met groups nested deeper than MAX_GROUP_DEPTH. */
class GroupsTooDeep extends Error {}
