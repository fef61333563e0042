/**
 * Polls `read` until it returns something other than undefined or false (state written by other
 * threads): a lookup (`find`) or a condition (`n === 3`) alike.
 */
export async function until<T>(read: () => T | undefined | false, ms = 10_000, what = 'a condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
