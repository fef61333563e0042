// NDJSON that survives every reader (issue 24, point 1): what the export writes is read back whole by
// `sluice import`, `sluice check`, the inspector's drop and any reader that also ends lines at U+2028 and
// U+2029 (Node's readline, some editors), and the export's `message` is the stored text byte for byte
// (an integer past 2^53 is not rounded). A round trip through two real relays and the real CLI, with
// the texts other encoders write: U+2028, U+2029 and NEL raw inside strings, lone surrogates escaped
// (as Python writes them), emoji, integers past 2^53, a pretty-printed body, a 1 MB line and CRLF files.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { UiServer } from '../../../electron/host/ui-server.ts';
import { CLI, startCli } from '../../helpers/cli.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';

const LS = '\u2028';
const PS = '\u2029';
const NEL = '\u0085';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sluice(args: string[], cwd: string): Promise<Run> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

const cores: TestCore[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.dispose();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function relay(writeKey: string): Promise<TestCore> {
  const core = await startCore({ config: { sources: [{ name: 'web', writeKey, kind: 'web' }], destinations: [] } });
  core.writeKey = writeKey;
  cores.push(core);
  return core;
}

function scratch(): string {
  const dir = tempDir('sluice-ndjson-');
  dirs.push(dir);
  return dir;
}

/** The lines a reader that also ends lines at U+2028, U+2029 and a lone \r gets (Node's readline does). */
const readlineLines = (text: string) => text.split(/\r\n|\n|\r|\u2028|\u2029/).filter((l) => l !== '');

/** An export line's `message` as written: the text between `{"message":` and the line's own `,"id":` (metadata follows it). */
function messageText(line: string): string {
  const id = (JSON.parse(line) as { id: number }).id;
  expect(line.startsWith('{"message":')).toBe(true);
  return line.slice('{"message":'.length, line.lastIndexOf(`,"id":${id},`));
}

/** A value with every number as its text, as written (JSON.parse would round 12345678901234567890). */
const exact = (text: string): unknown => JSON.parse(text, (_key, value, context?: { source?: string }) => (typeof value === 'number' ? `#${context!.source}` : value));

/** Texts as other encoders write them; built by hand, since JSON.stringify would write them its own way. */
const ODD = `{"type":"track","event":"Odd Text","userId":"u_1","messageId":"odd-1","properties":{"ls":"a${LS}b","ps":"c${PS}d","nel":"e${NEL}f","emoji":"🚀 launch 👩‍💻","lone":"\\ud800 alone","low":"\\udc00","pair":"\\ud83d\\ude80","accent":"\\u00e9t\\u00e9","2":"an integer-like key after others"}}`;
const BIG = `{"type":"track","event":"Big Numbers","userId":"u_1","messageId":"big-1","properties":{"order":12345678901234567890,"neg":-98765432109876543210,"long":0.1000000000000000055511151231257827,"one":1.0,"exp":1E5}}`;
const PRETTY = `{\n  "userId": "u_2",\n  "event": "Pretty${LS}Printed",\n  "messageId": "pretty-1",\n  "properties": {\n    "id": 12345678901234567890\n  }\n}`;

describe('NDJSON through export and import', () => {
  it('a round trip through two relays keeps every message, byte for byte, whatever its text; readers take CRLF files and a 1 MB line', async () => {
    const a = await relay('wk_a');
    const dir = scratch();
    expect((await post(a, '/v1/batch', `{"batch":[${ODD},${BIG}]}`)).status).toBe(200);
    // The measured case: one U+2028 in a batch-level context, which every message of the batch carries in the export.
    const batch = Array.from({ length: 5 }, (_, i) => `{"type":"track","event":"In Context","userId":"u_3","messageId":"ctx-${i}"}`);
    expect((await post(a, '/v1/batch', `{"context":{"page":{"title":"Home${LS}Page"},"library":{"name":"raw"}},"batch":[${batch.join(',')}]}`)).status).toBe(200);
    // A single call whose body is pretty-printed over lines: its line in the export is still one line.
    expect((await post(a, '/v1/track', PRETTY)).status).toBe(200);
    // A CRLF file with a 1 MB line (a batch of 40 messages of 26 KB) and a message with U+2028 raw inside a string.
    const blob = 'x'.repeat(26_000);
    const bigLine = JSON.stringify({ batch: Array.from({ length: 40 }, (_, i) => ({ type: 'track', event: 'Heavy', userId: 'u_4', messageId: `heavy-${i}`, properties: { blob, i } })) });
    expect(bigLine.length).toBeGreaterThan(1_000_000);
    fs.writeFileSync(path.join(dir, 'crlf.ndjson'), `${bigLine}\r\n${JSON.stringify({ type: 'identify', userId: 'u_5', messageId: 'crlf-2', traits: { bio: `line${LS}next${PS}para` } })}\r\n`);
    const seeded = await sluice(['import', 'crlf.ndjson', '--write-key', 'wk_a', '--url', a.ingestUrl], dir);
    expect(seeded.stdout.split('\n')[0]).toBe(`imported crlf.ndjson into ${a.ingestUrl} (with the write key given): 41 messages sent, 41 accepted, 0 refused, 0 unreadable lines`);
    expect(seeded.code).toBe(0);

    const exported = await sluice(['export', '--data-dir', a.dataDir, '--out', 'a.ndjson'], dir);
    expect(exported).toEqual({ code: 0, stdout: '', stderr: 'exported 49 messages to a.ndjson\n' });
    const text = fs.readFileSync(path.join(dir, 'a.ndjson'), 'utf8');
    // Escaped, so that a reader ending lines there reads the same 49 lines.
    expect(text).not.toMatch(/[\u2028\u2029]/);
    expect(text.split('\n').filter(Boolean)).toHaveLength(49);
    expect(readlineLines(text)).toEqual(text.split('\n').filter(Boolean));
    const lines = text.split('\n').filter(Boolean);
    const line = (messageId: string) => lines.find((l) => (JSON.parse(l) as { messageId: string }).messageId === messageId)!;
    // "As the client sent it": the stored text, its U+2028/U+2029 escaped, every other byte as stored.
    const raw = (messageId: string) => a.messages.get(a.messages.list({ limit: 100 }).find((m) => m.messageId === messageId)!.id)!.raw;
    expect(messageText(line('odd-1'))).toBe(ODD.replaceAll(LS, '\\u2028').replaceAll(PS, '\\u2029'));
    expect(raw('odd-1')).toBe(ODD);
    expect(messageText(line('big-1'))).toBe(BIG);
    for (let i = 0; i < 5; i++) {
      expect(exact(messageText(line(`ctx-${i}`)))).toEqual({ type: 'track', event: 'In Context', userId: 'u_3', messageId: `ctx-${i}`, context: { page: { title: `Home${LS}Page` }, library: { name: 'raw' } } });
    }
    // The endpoint's type added; the rest as posted, on one line.
    expect(exact(messageText(line('pretty-1')))).toEqual({ userId: 'u_2', event: `Pretty${LS}Printed`, messageId: 'pretty-1', properties: { id: '#12345678901234567890' }, type: 'track' });

    // Into relay B through its ingestion: every message accepted, no line unreadable.
    const b = await relay('wk_b');
    const imported = await sluice(['import', 'a.ndjson', '--write-key', 'wk_b', '--url', b.ingestUrl], dir);
    expect(imported.stdout.split('\n')[0]).toBe(`imported a.ndjson into ${b.ingestUrl} (with the write key given): 49 messages sent, 49 accepted, 0 refused, 0 unreadable lines`);
    expect(imported.code).toBe(0);
    const again = (await sluice(['export', '--data-dir', b.dataDir], dir)).stdout.split('\n').filter(Boolean);
    // The same messages in the same order, each message byte for byte.
    expect(again.map((l) => (JSON.parse(l) as { messageId: string }).messageId)).toEqual(lines.map((l) => (JSON.parse(l) as { messageId: string }).messageId));
    again.forEach((l, i) => expect(messageText(l), (JSON.parse(l) as { messageId: string }).messageId).toBe(messageText(lines[i]!)));
    expect(messageText(again.find((l) => l.includes('"messageId":"big-1"'))!)).toBe(BIG);
  });
});

describe('every other NDJSON reader and writer', () => {
  it('sluice check reads a CRLF file whose strings hold U+2028, and its --json lines are escaped', async () => {
    const dir = scratch();
    fs.writeFileSync(path.join(dir, 'plan.json'), JSON.stringify({ events: { [`Sign${LS}Up`]: { type: 'object', properties: { plan: { type: 'string' } } } } }));
    const messages = [
      { type: 'track', event: `Sign${LS}Up`, userId: 'u', messageId: 'c-1', properties: { plan: 3 } },
      { type: 'track', event: `Sign${LS}Up`, userId: 'u', messageId: 'c-2', properties: { plan: `pro${PS}` } },
    ];
    fs.writeFileSync(path.join(dir, 'in.ndjson'), `\uFEFF${messages.map((m) => JSON.stringify(m)).join('\r\n')}\r\n`);
    const human = await sluice(['check', '--plan', 'plan.json', 'in.ndjson'], dir);
    expect(human.stdout.split('\n').at(-2)).toBe(`checked 2 messages against "plan.json" (sluice format): 1 with violations (1 violation), 0 unreadable lines`);
    const json = await sluice(['check', '--plan', 'plan.json', '--json', 'in.ndjson'], dir);
    expect(json.stdout).not.toMatch(/[\u2028\u2029]/);
    const lines = readlineLines(json.stdout).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      expect.objectContaining({ file: 'in.ndjson', line: 1, messageId: 'c-1', event: `Sign${LS}Up`, violations: [expect.objectContaining({ type: 'Datatype-Mismatch' })] }),
      { summary: expect.objectContaining({ messages: 2, withViolations: 1, unreadable: 0 }) },
    ]);
  });

  it("the inspector's drop reads a CRLF file; its download and the HTTP export write U+2028 escaped", async () => {
    const a = await relay('wk_a');
    expect((await post(a, '/v1/batch', `{"context":{"note":"x${LS}y"},"batch":[${ODD},${BIG}]}`)).status).toBe(200);
    const download = await a.operations['messages.export']({ filter: {}, format: 'ndjson' });
    expect(download.text).not.toMatch(/[\u2028\u2029]/);
    expect(readlineLines(download.text)).toHaveLength(2);
    expect(messageText(readlineLines(download.text)[1]!)).toBe(`${BIG.slice(0, -1)},"context":{"note":"x\\u2028y"}}`);
    // The HTTP export: the same lines as sluice export, as streamed.
    const ui = new UiServer({ core: a, host: '127.0.0.1', port: 0 });
    await ui.listen();
    try {
      const streamed = await (await request(`${ui.apiUrl}/export`, { headers: { authorization: `Bearer ${ui.token}` } })).body.text();
      expect(streamed).toBe(download.text);
      expect(streamed).toBe((await sluice(['export', '--data-dir', a.dataDir], scratch())).stdout);
    } finally {
      await ui.close();
    }

    const b = await relay('wk_b');
    const crlf = `${download.text.split('\n').filter(Boolean).join('\r\n')}\r\n${JSON.stringify({ type: 'track', event: `Raw${LS}Event`, userId: 'u', messageId: 'raw-ls' })}\r\n`;
    const outcome = await b.operations['messages.import']({ sourceId: b.sources.byName('web')!.id, fileName: 'drop.ndjson', text: crlf });
    expect(outcome).toMatchObject({ format: 'ndjson', sent: 3, accepted: 3, refused: [], unreadable: [] });
    const again = await b.operations['messages.export']({ filter: {}, format: 'ndjson' });
    const texts = readlineLines(again.text).map(messageText);
    expect(texts.slice(0, 2)).toEqual(readlineLines(download.text).map(messageText));
    expect(exact(texts[2]!)).toEqual({ type: 'track', event: `Raw${LS}Event`, userId: 'u', messageId: 'raw-ls' });
  });

  it("serve's --json ready line is one line for readline too, whatever the data folder's name", async () => {
    const dataDir = path.join(scratch(), `data${LS}folder`);
    const serving = await startCli(['--data-dir', dataDir]); // its ready line is read with Node's readline
    try {
      expect(serving.ready.dataDir).toBe(dataDir);
    } finally {
      await serving.stop();
    }
  });
});
