import { randomFillSync } from 'node:crypto';

/*
 * Random (version 4) UUIDs for messageIds, like crypto.randomUUID() but formatted into one string
 * allocation: randomUUID() builds its text from dozens of two-character pieces (~600 bytes of
 * garbage per id), which under a tight loop of calls is the client's largest allocation.
 */
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const ENTROPY_BYTES = 16 * 256;
const entropy = Buffer.allocUnsafeSlow(ENTROPY_BYTES);
let used = ENTROPY_BYTES;
const text = Buffer.from('00000000-0000-4000-8000-000000000000', 'latin1');
/** Where each of the 16 bytes goes in the text (two hex digits each). */
const POSITIONS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** A random UUID (version 4, RFC 9562), from the cryptographic random source. */
export function messageId(): string {
  if (used === ENTROPY_BYTES) {
    randomFillSync(entropy);
    used = 0;
  }
  for (let i = 0; i < 16; i++) {
    let byte = entropy[used + i]!;
    if (i === 6) byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // variant 10
    const at = POSITIONS[i]!;
    text[at] = HEX[byte >> 4]!;
    text[at + 1] = HEX[byte & 0x0f]!;
  }
  used += 16;
  return text.toString('latin1', 0, 36);
}
