// Each outcome of a transform call (electron/core/transforms/transformer.ts), through the real runtime:
// a real worker thread running a real file from a temp folder.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransformer, type Transformer, type TransformOutcome } from '../../../electron/core/transforms/index.ts';
import { tempDir } from '../../helpers/core.ts';

const SOURCE = `// a transform covering every outcome
async function onTrack(event, { settings, log }) {
  log('tracking', event.event, 'for', settings.app);
  console.warn('a warning');
  if (event.event === 'Unchanged') return event;
  if (event.event === 'Mutate') { event.properties.seen = true; return event; }
  if (event.event === 'Null') return null;
  if (event.event === 'Undefined') return;
  if (event.event === 'Drop') throw new DropEvent('internal traffic');
  if (event.event === 'Retry') throw new RetryError('the API said 503');
  if (event.event === 'Fan') return [{ ...event, event: 'A' }, { ...event, event: 'B' }];
  if (event.event === 'None') return [];
  if (event.event === 'Throw') return explode(event);
  if (event.event === 'BigInt') return { ...event, properties: { total: 10n } };
  if (event.event === 'Function') return { ...event, properties: { items: [1, () => 2] } };
  if (event.event === 'Cycle') { event.properties.self = event.properties; return event; }
  if (event.event === 'Map') return { ...event, properties: { m: new Map() } };
  if (event.event === 'String') return 'done';
  if (event.event === 'FanString') return [event, 'x'];
  if (event.event === 'Invalid') throw new ValidationError('userId is required');
  if (event.event === 'Thrown string') throw 'just a string';
  return { ...event, event: event.event.toUpperCase() };
}

function explode(event) {
  const list = event.properties.missing;
  return list.length;
}

function onIdentify(event, settings) {
  // Segment's (event, settings) form: the settings' own keys on the second argument.
  return { ...event, traits: { ...event.traits, plan: settings.plan, app: settings.settings.app } };
}
`;

let dir: string;
let file: string;
let transformer: Transformer;
const SETTINGS = { app: 'shop', plan: 'pro' };

const track = (name: string) => ({ type: 'track', event: name, userId: 'u1', messageId: `m-${name}`, properties: { price: 3 } });

async function one(event: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<TransformOutcome> {
  const [outcome] = await transformer.run(file, [{ event, settings: SETTINGS }], options);
  return outcome!;
}

beforeAll(() => {
  dir = tempDir('sluice-transform-');
  file = path.join(dir, 'amp.js');
  fs.writeFileSync(file, SOURCE);
  transformer = createTransformer();
});

afterAll(async () => {
  await transformer.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a transform call comes to', () => {
  it('a changed event, with the version and the log lines (log and console)', async () => {
    const outcome = await one(track('Order Completed'));
    const version = transformer.loaded(file).version;
    expect(version).toMatch(/^[0-9a-f]{12}$/);
    expect(outcome).toMatchObject({ kind: 'events', changed: true, version, events: [{ ...track('Order Completed'), event: 'ORDER COMPLETED' }] });
    expect(outcome.logs).toEqual([
      { level: 'log', text: 'tracking Order Completed for shop' },
      { level: 'warn', text: 'a warning' },
    ]);
    expect(outcome.ms).toBeGreaterThanOrEqual(0);
  });

  it('the event unchanged when returned as it came, and changed when mutated in place', async () => {
    expect(await one(track('Unchanged'))).toMatchObject({ kind: 'events', changed: false, events: [track('Unchanged')] });
    expect(await one(track('Mutate'))).toMatchObject({ kind: 'events', changed: true, events: [{ ...track('Mutate'), properties: { price: 3, seen: true } }] });
  });

  it('the event unchanged for a type with no handler and no onEvent', async () => {
    const page = { type: 'page', name: 'Home', messageId: 'p1' };
    expect(await one(page)).toMatchObject({ kind: 'events', changed: false, events: [page] });
  });

  it("Segment's (event, settings) form: the settings' keys on the second argument, beside settings itself", async () => {
    const outcome = await one({ type: 'identify', userId: 'u1', traits: { email: 'a@b.c' } });
    expect(outcome).toMatchObject({ kind: 'events', events: [{ traits: { email: 'a@b.c', plan: 'pro', app: 'shop' } }] });
  });

  it('dropped, with the reason: null, nothing, an empty array, DropEvent', async () => {
    expect(await one(track('Null'))).toMatchObject({ kind: 'dropped', reason: 'onTrack returned null' });
    expect(await one(track('Undefined'))).toMatchObject({ kind: 'dropped', reason: 'onTrack returned nothing' });
    expect(await one(track('None'))).toMatchObject({ kind: 'dropped', reason: 'onTrack returned an empty array' });
    expect(await one(track('Drop'))).toMatchObject({ kind: 'dropped', reason: 'internal traffic' });
  });

  it('a fan-out: each event of the array', async () => {
    expect(await one(track('Fan'))).toMatchObject({ kind: 'events', changed: true, events: [{ ...track('Fan'), event: 'A' }, { ...track('Fan'), event: 'B' }] });
  });

  it('retry: RetryError, with its message', async () => {
    expect(await one(track('Retry'))).toMatchObject({ kind: 'retry', message: 'the API said 503' });
  });

  it('failed: a throw, with its message and a stack pointing into the file (its name, the line)', async () => {
    const outcome = await one(track('Throw'));
    expect(outcome).toMatchObject({ kind: 'failed', code: 'error', message: "TypeError: Cannot read properties of undefined (reading 'length')" });
    const stack = (outcome as { stack: string }).stack.split('\n');
    expect(stack[0]).toBe("TypeError: Cannot read properties of undefined (reading 'length')");
    // explode()'s line, then onTrack's calling it; no frame of the runtime's own.
    const line = (text: string) => SOURCE.split('\n').findIndex((l) => l.includes(text)) + 1;
    expect(stack.slice(1)).toEqual([`    at explode (${file}:${line('return list.length')}:15)`, `    at onTrack (${file}:${line("=== 'Throw'")}:39)`]);
  });

  it('failed: ValidationError and a thrown non-error', async () => {
    expect(await one(track('Invalid'))).toMatchObject({ kind: 'failed', code: 'error', message: 'ValidationError: userId is required' });
    expect(await one(track('Thrown string'))).toMatchObject({ kind: 'failed', code: 'error', message: "the transform threw 'just a string' (not an Error)" });
  });

  it('not-json: what JSON cannot carry, saying what and where', async () => {
    expect(await one(track('BigInt'))).toMatchObject({ kind: 'failed', code: 'not-json', message: 'onTrack returned what JSON cannot carry: a BigInt (10n) at properties.total' });
    expect(await one(track('Function'))).toMatchObject({ kind: 'failed', code: 'not-json', message: 'onTrack returned what JSON cannot carry: a function at properties.items[1]' });
    expect(await one(track('Cycle'))).toMatchObject({ kind: 'failed', code: 'not-json', message: 'onTrack returned what JSON cannot carry: a cycle (an object that contains itself) at properties.self' });
    expect(await one(track('Map'))).toMatchObject({ kind: 'failed', code: 'not-json', message: 'onTrack returned what JSON cannot carry: a Map (JSON would turn it into {} or lose it) at properties.m' });
    expect(await one(track('String'))).toMatchObject({ kind: 'failed', code: 'not-json', message: "onTrack returned a string ('done'); return the event (an object), an array of events to send several, or null to drop it" });
    expect(await one(track('FanString'))).toMatchObject({ kind: 'failed', code: 'not-json', message: "onTrack returned an array whose item [1] is a string ('x'); each item must be an event (an object)" });
  });

  it('the input is a copy: what the handler changes in it is not seen by the caller', async () => {
    const event = track('Mutate');
    const before = structuredClone(event);
    await transformer.run(file, [{ event, settings: SETTINGS }]);
    expect(event).toEqual(before);
  });

  it("each call gets its own copy of the event and the settings: what one call changes, the next does not see", async () => {
    const source = `function onTrack(event, { settings }) {
      event.properties.count = (event.properties.count ?? 0) + 1;
      settings.calls = (settings.calls ?? 0) + 1;
      return { ...event, seen: settings.calls };
    }`;
    const event = { type: 'track', event: 'x', properties: {} };
    const settings = { app: 'shop' };
    const outcomes = await transformer.runSource(source, [{ event, settings }, { event, settings }, { event, settings }]);
    expect(outcomes.map((o) => (o.kind === 'events' ? o.events[0] : o))).toEqual(Array.from({ length: 3 }, () => ({ ...event, properties: { count: 1 }, seen: 1 })));
    expect({ event, settings }).toEqual({ event: { type: 'track', event: 'x', properties: {} }, settings: { app: 'shop' } });
  });

  it('many calls in one batch: each its own outcome, in order', async () => {
    const names = Array.from({ length: 600 }, (_, i) => ['Null', 'Fan', 'Retry', `e${i}`][i % 4]!);
    const outcomes = await transformer.run(file, names.map((name) => ({ event: track(name), settings: SETTINGS })));
    expect(outcomes.map((o) => o.kind)).toEqual(names.map((_, i) => ['dropped', 'events', 'retry', 'events'][i % 4]));
    outcomes.forEach((o, i) => {
      if (i % 4 === 3) expect(o).toMatchObject({ events: [{ event: `E${i}` }] });
    });
  });

  it('runSource: the given text, not the file, named as unsaved in its stacks', async () => {
    const [outcome] = await transformer.runSource('function onEvent(event) {\n  throw new Error("from the editor");\n}', [{ event: track('x'), settings: {} }]);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'error', message: 'Error: from the editor', stack: 'Error: from the editor\n    at onEvent (unsaved-transform.js:2:9)' });
  });

  it('a source that does not compile: every call fails `load`, naming the line', async () => {
    const outcomes = await transformer.runSource('function onTrack(event) {\n  return event +;\n}', [{ event: track('x'), settings: {} }, { event: track('y'), settings: {} }]);
    expect(outcomes.map((o) => [o.kind, (o as { code?: string }).code, (o as { message?: string }).message])).toEqual([
      ['failed', 'load', "the transform unsaved-transform.js does not compile: SyntaxError: Unexpected token ';' (unsaved-transform.js, line 2, column 17)"],
      ['failed', 'load', "the transform unsaved-transform.js does not compile: SyntaxError: Unexpected token ';' (unsaved-transform.js, line 2, column 17)"],
    ]);
  });

  it('a top level that throws: every call fails `load` with its message', async () => {
    const [outcome] = await transformer.runSource('const key = settings.key;\nfunction onTrack(e) { return e }', [{ event: track('x'), settings: {} }]);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'load', message: 'the transform unsaved-transform.js could not be loaded: its top level threw ReferenceError: settings is not defined' });
  });

  it('module.exports and exports.onX define handlers too; onEvent is the fallback for the other types', async () => {
    const source = 'module.exports = { onTrack: (e) => ({ ...e, via: "module.exports" }) };\nexports.onEvent = (e) => ({ ...e, via: "onEvent" });';
    const outcomes = await transformer.runSource(source, [{ event: track('x'), settings: {} }, { event: { type: 'page' }, settings: {} }]);
    // module.exports was replaced, so exports.onEvent (the old object) is not a handler: the page is unchanged.
    expect(outcomes).toMatchObject([{ events: [{ via: 'module.exports' }] }, { changed: false, events: [{ type: 'page' }] }]);
    const [viaExports] = await transformer.runSource('exports.onEvent = (e) => ({ ...e, via: "onEvent" });', [{ event: { type: 'page' }, settings: {} }]);
    expect(viaExports).toMatchObject({ events: [{ type: 'page', via: 'onEvent' }] });
    const [viaConst] = await transformer.runSource('const onEvent = async (e) => ({ ...e, via: "const" });', [{ event: { type: 'screen' }, settings: {} }]);
    expect(viaConst).toMatchObject({ events: [{ type: 'screen', via: 'const' }] });
  });
});
