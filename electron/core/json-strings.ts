// Reading JSON text without parsing it: where a string ends. Ingestion cuts a batch into its messages
// (ingest/batch-slices.ts) and an export splices a stored message's members (transfer/json-text.ts).

const BACKSLASH = 92;

/** Index of the quote that closes the string opening at `open`; indexOf is far faster than a loop. */
export function closingQuote(text: string, open: number): number {
  let i = text.indexOf('"', open + 1);
  while (i !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(i - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return i;
    i = text.indexOf('"', i + 1);
  }
  return text.length;
}
