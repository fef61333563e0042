/** Polls `read` until it returns something other than undefined (state written by other threads). */
export async function until<T>(read: () => T | undefined, ms = 10_000, what = 'a condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
