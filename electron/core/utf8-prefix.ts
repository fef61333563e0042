/**
 * The first `limit` bytes of UTF-8 text, cut at a character boundary (never inside a character):
 * what is kept of a response body or of a body the built-in receiver got.
 */
export function utf8Prefix(bytes: Buffer, limit: number): Buffer {
  if (bytes.length <= limit) return bytes;
  let end = limit;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--; // back off continuation bytes
  return bytes.subarray(0, end);
}
