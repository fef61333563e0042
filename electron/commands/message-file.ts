/**
 * A file of messages as the commands read it (`sluice import`, `sluice plan infer --from`, `sluice plan
 * coverage --from`): NDJSON lines — an export's, a batch, a page of the HTTP API, a message — or a HAR
 * document of Tracking API calls (core/transfer/import-parse.ts tells them apart), read a line or an
 * entry at a time.
 */
import { harMessages, isHar, parseLine, type Parsed } from '../core/transfer/import-parse.ts';
import { readLines, tooLongLine } from './ndjson.ts';

/** Past this many characters a file whose first line is not JSON is not read as one document (V8's longest string is ~2^29). */
export const MAX_DOCUMENT_CHARS = 256 * 1024 * 1024;

/**
 * The file's messages, a line (or a HAR entry) at a time. A HAR file is one JSON document over many
 * lines, so its first line is not JSON on its own: then the lines are held to be parsed as one document
 * (a HAR, or any pretty-printed JSON input) — until two lines in a row (blank ones apart) are each a JSON
 * object on its own, which no JSON document can have (a comma stands between two values) but an NDJSON
 * file does: then the first line was a broken line of NDJSON, said so, and the file is read as lines from
 * there on, as it arrives. A document over MAX_DOCUMENT_CHARS is refused, saying so, rather than read
 * into one string.
 */
export async function* messageFile(file: string, name: string, maxDocumentChars = MAX_DOCUMENT_CHARS): AsyncGenerator<Parsed> {
  let held: { line: number; text: string }[] | undefined;
  let heldChars = 0;
  /** Whether the last non-blank line held was a JSON object on its own. */
  let lastWasObject = false;
  let decided = false;
  for await (const { line, text, tooLong } of readLines(file, maxDocumentChars)) {
    if (tooLong !== undefined) {
      // Never gathered: said, and the rest of the file read on as NDJSON — what was held so far too (no
      // document under the size Sluice reads holds a line that long).
      if (held) {
        for (const h of held) if (h.text.trim() !== '') yield one(h.text, `${name}:${h.line}`, name);
        held = undefined;
      }
      decided = true;
      yield { send: [], skipped: [], errors: [{ where: `${name}:${line}`, error: tooLongLine(tooLong, maxDocumentChars) }] };
      continue;
    }
    if (held) {
      const object = text.trim() !== '' && objectOnItsOwn(text);
      if (text.trim() === '' || !(object && lastWasObject)) {
        if (text.trim() !== '') lastWasObject = object;
        held.push({ line, text });
        heldChars += text.length + 1;
        if (heldChars <= maxDocumentChars) continue;
        const where = `${name}:${held[0]!.line}`;
        yield { send: [], skipped: [], errors: [{ where, error: `the line is not JSON, and read with the lines after it as one JSON document (a HAR file) the file is over ${(maxDocumentChars / 1024 / 1024).toLocaleString('en-US', { maximumFractionDigits: 3 })} MB, more than Sluice reads as one document: nothing read` }] };
        return;
      }
      // NDJSON after all: what was held, a line at a time (the first one unreadable), then the rest as it comes.
      for (const h of held) if (h.text.trim() !== '') yield one(h.text, `${name}:${h.line}`, name);
      held = undefined;
    }
    if (text.trim() === '') continue;
    if (!decided) {
      decided = true;
      if (!parses(text) && /^\s*[{[]/.test(text)) {
        held = [{ line, text }];
        heldChars = text.length;
        continue;
      }
    }
    yield one(text, `${name}:${line}`, name);
  }
  if (!held) return;
  const whole = held.map((l) => l.text).join('\n');
  let document: unknown;
  try {
    document = JSON.parse(whole);
  } catch {
    for (const { line, text } of held) if (text.trim() !== '') yield one(text, `${name}:${line}`, name);
    return;
  }
  yield isHar(document) ? harMessages(document as Record<string, unknown>, name) : one(whole, `${name}:${held[0]!.line}`, name);
}

/** A line that is a whole, non-empty JSON object by itself (a pretty-printed document's lines are not). */
function objectOnItsOwn(text: string): boolean {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}') || /^\{\s*\}$/.test(trimmed)) return false;
  return parses(trimmed);
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
