/** The hook a webhook URL names on the built-in receiver (`<receiverUrl>/hooks/<name>`), or null when it points elsewhere. */
export function hookOf(url: string, receiverUrl: string): string | null {
  if (!receiverUrl) return null;
  const prefix = `${receiverUrl}/hooks/`;
  if (!url.startsWith(prefix)) return null;
  const name = url.slice(prefix.length).split(/[/?#]/, 1)[0]!;
  if (!name) return null;
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
