// Where JsonTree shows a note about a JSON Pointer: on the node it names, or — for a field that is
// not there (a required field missing) — on its deepest existing ancestor, as "missing: <the rest>".
import { describe, expect, it } from 'vitest';
import {
  ancestorsOf,
  childPointer,
  escapeToken,
  notesInside,
  parsePointer,
  placeAnnotations,
  resolvePointer,
  unescapeToken,
} from '../../renderer/src/components/json-pointer.ts';

const message = {
  type: 'track',
  event: 'Order Completed',
  properties: { price: '12', 'a/b': 1, 'x~y': 2, items: [{ sku: 'A' }, { sku: 'B' }], empty: {} },
  context: { app: { version: '1.0' } },
};

describe('JSON Pointer tokens', () => {
  it('escapes ~ and / (RFC 6901) and reads them back', () => {
    expect(escapeToken('a/b~c')).toBe('a~1b~0c');
    expect(unescapeToken('a~1b~0c')).toBe('a/b~c');
    // ~01 is "~1" literally, not "/".
    expect(unescapeToken('~01')).toBe('~1');
    expect(childPointer('/properties', 'a/b')).toBe('/properties/a~1b');
    expect(childPointer('', 0)).toBe('/0');
  });

  it('parses pointers, the root and malformed ones', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/')).toEqual(['']);
    expect(parsePointer('/properties/a~1b')).toEqual(['properties', 'a/b']);
    expect(parsePointer('properties/price')).toBeNull();
  });

  it('lists a node and its ancestors, root first', () => {
    expect(ancestorsOf('/properties/items/1')).toEqual(['', '/properties', '/properties/items', '/properties/items/1']);
    expect(ancestorsOf('')).toEqual(['']);
  });
});

describe('resolvePointer', () => {
  it('finds existing nodes, escaped keys and array items', () => {
    expect(resolvePointer(message, '/properties/price')).toEqual({ node: '/properties/price', missing: [] });
    expect(resolvePointer(message, '/properties/a~1b')).toEqual({ node: '/properties/a~1b', missing: [] });
    expect(resolvePointer(message, '/properties/x~0y')).toEqual({ node: '/properties/x~0y', missing: [] });
    expect(resolvePointer(message, '/properties/items/1/sku')).toEqual({ node: '/properties/items/1/sku', missing: [] });
    expect(resolvePointer(message, '/event')).toEqual({ node: '/event', missing: [] });
    expect(resolvePointer(message, '')).toEqual({ node: '', missing: [] });
  });

  it('stops at the deepest existing ancestor of a missing field', () => {
    expect(resolvePointer(message, '/properties/currency')).toEqual({ node: '/properties', missing: ['currency'] });
    expect(resolvePointer(message, '/traits/address/city')).toEqual({ node: '', missing: ['traits', 'address', 'city'] });
    expect(resolvePointer(message, '/properties/empty/name')).toEqual({ node: '/properties/empty', missing: ['name'] });
    // Out of range, not a number, "-" and leading zeros are no array items.
    expect(resolvePointer(message, '/properties/items/2/sku')).toEqual({ node: '/properties/items', missing: ['2', 'sku'] });
    expect(resolvePointer(message, '/properties/items/-')).toEqual({ node: '/properties/items', missing: ['-'] });
    expect(resolvePointer(message, '/properties/items/01')).toEqual({ node: '/properties/items', missing: ['01'] });
    // Below a scalar: shown on the scalar.
    expect(resolvePointer(message, '/properties/price/amount')).toEqual({ node: '/properties/price', missing: ['amount'] });
  });

  it('does not follow inherited properties', () => {
    expect(resolvePointer(message, '/properties/toString')).toEqual({ node: '/properties', missing: ['toString'] });
    expect(resolvePointer(message, '/properties/price/length')).toEqual({ node: '/properties/price', missing: ['length'] });
  });

  it('puts a malformed pointer on the root', () => {
    expect(resolvePointer(message, 'properties/price')).toEqual({ node: '', missing: [] });
  });
});

describe('placeAnnotations', () => {
  const annotations = [
    { pointer: '/properties/price', text: 'price must be a number; got the string "12"' },
    { pointer: '/properties/currency', text: 'currency is required' },
    { pointer: '/properties/price', text: 'price must be at least 1' },
    { pointer: '/context/app/build', text: 'build is required' },
  ];
  const placement = placeAnnotations(message, annotations);

  it('groups notes by the node they show on, in order, and says what is missing', () => {
    expect(placement.at.get('/properties/price')!.map((p) => [p.index, p.missing])).toEqual([
      [0, null],
      [2, null],
    ]);
    expect(placement.at.get('/properties')!.map((p) => [p.index, p.missing, p.annotation.text])).toEqual([[1, 'currency', 'currency is required']]);
    expect(placement.at.get('/context/app')!.map((p) => p.missing)).toEqual(['build']);
    expect([...placement.at.keys()].sort()).toEqual(['/context/app', '/properties', '/properties/price']);
  });

  it('opens every node on the way to a note', () => {
    expect([...placement.open].sort()).toEqual(['', '/context', '/context/app', '/properties', '/properties/price']);
  });

  it('knows which node each note is on (what a reveal opens and focuses)', () => {
    expect(placement.nodeOf).toEqual(['/properties/price', '/properties', '/properties/price', '/context/app']);
  });

  it('counts the notes below a node, which it hides when folded (its own are not counted: they stay on its line)', () => {
    expect(notesInside(placement, '/properties')).toBe(2); // two on price; currency's is on /properties itself
    expect(notesInside(placement, '/context')).toBe(1);
    expect(notesInside(placement, '/context/app')).toBe(0);
    expect(notesInside(placement, '')).toBe(4);
    expect(notesInside(placement, '/prop')).toBe(0); // a prefix of a name is not a parent
  });

  it('joins a missing path of several levels', () => {
    const p = placeAnnotations({ traits: {} }, [{ pointer: '/traits/address/city', text: 'city is required' }]);
    expect(p.at.get('/traits')![0]!.missing).toBe('address/city');
  });

  it('places nothing without notes, and handles a value that is not an object', () => {
    expect(placeAnnotations(message, []).at.size).toBe(0);
    const p = placeAnnotations(null, [{ pointer: '/event', text: 'x' }]);
    expect(p.at.get('')![0]!.missing).toBe('event');
  });
});
