// A facet value's clause (shared/facets.ts) reads back, through the query language's own parser, as
// exactly that value of that field: quoted where the value has a space, a quote, is empty or would
// read as a comparison; an absent value as "not there"; a cut value by its start.
import { describe, expect, it } from 'vitest';
import { bucketFor, facetClause, withClause } from '../../shared/facets.ts';
import { parseQuery } from '../../shared/message-query.ts';

describe('facetClause', () => {
  const values = ['plain', 'Order Completed', 'say "hi"', '', '>10', '<=3', '-neg', 'a:b', 'tab\there', 'é😀'];
  for (const field of ['event', 'userId', 'properties.plan', 'context.app.version']) {
    it(`reads back as the value of ${field}`, () => {
      for (const value of values) {
        const [clause, ...rest] = parseQuery(facetClause(field, value));
        expect(rest).toEqual([]);
        expect(clause).toMatchObject({ negated: false, value });
        expect(clause).not.toHaveProperty('compare');
      }
    });
  }

  it('an absent value: the field is not there; a cut one: by its start', () => {
    expect(parseQuery(facetClause('properties.plan', null))).toEqual([{ kind: 'path', negated: true, path: ['properties', 'plan'], value: '*' }]);
    expect(parseQuery(facetClause('event', 'Order Comp', true))[0]).toMatchObject({ value: 'Order Comp*' });
    expect(withClause('  type:track ', 'event:x')).toBe('type:track event:x');
    expect(withClause('', 'event:x')).toBe('event:x');
  });

  it('buckets: round widths, at most 60 of them', () => {
    expect(bucketFor(0)).toBe(1000);
    expect(bucketFor(59_999)).toBe(1000);
    expect(bucketFor(540_000)).toBe(10_000);
    expect(bucketFor(24 * 3_600_000)).toBe(30 * 60_000);
    for (const span of [1, 61_000, 3_600_000, 7 * 86_400_000, 400 * 86_400_000]) expect(Math.ceil((span + 1) / bucketFor(span))).toBeLessThanOrEqual(60);
  });
});
