// The query language's parser (shared/message-query.ts) and the search box's completion
// (renderer/src/views/stream/query-completion.ts): clauses, the errors a person gets, and what is
// offered at the caret.
import { describe, expect, it } from 'vitest';
import { hasWords, matchesPattern, parseQuery, QueryError, wordText } from '../../shared/message-query.ts';
import { applySuggestion, complete, QUERY_EXAMPLES } from '../../renderer/src/views/stream/query-completion.ts';

describe('parseQuery', () => {
  it("reads the issue's example into its clauses", () => {
    expect(parseQuery('event:"Order Completed" properties.sku:sku_17 -type:identify userId:u_* status:failed')).toEqual([
      { kind: 'column', negated: false, field: 'event', value: 'Order Completed' },
      { kind: 'path', negated: false, path: ['properties', 'sku'], value: 'sku_17' },
      { kind: 'column', negated: true, field: 'type', value: 'identify' },
      { kind: 'column', negated: false, field: 'userId', value: 'u_*' },
      { kind: 'column', negated: false, field: 'status', value: 'failed' },
    ]);
  });

  it('reads words, quoted phrases (no prefix), comparisons and field names in any case', () => {
    expect(parseQuery('  ord_123   "Order Comp" -Coupon ')).toEqual([
      { kind: 'words', negated: false, text: 'ord_123', words: ['ord', '123'], prefix: true },
      { kind: 'words', negated: false, text: 'Order Comp', words: ['order', 'comp'], prefix: false },
      { kind: 'words', negated: true, text: 'Coupon', words: ['coupon'], prefix: true },
    ]);
    expect(parseQuery('ab')[0]).toMatchObject({ words: ['ab'], prefix: false }); // too short to be a prefix
    expect(parseQuery('sku_')[0]).toMatchObject({ words: ['sku'], prefix: false }); // ends in a separator: a whole word
    expect(parseQuery('PROPERTIES.price:>=10.5 USERID:x')).toEqual([
      { kind: 'path', negated: false, path: ['properties', 'price'], value: '>=10.5', compare: { op: '>=', number: 10.5 } },
      { kind: 'column', negated: false, field: 'userId', value: 'x' },
    ]);
    expect(parseQuery('traits.name:"O\\"Brien" context.page.path:""')).toEqual([
      { kind: 'path', negated: false, path: ['traits', 'name'], value: 'O"Brien' },
      { kind: 'path', negated: false, path: ['context', 'page', 'path'], value: '' },
    ]);
    expect(parseQuery('')).toEqual([]);
  });

  it('says what is wrong, where, and how to write it', () => {
    const problem = (query: string) => {
      try {
        parseQuery(query);
      } catch (error) {
        expect(error).toBeInstanceOf(QueryError);
        return { message: (error as QueryError).message, at: (error as QueryError).at };
      }
      throw new Error(`${query} parsed`);
    };
    expect(problem('ok sku:1')).toEqual({ message: expect.stringMatching(/^unknown field "sku": .*properties\.sku.*put it in quotes$/), at: 3 });
    expect(problem('http://example.com').message).toMatch(/unknown field "http"/);
    expect(problem('event:"Order').message).toBe('a quote is not closed: end the value with "');
    expect(problem('status:done').message).toBe('status:done: status is one of accepted, rejected, duplicate, pending, retrying, delivered, failed, skipped, cancelled, none');
    expect(problem('type:event').message).toMatch(/type is one of identify, track/);
    expect(problem('properties.price:>ten').message).toBe('properties.price:>ten: > compares with a number, e.g. properties.price:>10');
    expect(problem('userId:').message).toMatch(/needs a value/);
    expect(problem('a @@').message).toMatch(/"@@" has no letters or digits/);
    expect(parseQuery('status:fail*')).toHaveLength(1); // a wildcard is not checked against the list
  });

  it('a field written with an operator and no colon says what was meant, with the fixed query; words stay words', () => {
    const slip = (query: string) => {
      try {
        parseQuery(query);
      } catch (error) {
        return { message: (error as QueryError).message, at: (error as QueryError).at, suggestion: (error as QueryError).suggestion };
      }
      throw new Error(`${query} parsed`);
    };
    expect(slip('properties.revenue>=10')).toEqual({
      message: 'properties.revenue>=10 has no colon after the field, so it would only look for words: did you mean properties.revenue:>=10? To look for the words, put them in quotes',
      at: 0,
      suggestion: 'properties.revenue:>=10',
    });
    expect(slip('properties.total<5').suggestion).toBe('properties.total:<5');
    expect(slip('traits.age>18').suggestion).toBe('traits.age:>18');
    expect(slip('ord_1 event=Signup type:track')).toMatchObject({ at: 6, suggestion: 'ord_1 event:Signup type:track' });
    expect(slip('Event==Signup').suggestion).toBe('event:Signup');
    expect(slip('-event=Signup').suggestion).toBe('-event:Signup');
    expect(slip('type!=identify').suggestion).toBe('-type:identify');
    expect(slip('-type!=identify').suggestion).toBe('type:identify');
    expect(slip('event="Order Completed"').suggestion).toBe('event:"Order Completed"');
    expect(slip('properties.revenue>=').suggestion).toBe('properties.revenue:>=10');
    // A stored field compares as text: its value, and where numbers compare.
    expect(slip('status>3').message).toMatch(/did you mean status:3\? \(status compares as text; numbers compare in a payload path, e\.g\. properties\.total:>10\)/);
    // Not a field's name: the words are searched as they are.
    for (const query of ['a=b', 'x.y>=3', 'k8s<v2', '"properties.revenue>=10"']) expect(parseQuery(query)[0]!.kind, query).toBe('words');
  });

  it("parses every example the syntax help offers", () => {
    for (const { query } of QUERY_EXAMPLES) expect(() => parseQuery(query), query).not.toThrow();
  });
});

describe('words and patterns', () => {
  it('finds words one after the other, the last as a prefix when asked, A–Z folded only', () => {
    const raw = '{"event":"Order Completed","properties":{"order_id":"ORD_123","who":"Zoë"}}';
    expect(hasWords(raw, ['ord', '123'], false)).toBe(true);
    expect(hasWords(raw, ['ord', '12'], false)).toBe(false);
    expect(hasWords(raw, ['ord', '12'], true)).toBe(true);
    expect(hasWords(raw, ['rd', '123'], true)).toBe(false); // a word's start, not its middle
    expect(hasWords(raw, ['completed', 'properties'], false)).toBe(true); // JSON punctuation separates words
    expect(hasWords(raw, ['zoë'], false)).toBe(true); // Z folds to z
    expect(hasWords(raw, ['zoË'], false)).toBe(false); // Ë is not ASCII: it does not fold
  });

  it('matches a value as LIKE would, with * for any characters', () => {
    expect(matchesPattern('Order Completed', 'order completed')).toBe(true);
    expect(matchesPattern('Order Completed', 'order*')).toBe(true);
    expect(matchesPattern('Order Completed', '*complete')).toBe(false);
    expect(matchesPattern('abcabc', 'a*c*c')).toBe(true);
    expect(matchesPattern('abc', 'a*bc*c')).toBe(false);
    expect(matchesPattern('', '*')).toBe(true);
  });
});

describe('completion', () => {
  const context = { sources: ['web', 'My App'], events: ['Order Completed', 'Signed In'] };

  it('offers field names while one is typed, and every field when asked', () => {
    const c = complete('-sta', 4, context)!;
    expect(c.suggestions.map((s) => s.insert)).toEqual(['status:']);
    expect(applySuggestion('-sta', c, c.suggestions[0]!)).toEqual({ query: '-status:', caret: 8 });
    expect(complete('prop', 4, context)!.suggestions.map((s) => s.insert)).toEqual(['properties.']);
    expect(complete('', 0, context)).toBeNull();
    expect(complete('', 0, context, true)!.suggestions.length).toBeGreaterThan(8);
  });

  it('offers values after a field, quoted when they hold a space, and moves on past them', () => {
    const c = complete('x source:m y', 10, context)!;
    expect(c.suggestions.map((s) => s.label)).toEqual(['My App']);
    expect(applySuggestion('x source:m y', c, c.suggestions[0]!)).toEqual({ query: 'x source:"My App" y', caret: 17 });
    expect(complete('event:', 6, context)!.suggestions.map((s) => s.insert)).toEqual(['event:"Order Completed" ', 'event:"Signed In" ']);
    expect(complete('status:fa', 9, context)!.suggestions.map((s) => s.label)).toEqual(['failed']);
    expect(complete('pin', 3, context)!.suggestions.map((s) => s.insert)).toEqual(['pinned:']);
    expect(complete('-pinned:', 8, context)!.suggestions.map((s) => s.insert)).toEqual(['pinned:true ', 'pinned:false ']);
    expect(complete('properties.sku:', 15, context)).toBeNull(); // a payload field's values are not known
    expect(complete('"order', 6, context)).toBeNull();
  });
});

it('reads the string escapes of a message for its words, each once, whatever wrote them', () => {
  expect(wordText('{"e":"Caf\\u00e9","n":"a\\nb\\tc","q":"say \\"hi\\"","s":"a\\/b"}')).toBe('{"e":"Café","n":"a b c","q":"say "hi"","s":"a/b"}');
  expect(wordText('{"x":"\\\\u0041"}')).toBe('{"x":"\\u0041"}'); // an escaped backslash, then the text u0041
  expect(wordText('{"x":"\\ud83d\\ude00 ok"}')).toBe('{"x":"😀 ok"}');
  const plain = '{"event":"Order Completed"}';
  expect(wordText(plain)).toBe(plain);
});

