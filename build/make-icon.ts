// Draws the app icon, build/icon.png (512×512 RGBA), from which electron-builder makes every
// platform's icon (.icns, .ico, the Linux sizes). `node build/make-icon.ts` writes it again; the PNG
// is committed so that packaging needs nothing but this repository.
//
// The picture: a sluice gate — a rounded teal square, two posts and a lifted gate across them, and
// water flowing out under it as three waves. Drawn by hand (no image library): each pixel's colour
// is worked out from 4×4 samples, which smooths the edges.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const SIZE = 512;
const SAMPLES = 4;

type Rgba = [number, number, number, number];

const TOP: Rgba = [21, 94, 117, 255]; // #155e75
const BOTTOM: Rgba = [8, 145, 178, 255]; // #0891b2
const WHITE: Rgba = [255, 255, 255, 255];
const FOAM: Rgba = [207, 250, 254, 255]; // #cffafe

/** Distance-based shapes on a 512-unit canvas: true when (x, y) is inside. */
function roundedRect(x: number, y: number, left: number, top: number, right: number, bottom: number, radius: number): boolean {
  const cx = Math.min(Math.max(x, left + radius), right - radius);
  const cy = Math.min(Math.max(y, top + radius), bottom - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2 && x >= left && x <= right && y >= top && y <= bottom;
}

/** A wave band: a sine line `thickness` units thick, between `left` and `right`. */
function wave(x: number, y: number, baseline: number, left: number, right: number, thickness: number): boolean {
  if (x < left || x > right) return false;
  const centre = baseline + Math.sin(((x - left) / 64) * Math.PI) * 9;
  return Math.abs(y - centre) <= thickness / 2;
}

/** The colour at one sample point, or null outside the icon. */
function colourAt(x: number, y: number): Rgba | null {
  if (!roundedRect(x, y, 16, 16, 496, 496, 104)) return null;
  // Posts, the gate between them (lifted), and the water under it.
  if (roundedRect(x, y, 112, 96, 152, 392, 14) || roundedRect(x, y, 360, 96, 400, 392, 14)) return WHITE;
  if (roundedRect(x, y, 168, 120, 344, 248, 12)) return WHITE;
  if (wave(x, y, 300, 168, 344, 18) || wave(x, y, 350, 96, 416, 18) || wave(x, y, 400, 96, 416, 18)) return FOAM;
  const t = (y - 16) / 480;
  return TOP.map((c, i) => Math.round(c + (BOTTOM[i]! - c) * t)) as Rgba;
}

function render(): Buffer {
  // One filter byte (0: none) at the start of each row, as PNG wants.
  const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
  for (let py = 0; py < SIZE; py++) {
    const row = py * (SIZE * 4 + 1);
    for (let px = 0; px < SIZE; px++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const c = colourAt(px + (sx + 0.5) / SAMPLES, py + (sy + 0.5) / SAMPLES);
          if (!c) continue;
          // Premultiplied, so that edge pixels blend toward transparent, not toward black.
          r += c[0] * c[3];
          g += c[1] * c[3];
          b += c[2] * c[3];
          a += c[3];
        }
      }
      const o = row + 1 + px * 4;
      if (a > 0) {
        raw[o] = Math.round(r / a);
        raw[o + 1] = Math.round(g / a);
        raw[o + 2] = Math.round(b / a);
      }
      raw[o + 3] = Math.round(a / (SAMPLES * SAMPLES));
    }
  }
  return raw;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An 8-bit RGBA PNG of `raw` (rows with their filter byte). */
export function encodePng(raw: Buffer, width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type: RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (import.meta.main) {
  const file = path.join(import.meta.dirname, 'icon.png');
  fs.writeFileSync(file, encodePng(render(), SIZE, SIZE));
  console.log(`wrote ${path.relative(process.cwd(), file)} (${SIZE}×${SIZE})`);
}
