/** Quotes a value for a POSIX shell: single quotes, with embedded single quotes closed and escaped. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** A `curl` command that sends exactly this request again (same headers, same bytes, so the same signature). */
export function curlCommand(url: string, headers: Record<string, string>, body: string): string {
  const lines = [`curl -X POST ${shellQuote(url)}`];
  for (const [name, value] of Object.entries(headers)) {
    if (/^(content-length|host|connection|transfer-encoding)$/i.test(name)) continue;
    lines.push(`  -H ${shellQuote(`${name}: ${value}`)}`);
  }
  lines.push(`  --data-binary ${shellQuote(body)}`);
  return lines.join(' \\\n');
}
