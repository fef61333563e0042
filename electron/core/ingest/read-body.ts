import type { IncomingMessage } from 'node:http';
import type { InputType, ZlibOptions } from 'node:zlib';
import { promisify } from 'node:util';
import { IngestError } from './ingest-error.ts';

type Inflate = (input: InputType, options: ZlibOptions) => Promise<Buffer>;
let inflaters: { gzip: Inflate; deflate: Inflate } | undefined;
/** zlib, loaded by the first compressed body rather than at start (~10 ms; most clients send plain JSON). */
function inflater(encoding: 'gzip' | 'deflate'): Inflate {
  if (!inflaters) {
    const zlib = process.getBuiltinModule('node:zlib');
    inflaters = { gzip: promisify(zlib.gunzip), deflate: promisify(zlib.inflate) };
  }
  return inflaters[encoding];
}

export interface ReadBody {
  /** The body, inflated when it was compressed. */
  body: Buffer;
  /** The bytes on the wire were gzip (declared by Content-Encoding, or recognised by gzip's magic bytes). */
  gzipped: boolean;
}

/**
 * Reads a request body of at most `limit` bytes, decompressing gzip/deflate with the same limit on
 * the output: zlib stops at `maxOutputLength`, so a gzip bomb costs at most `limit` bytes of memory.
 * A body with no Content-Encoding that starts with gzip's magic bytes (1f 8b) is read as gzip: such a
 * body can never be JSON (0x1f may not begin a JSON text), so nothing that was accepted changes.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<ReadBody> {
  const declaredEncoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (declaredEncoding !== 'identity' && declaredEncoding !== 'gzip' && declaredEncoding !== 'deflate') {
    throw new IngestError(400, 'unsupported_encoding', `Content-Encoding "${declaredEncoding}" is not supported; use gzip or none`);
  }
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);

  const raw = await collect(req, limit);
  const encoding = declaredEncoding === 'identity' && isGzip(raw) ? 'gzip' : declaredEncoding;
  if (encoding === 'identity') return { body: raw, gzipped: false };
  try {
    return { body: await inflater(encoding)(raw, { maxOutputLength: limit }), gzipped: encoding === 'gzip' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit, 'after decompression');
    throw new IngestError(400, 'invalid_encoding', `the body is not valid ${encoding} data`);
  }
}

/** Whether `bytes` start with gzip's magic number. */
export function isGzip(bytes: Buffer): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function collect(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer) => {
      length += chunk.length;
      if (length > limit) {
        cleanup();
        // Stop buffering; node drains the rest of the body after the response is sent.
        req.resume();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function tooLarge(limit: number, when = ''): IngestError {
  return new IngestError(
    400,
    'request_too_large',
    `the request body is over ${limit / 1024} KB${when ? ` ${when}` : ''}; split it into smaller batches`,
  );
}
