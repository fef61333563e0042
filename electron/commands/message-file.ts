/**
 * A file of messages as the commands read it (`sluice import`, `sluice plan infer --from`, `sluice plan
 * coverage --from`): NDJSON lines — an export's, a batch, a page of the HTTP API, a message — or a HAR
 * document of Tracking API calls (core/transfer/import-parse.ts tells them apart), read a line or an
 * entry at a time.
 */
import { harMessages, isHar, parseLine, type Parsed } from '../core/transfer/import-parse.ts';
import { readLines } from './ndjson.ts';

/**
 * The file's messages, a line (or a HAR entry) at a time. A HAR file is one JSON document over many
 * lines, so its first line is not JSON on its own: then the whole file is read and parsed as one
 * document (a HAR, or any pretty-printed JSON input); when it is none, its lines are read as lines.
 */
export async function* messageFile(file: string, name: string): AsyncGenerator<Parsed> {
  let buffered: { line: number; text: string }[] | undefined;
  let decided = false;
  for await (const { line, text } of readLines(file)) {
    if (buffered) {
      buffered.push({ line, text });
      continue;
    }
    if (text.trim() === '') continue;
    if (!decided) {
      decided = true;
      if (!parses(text) && /^\s*[{[]/.test(text)) {
        buffered = [{ line, text }];
        continue;
      }
    }
    yield one(text, `${name}:${line}`, name);
  }
  if (!buffered) return;
  const whole = buffered.map((l) => l.text).join('\n');
  let document: unknown;
  try {
    document = JSON.parse(whole);
  } catch {
    for (const { line, text } of buffered) if (text.trim() !== '') yield one(text, `${name}:${line}`, name);
    return;
  }
  yield isHar(document) ? harMessages(document as Record<string, unknown>, name) : one(whole, `${name}:${buffered[0]!.line}`, name);
}

function one(text: string, where: string, name: string): Parsed {
  const parsed = parseLine(text, where);
  return 'har' in parsed ? harMessages(parsed.har, name) : parsed;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
