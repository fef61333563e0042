// checkTransformSource: what the inspector calls before saving a transform — compiled, never run.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkTransformSource } from '../../../electron/core/transforms/index.ts';
import { versionOf } from '../../../electron/core/transforms/source-check.ts';

describe('checkTransformSource', () => {
  it('a source that compiles: ok, with the handler names it defines (comments and strings are not definitions)', () => {
    const source = [
      '// onPage is not defined here; neither is "onGroup(" in a string',
      "const note = 'onScreen(';",
      'async function onTrack(event) { return event; }',
      'exports.onIdentify = (event) => event;',
      'module.exports.onAlias = function (event) { return event; };',
      'const onEvent = async (event) => event;',
    ].join('\n');
    expect(checkTransformSource(source, 'amp.js')).toEqual({ ok: true, handlers: ['onTrack', 'onIdentify', 'onAlias', 'onEvent'] });
  });

  it('a syntax error: its message, line and column (1-based), naming the file', () => {
    expect(checkTransformSource('function onTrack(event) {\n  return { ...event, a: 1 ;\n}', '/home/me/amp.js')).toEqual({
      ok: false,
      message: "SyntaxError: Unexpected token ';' (/home/me/amp.js, line 2, column 27)",
      line: 2,
      column: 27,
    });
    expect(checkTransformSource('function onTrack(event) {\n  return event;\n', 'amp.js')).toMatchObject({ ok: false, message: 'SyntaxError: Unexpected end of input (amp.js, line 3, column 1)', line: 3, column: 1 });
  });

  it('runs nothing: a top level that would loop forever or throw is only compiled', () => {
    expect(checkTransformSource('while (true) {}\nthrow new Error("ran");\nfunction onTrack(e) { return e }', 'amp.js')).toEqual({ ok: true, handlers: ['onTrack'] });
  });

  it("a version is the first 12 hex digits of the source's SHA-256", () => {
    const source = 'function onTrack(e) { return e }';
    expect(versionOf(source)).toBe(createHash('sha256').update(source, 'utf8').digest('hex').slice(0, 12));
    expect(versionOf(source)).toHaveLength(12);
    expect(versionOf(`${source} `)).not.toBe(versionOf(source));
  });
});
