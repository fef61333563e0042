// How the commands read a file of messages (commands/message-file.ts: `sluice import`, `plan infer --from`,
// `plan coverage --from`) when its first line is not JSON: a HAR (one pretty-printed document) is read
// whole, but an NDJSON file whose first line is broken is read as lines, as they arrive — not held whole
// in memory until its end — and a document past the size Sluice reads as one is refused, saying so.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { messageFile } from '../../../electron/commands/message-file.ts';
import type { Parsed } from '../../../electron/core/transfer/import-parse.ts';
import { tempDir } from '../../helpers/core.ts';

const track = (n: number) => JSON.stringify({ type: 'track', event: 'Seen', userId: 'u', messageId: `m-${n}` });
const entry = (n: number) => ({
  request: { method: 'POST', url: 'http://127.0.0.1:1/v1/track', headers: [], postData: { mimeType: 'application/json', text: track(n) } },
  response: { status: 200 },
});

async function all(file: string, max?: number): Promise<Parsed[]> {
  const out: Parsed[] = [];
  for await (const parsed of messageFile(file, 'f', max)) out.push(parsed);
  return out;
}
const sent = (parsed: Parsed[]) => parsed.flatMap((p) => p.send.map((s) => (s.message as { messageId: string }).messageId));
const errors = (parsed: Parsed[]) => parsed.flatMap((p) => p.errors.map((e) => e.where));

describe('a file whose first line is not JSON', () => {
  it('is NDJSON with a broken first line once two lines in a row are JSON objects: read as it arrives, the first line unreadable', async () => {
    const dir = tempDir('sluice-message-file-');
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const reading = messageFile(fifo, 'pipe')[Symbol.asyncIterator]();
    const writer = fs.createWriteStream(fifo);
    // A first line cut short (a capture killed mid-write), then whole lines; the pipe stays open.
    writer.write(`{"type":"track","event":"Cut\n${track(2)}\n\n${track(3)}\n`);
    const got: Parsed[] = [];
    const deadline = new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 5_000));
    while (sent(got).length < 2) {
      const next = await Promise.race([reading.next(), deadline]);
      if (next === 'waiting') break; // held until the end of the file: what this test is against
      if (next.done) break;
      got.push(next.value);
    }
    expect(errors(got)).toEqual(['pipe:1']);
    expect(got[0]!.errors[0]!.error).toMatch(/^the line is not JSON/);
    expect(sent(got)).toEqual(['m-2', 'm-3']);
    writer.end(`${track(4)}\n`);
    const rest: Parsed[] = [];
    for (let next = await reading.next(); !next.done; next = await reading.next()) rest.push(next.value);
    expect(sent(rest)).toEqual(['m-4']);
  });

  it('is a document when no two lines in a row are objects: a HAR with its entries one to a line is read whole', async () => {
    const dir = tempDir('sluice-message-file-');
    const file = path.join(dir, 'capture.har');
    const entries = [1, 2, 3].map((n) => JSON.stringify(entry(n)));
    // The last entry is an object on a line of its own; the others end with a comma.
    fs.writeFileSync(file, `{"log": {"version": "1.2", "creator": {"name": "t", "version": "1"}, "entries": [\n${entries.join(',\n')}\n]}}\n`);
    const parsed = await all(file);
    expect(errors(parsed)).toEqual([]);
    expect(sent(parsed)).toEqual(['m-1', 'm-2', 'm-3']);
  });

  it('a line over the size Sluice reads as one: not gathered, said with its line, the lines after it read', async () => {
    const dir = tempDir('sluice-message-file-');
    const file = path.join(dir, 'long.ndjson');
    const long = JSON.stringify({ type: 'track', userId: 'u', event: 'Long', messageId: 'long', properties: { blob: 'x'.repeat(5_000) } });
    fs.writeFileSync(file, `${long}\n${track(1)}\n${track(2)}`);
    const parsed = await all(file, 2_000);
    // Before 2026-12-01 a line was gathered whatever its length (a file with no line end: "Invalid string length").
    expect(parsed.flatMap((p) => p.errors)).toEqual([{ where: 'f:1', error: `the line is ${long.length.toLocaleString('en-US')} characters long, over the 0.002 MB Sluice reads as one line: not read (one message or document per line, each under that)` }]);
    expect(sent(parsed)).toEqual(['m-1', 'm-2']);
    // After a first line that is not JSON (held, as a HAR's first line would be): the same, nothing dropped.
    fs.writeFileSync(file, `{"type": "track",\n${track(3)}\n${long}\n${track(4)}`);
    const afterBroken = await all(file, 2_000);
    expect(afterBroken.flatMap((p) => p.errors).map((e) => e.where)).toEqual(['f:1', 'f:3']);
    expect(sent(afterBroken)).toEqual(['m-3', 'm-4']);
  });

  it('past the size Sluice reads as one document: refused whole, saying so, nothing read', async () => {
    const dir = tempDir('sluice-message-file-');
    const file = path.join(dir, 'big.har');
    const har = { log: { version: '1.2', creator: { name: 't', version: '1' }, entries: Array.from({ length: 40 }, (_, n) => entry(n)) } };
    fs.writeFileSync(file, JSON.stringify(har, null, 2));
    expect(sent(await all(file))).toHaveLength(40); // under the default: read as a HAR
    const parsed = await all(file, 2_000);
    expect(parsed).toEqual([
      {
        send: [],
        skipped: [],
        errors: [{ where: 'f:1', error: 'the line is not JSON, and read with the lines after it as one JSON document (a HAR file) the file is over 0.002 MB, more than Sluice reads as one document: nothing read' }],
      },
    ]);
  });
});
