// What a transform's code can reach in its sandbox (electron/core/transforms/sandbox.ts): what it is
// given, and what each attempt at Node's own (require, process, the file system, import) sees. Real
// worker threads; docs/transforms.md states the trust model these tests hold it to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTransformer, type Transformer } from '../../../electron/core/transforms/index.ts';

let transformer: Transformer;
beforeAll(() => {
  transformer = createTransformer();
});
afterAll(() => transformer.close());

/** Runs `body` (the inside of an async onTrack returning what it found) on one event; its `seen`. */
async function seen(body: string): Promise<Record<string, unknown>> {
  const source = `const attempt = (f) => { try { return String(f()); } catch (e) { return e.name + ': ' + e.message; } };
async function onTrack(event) {
  ${body}
}`;
  const [outcome] = await transformer.runSource(source, [{ event: { type: 'track', event: 'x' }, settings: {} }]);
  if (outcome!.kind !== 'events') throw new Error(`the probe failed: ${JSON.stringify(outcome)}`);
  return outcome!.events[0]!.seen as Record<string, unknown>;
}

describe('the sandbox', () => {
  it("holds no require, process, Buffer, file system or Node globals: each is a ReferenceError or undefined", async () => {
    expect(
      await seen(`return { ...event, seen: {
        require: attempt(() => require('node:fs')),
        process: attempt(() => process.pid),
        fs: attempt(() => fs.readFileSync('/etc/passwd')),
        Buffer: typeof Buffer,
        global: typeof global,
        setImmediate: typeof setImmediate,
        setInterval: typeof setInterval,
        dirname: typeof __dirname,
        viaGlobalThis: typeof globalThis.process,
        viaEventConstructor: attempt(() => event.constructor.constructor('return typeof process')()),
      } };`),
    ).toEqual({
      require: 'ReferenceError: require is not defined',
      process: 'ReferenceError: process is not defined',
      fs: 'ReferenceError: fs is not defined',
      Buffer: 'undefined',
      global: 'undefined',
      setImmediate: 'undefined',
      setInterval: 'undefined',
      dirname: 'undefined',
      viaGlobalThis: 'undefined',
      // The event is made in the sandbox's own realm: its constructors lead back into the sandbox.
      viaEventConstructor: 'undefined',
    });
  });

  it('refuses import(): it rejects, and a static import does not compile', async () => {
    expect(await seen(`let imported; try { await import('node:fs'); imported = 'imported'; } catch (e) { imported = e.code; } return { ...event, seen: { imported } };`)).toEqual({
      imported: 'ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING',
    });
    const [outcome] = await transformer.runSource("import fs from 'node:fs';\nfunction onTrack(e) { return e }", [{ event: { type: 'track' }, settings: {} }]);
    expect(outcome).toMatchObject({ kind: 'failed', code: 'load', message: 'the transform unsaved-transform.js does not compile: SyntaxError: Cannot use import statement outside a module (unsaved-transform.js, line 1, column 1)' });
  });

  it('gives what a call may use: fetch, URL, TextEncoder/Decoder, atob/btoa, structuredClone, crypto.randomUUID, timers, the error classes', async () => {
    expect(
      await seen(`await new Promise((resolve) => setTimeout(resolve, 1));
      const id = setTimeout(() => { throw new Error('cleared, never runs'); }, 5); clearTimeout(id);
      return { ...event, seen: {
        fetch: typeof fetch,
        url: new URL('/p?q=1', 'https://example.com').href,
        params: new URLSearchParams({ a: 'b c' }).toString(),
        encoded: new TextDecoder().decode(new TextEncoder().encode('é')),
        base64: atob(btoa('hi')),
        clone: structuredClone({ a: [1] }).a[0],
        uuid: /^[0-9a-f-]{36}$/.test(crypto.randomUUID()),
        errors: [RetryError, DropEvent, EventNotSupported, ValidationError].map((E) => new E('m') instanceof Error && new E('m').name),
      } };`),
    ).toEqual({
      fetch: 'function',
      url: 'https://example.com/p?q=1',
      params: 'a=b+c',
      encoded: 'é',
      base64: 'hi',
      clone: 1,
      uuid: true,
      errors: ['RetryError', 'DropEvent', 'EventNotSupported', 'ValidationError'],
    });
  });

  it('an error thrown in a timer or an unawaited promise is logged to its call, not fatal to the worker', async () => {
    const source = `async function onTrack(event) {
      Promise.reject(new Error('unawaited'));
      await new Promise((resolve) => { setTimeout(() => { throw new Error('in a timer'); }, 1); setTimeout(resolve, 20); });
      return event;
    }`;
    const [first] = await transformer.runSource(source, [{ event: { type: 'track' }, settings: {} }]);
    expect(first).toMatchObject({ kind: 'events', changed: false });
    expect(first!.logs.map((l) => [l.level, l.text.split('\n')[0]])).toEqual([
      ['error', 'unhandled rejection: Error: unawaited'],
      ['error', 'uncaught in a setTimeout callback: Error: in a timer'],
    ]);
    const [second] = await transformer.runSource(source, [{ event: { type: 'track' }, settings: {} }]);
    expect(second).toMatchObject({ kind: 'events' });
  });

  it('logs are bounded: 100 lines of at most 2,000 characters, the cut said', async () => {
    const [outcome] = await transformer.runSource("function onTrack(e) { for (let i = 0; i < 150; i++) console.log(i === 0 ? 'x'.repeat(2500) : 'line ' + i); return e; }", [{ event: { type: 'track' }, settings: {} }]);
    const logs = outcome!.logs;
    expect(logs).toHaveLength(100);
    expect(logs[0]!.text).toBe(`${'x'.repeat(2000)}… (cut: 500 more characters)`);
    expect(logs[98]).toEqual({ level: 'log', text: 'line 98' });
    expect(logs[99]).toEqual({ level: 'warn', text: '… 51 more lines not kept (a call keeps 99 lines and this note)' });
  });

  it("a call's logs are its own, also after an await (calls of a batch run concurrently)", async () => {
    const source = `async function onTrack(event) {
      console.log('start', event.n);
      await new Promise((resolve) => setTimeout(resolve, 10 * (3 - event.n)));
      console.log('end', event.n);
      return event;
    }`;
    const outcomes = await transformer.runSource(source, [0, 1, 2].map((n) => ({ event: { type: 'track', n }, settings: {} })));
    expect(outcomes.map((o) => o.logs.map((l) => l.text))).toEqual([['start 0', 'end 0'], ['start 1', 'end 1'], ['start 2', 'end 2']]);
  });
});
