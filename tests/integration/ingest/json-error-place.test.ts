// Issue 29, point 6: a request whose body is not JSON is stored as a rejected entry that says where
// the JSON breaks — line and column, counted on the whole body (the entry keeps only its first KB) —
// and carries the lines around it with the column marked, for the inspector's detail and the HTTP
// API's message view. A real core (real SQLite file, real HTTP on loopback) and its HTTP API.
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { UiServer } from '../../../electron/host/ui-server.ts';
import type { JsonErrorPlace } from '../../../shared/json-error-place.ts';
import { post, startCore, storedMessages, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

async function relay(): Promise<TestCore> {
  const core = await startCore();
  open.push({ close: () => core.dispose() });
  return core;
}

/** Posts `body` (refused as invalid_json) and reads back its stored entry's reason and place. */
async function refuse(core: TestCore, body: string | Buffer): Promise<{ reason: string; place: JsonErrorPlace; raw: string }> {
  const before = storedMessages(core, 'rejected').length;
  const res = await post(core, '/v1/batch', body);
  expect(res.json.error.code).toBe('invalid_json');
  const entry = await until(() => storedMessages(core, 'rejected')[before]);
  return { reason: entry.rejectReason!, place: JSON.parse(entry.raw).jsonError, raw: entry.raw };
}

/** The error line's text with the marked character (what the inspector draws a caret under). */
const marked = (place: JsonErrorPlace) => [...place.lines.find((l) => l.number === place.line)!.text][place.mark];

describe('a body that is not JSON: the line and column it breaks at, and the text around it', () => {
  it('a multi-line body with a trailing comma: its line, column, the lines before and the one after', async () => {
    const core = await relay();
    const body = ['{', '  "batch": [', '    {"type": "track", "event": "A", "userId": "u1"},', '    {"type": "track", "event": "B",}', '  ]', '}'].join('\n');
    const { reason, place } = await refuse(core, body);
    // The "}" after the comma: line 4, the 35th character of `    {"type": "track", "event": "B",}` is "," so "}" is column 36.
    expect(reason).toMatch(/^the whole request was refused \(400\): the body is not valid JSON at line 4, column 36: /);
    expect(place).toMatchObject({ line: 4, column: 36, position: body.indexOf(',}') + 1 });
    expect(place.lines.map((l) => l.number)).toEqual([2, 3, 4, 5]);
    expect(place.lines.map((l) => l.text)).toEqual(['  "batch": [', '    {"type": "track", "event": "A", "userId": "u1"},', '    {"type": "track", "event": "B",}', '  ]']);
    expect(marked(place)).toBe('}');
  });

  it('one long line: the place far past the stored preview, the line cut to a window around the column', async () => {
    const core = await relay();
    const pad = 'a'.repeat(50_000);
    const body = `{"batch":[{"type":"track","event":"E","userId":"u","properties":{"pad":"${pad}"} oops}]}`;
    const { place, raw } = await refuse(core, body);
    const at = body.indexOf('oops');
    expect(place).toMatchObject({ line: 1, column: at + 1, position: at });
    expect(JSON.parse(raw).preview.length).toBeLessThan(1100); // the entry's preview ends long before it
    const [line] = place.lines;
    expect(place.lines).toHaveLength(1);
    expect(line!.text.startsWith('…aaaa')).toBe(true);
    expect([...line!.text].length).toBeLessThanOrEqual(82);
    expect(line!.text).toContain('"} oops}]}');
    expect(marked(place)).toBe('o');
  });

  it('a truncated body: the place is its end', async () => {
    const core = await relay();
    const body = '{"batch":[\n{"type":"track",\n"event":"Cut';
    const { reason, place } = await refuse(core, body);
    expect(reason).toMatch(/at line 3, column 13: unterminated string/);
    expect(place).toMatchObject({ line: 3, column: 13, position: body.length });
    expect(place.lines.map((l) => l.text)).toEqual(['{"batch":[', '{"type":"track",', '"event":"Cut']);
    expect(place.mark).toBe(12);
  });

  it('bytes that are not UTF-8, and characters beyond one UTF-16 unit: columns count characters', async () => {
    const core = await relay();
    // Line 2: "😀é" in a key (3 characters before the key's end, 4 UTF-16 units), then invalid bytes where a value belongs.
    const body = Buffer.concat([Buffer.from('{"batch":[],\n"😀é": '), Buffer.from([0xff, 0xfe]), Buffer.from('}')]);
    const { place } = await refuse(core, body);
    // `"😀é": ` is 6 characters; the first invalid byte (read as U+FFFD) is the 7th.
    expect(place).toMatchObject({ line: 2, column: 7 });
    expect(marked(place)).toBe('\uFFFD');
    expect(place.lines.at(-1)!.text).toBe('"😀é": \uFFFD\uFFFD}');
  });

  it("the HTTP API's message view carries the place", async () => {
    const core = await relay();
    await refuse(core, '{"batch": [1, 2,, 3]}');
    const ui = new UiServer({ core, host: '127.0.0.1', port: 0 });
    await ui.listen();
    open.push(ui);
    const res = await request(`${ui.apiUrl}/messages?limit=1`, { headers: { authorization: `Bearer ${ui.token}` } });
    const page = (await res.body.json()) as { messages: { jsonError: JsonErrorPlace; rejection: { reason: string } }[] };
    // V8's words without its echo of the body (which may hold anything the client sent).
    expect(page.messages[0]!.rejection.reason).toBe("the whole request was refused (400): the body is not valid JSON at line 1, column 17: unexpected token ','");
    expect(page.messages[0]!.jsonError).toMatchObject({ line: 1, column: 17, mark: 16, lines: [{ number: 1, text: '{"batch": [1, 2,, 3]}' }] });
  });
});
