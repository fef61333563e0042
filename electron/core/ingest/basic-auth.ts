// A write key in HTTP Basic authentication, as Segment's libraries send it (`Basic base64(writeKey:)`):
// read by the ingestion endpoint, and by sluice/playwright when it routes a page's requests to Sluice.

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** The username of a Basic Authorization header (the write key), or undefined when it is not one. */
export function basicAuthUser(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const space = value.indexOf(' ');
  if (space === -1 || value.slice(0, space).toLowerCase() !== 'basic') return undefined;
  const encoded = value.slice(space + 1).trim();
  if (!BASE64.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? decoded : decoded.slice(0, colon);
}

/** The Authorization header naming `writeKey` (an empty password). */
export function basicAuth(writeKey: string): string {
  return `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
}
