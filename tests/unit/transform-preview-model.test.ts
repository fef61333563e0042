// The inspector's filters and transform editors without React: the input → output diff a preview
// shows (fields added, removed and changed, by path and JSON Pointer), the filters form (rows to the
// settings' filters and back, each problem on its row's control, the search box's query check, moves),
// the destination form saving its filters, and a refused transform save placed at its line and column.
import { describe, expect, it } from 'vitest';
import { offsetOf } from '../../renderer/src/components/CodeArea.tsx';
import { formOf, newForm, requestOf, validate } from '../../renderer/src/views/destinations/destination-form.ts';
import { emptyFilter, filterProblems, filterRowsOf, filtersRequestOf, moved, type FilterRow } from '../../renderer/src/views/transforms/filter-form.ts';
import { diffJson, MAX_CHANGES } from '../../renderer/src/views/transforms/json-diff.ts';
import { problemOf } from '../../renderer/src/views/transforms/transform-words.ts';
import type { DestinationView } from '../../shared/contract.ts';

describe('diffJson', () => {
  it('lists each field added, removed and changed, nested and in arrays, with its path and pointer', () => {
    const before = { event: 'Order Completed', properties: { price: 10, coupon: 'X', items: [{ sku: 'a' }, { sku: 'b' }] }, context: { ip: '1.2.3.4' } };
    const after = { event: 'order_completed', properties: { price: 10, total: 12, items: [{ sku: 'a' }, { sku: 'c' }, { sku: 'd' }] }, context: { ip: '1.2.3.4' } };
    const { changes, more } = diffJson(before, after);
    expect(more).toBe(false);
    expect(changes).toEqual([
      { kind: 'changed', path: 'event', pointer: '/event', before: 'Order Completed', after: 'order_completed' },
      { kind: 'removed', path: 'properties.coupon', pointer: '/properties/coupon', before: 'X' },
      { kind: 'changed', path: 'properties.items[1].sku', pointer: '/properties/items/1/sku', before: 'b', after: 'c' },
      { kind: 'added', path: 'properties.items[2]', pointer: '/properties/items/2', after: { sku: 'd' } },
      { kind: 'added', path: 'properties.total', pointer: '/properties/total', after: 12 },
    ]);
  });

  it('finds nothing in an equal copy, one change where a kind changed, and stops at the limit saying so', () => {
    expect(diffJson({ a: { b: [1, null] } }, { a: { b: [1, null] } }).changes).toEqual([]);
    expect(diffJson({ a: { b: 1 } }, { a: 'text' }).changes).toEqual([{ kind: 'changed', path: 'a', pointer: '/a', before: { b: 1 }, after: 'text' }]);
    expect(diffJson({ 'a/b': 1 }, { 'a/b': 2 }).changes[0]!.pointer).toBe('/a~1b');
    const many = Object.fromEntries(Array.from({ length: MAX_CHANGES + 5 }, (_, i) => [`k${i}`, i]));
    const { changes, more } = diffJson({}, many);
    expect(changes).toHaveLength(MAX_CHANGES);
    expect(more).toBe(true);
  });
});

describe('the filters form', () => {
  const row = (patch: Partial<FilterRow>): FilterRow => ({ ...emptyFilter(), ...patch });

  it('turns rows into the settings’ filters and back', () => {
    const rows = [
      row({ if: ' type:identify ', action: 'drop' }),
      row({ if: 'type:track', action: 'sample', sample: '0.25' }),
      row({ if: '', action: 'allowFields', fields: 'event, properties.price  userId' }),
      row({ if: 'event:"Order Completed"', action: 'blockFields', fields: 'context.ip' }),
    ];
    const filters = filtersRequestOf(rows);
    expect(filters).toEqual([
      { if: 'type:identify', drop: true },
      { if: 'type:track', sample: 0.25 },
      { if: '', allowFields: ['event', 'properties.price', 'userId'] },
      { if: 'event:"Order Completed"', blockFields: ['context.ip'] },
    ]);
    expect(filterProblems(rows)).toEqual({});
    const back = filterRowsOf(filters as never);
    expect(back.map(({ key: _k, ...r }) => r)).toEqual([
      { if: 'type:identify', action: 'drop', sample: '0.1', fields: '' },
      { if: 'type:track', action: 'sample', sample: '0.25', fields: '' },
      { if: '', action: 'allowFields', sample: '0.1', fields: 'event, properties.price, userId' },
      { if: 'event:"Order Completed"', action: 'blockFields', sample: '0.1', fields: 'context.ip' },
    ]);
  });

  it('places each problem on its row’s control: the query as the search box checks it, the rate, the fields', () => {
    const problems = filterProblems([
      row({ if: 'type:(', action: 'drop' }),
      row({ if: 'type:track', action: 'sample', sample: '1.5' }),
      row({ if: 'type:track', action: 'sample', sample: '' }),
      row({ if: 'type:track', action: 'allowFields', fields: ' ' }),
      row({ if: 'type:track', action: 'blockFields', fields: 'properties..price' }),
    ]);
    expect(Object.keys(problems).sort()).toEqual(['filters.0.if', 'filters.1.sample', 'filters.2.sample', 'filters.3.fields', 'filters.4.fields']);
    expect(problems['filters.0.if']).toMatch(/^The query: .*\(at character \d+\); the search box's syntax applies/);
    expect(problems['filters.1.sample']).toBe('The sample rate must be a number from 0 to 1 (0.1 keeps one message in ten).');
    expect(problems['filters.3.fields']).toBe('Name at least one field path, e.g. properties.price, context.ip.');
    expect(problems['filters.4.fields']).toMatch(/must be a field path such as properties\.price/);
  });

  it('moves a row up and down, clamped at the ends', () => {
    expect(moved(['a', 'b', 'c'], 2, 1)).toEqual(['a', 'c', 'b']);
    expect(moved(['a', 'b', 'c'], 0, 1)).toEqual(['b', 'a', 'c']);
    expect(moved(['a', 'b', 'c'], 0, -1)).toEqual(['a', 'b', 'c']);
    expect(moved(['a', 'b', 'c'], 2, 5)).toEqual(['a', 'b', 'c']);
  });

  it('goes into the destination’s save request (either kind), and its problems stop the save on their rows', () => {
    const form = { ...newForm(['web']), name: 'hooks', webhooks: [{ key: 1, url: 'http://localhost:3000/hook', headers: [], caCert: '' }] };
    expect(requestOf(form)).not.toHaveProperty('filters');
    const filtered = { ...form, filters: [row({ if: 'type:identify', action: 'drop' })] };
    expect(requestOf(filtered).filters).toEqual([{ if: 'type:identify', drop: true }]);
    expect(validate(filtered)).toEqual({});
    expect(validate({ ...form, filters: [row({ if: 'type:identify' }), row({ if: 'nope:(', action: 'drop' })] })).toHaveProperty(['filters.1.if']);
    const view = {
      id: 3, name: 'hooks', enabled: true, sourceIds: [1], webhooks: [{ url: 'http://localhost:3000/hook', headers: {} }], hasSecret: false, maskedSecret: null,
      signing: 'segment', maskedSigningSecrets: [], options: { bodyShape: 'seed', concurrency: 32 }, kind: 'webhooks', trackingApi: null, health: [],
      filters: [{ if: 'type:track', sample: 0.5 }],
    } as unknown as DestinationView;
    expect(requestOf(formOf(view, [{ id: 1, name: 'web' } as never])).filters).toEqual([{ if: 'type:track', sample: 0.5 }]);
  });
});

describe('a refused transform save', () => {
  it('is placed at the line and column the core names, and the offset found in the text', () => {
    const error = { code: 'invalid_transform', message: 'the transform does not compile at line 3, column 7: Unexpected token; fix it and save again (the version in use stays)' };
    expect(problemOf(error)).toEqual({ line: 3, column: 7, message: 'Unexpected token' });
    expect(problemOf({ code: 'not_found', message: 'there is no destination 9' })).toBeNull();
    expect(offsetOf('ab\ncd\nefgh', 3, 2)).toBe(7);
    expect(offsetOf('ab', 5, 1)).toBe(2);
  });
});
