/**
 * What a call logged: console.log/info/warn/error (and debug, trace: as `log`) and the `log` it is given,
 * formatted as Node formats console output, kept within bounds (100 lines, 2,000 characters each; the
 * rest is cut, saying so).
 */
import { formatWithOptions } from 'node:util';
import type { TransformLogLine } from './transformer.ts';

export const MAX_LOG_LINES = 100;
export const MAX_LOG_CHARS = 2_000;

export class CallLogs {
  readonly lines: TransformLogLine[] = [];
  #dropped = 0;

  add(level: TransformLogLine['level'], args: readonly unknown[]): void {
    if (this.lines.length >= MAX_LOG_LINES) {
      this.#dropped++;
      return;
    }
    let text = formatWithOptions({ colors: false, depth: 6, breakLength: Infinity }, ...args);
    if (text.length > MAX_LOG_CHARS) text = `${text.slice(0, MAX_LOG_CHARS)}… (cut: ${text.length - MAX_LOG_CHARS} more characters)`;
    this.lines.push({ level, text });
  }

  /** The lines, the last one saying how many more were not kept (when some were not). */
  done(): TransformLogLine[] {
    if (this.#dropped > 0) {
      this.lines[MAX_LOG_LINES - 1] = { level: 'warn', text: `… ${this.#dropped + 1} more lines not kept (a call keeps ${MAX_LOG_LINES - 1} lines and this note)` };
      this.#dropped = 0;
    }
    return this.lines;
  }
}
