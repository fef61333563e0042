import { formatCount } from '../../../shared/counted.ts';

// Counts in words are said as the commands say them (shared/counted.ts).
export { formatCount, plural } from '../../../shared/counted.ts';

/** "3 s ago", "4 min ago", "2 h ago", "yesterday 14:03" — for lists. */
export function relativeTime(at: number, now: number): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 1) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ago`;
  return new Date(at).toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** Local wall-clock time with milliseconds: "12:01:03.221". */
export function clockTime(at: number): string {
  const d = new Date(at);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** Local date and time with milliseconds and the UTC ISO form: for tooltips and the detail. */
export function absoluteTime(at: number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${clockTime(at)} (${d.toISOString()})`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}



export function formatRate(perSecond: number): string {
  if (perSecond >= 100) return formatCount(Math.round(perSecond));
  if (perSecond >= 10) return String(Math.round(perSecond));
  return perSecond === 0 ? '0' : perSecond.toFixed(1);
}

/** A file by its name alone (a config file, a plan file): the whole path belongs in a title. */
export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}
