/**
 * A count in words, as every side writes it: "1 message", "1,204 messages" (en-US digit groups). The
 * inspector's figures, the commands' sentences and the CI summary say counts the same way.
 */

// One formatter, made once: toLocaleString builds one per call, which shows in a busy frame.
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

export function formatCount(n: number): string {
  return COUNT_FORMAT.format(n);
}

/** "1 message", "1,204 messages". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}
