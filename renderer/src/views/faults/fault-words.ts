// What the inspector says about injected faults (FaultsBanner.tsx): pure, so that it is tested in Node.
import type { FaultedRequest, FaultView } from '../../../../shared/contract.ts';
import { formatDuration, plural } from '../../lib/format.ts';

/** "answers 503 (Retry-After: 2 s) to every Tracking API endpoint, for 1 more request". */
export function faultWords(fault: FaultView): string {
  const answer = fault.drop
    ? 'closes the connection unanswered'
    : fault.status !== null
      ? `answers ${fault.status}${fault.retryAfter !== null ? ` (Retry-After: ${fault.retryAfter} s)` : ''}`
      : 'answers as usual';
  const what = fault.delayMs !== null ? `holds each request ${formatDuration(fault.delayMs)}, then ${answer}` : answer;
  const where = fault.path ?? 'every Tracking API endpoint';
  const left = fault.times === null ? null : plural(fault.times - fault.applied, 'more request');
  const time = fault.remainingMs === null ? null : `${formatDuration(fault.remainingMs)} more`;
  const until = left && time ? `for ${left} or ${time}` : left ? `for ${left}` : time ? `for ${time}` : 'until cleared';
  return `${what} on ${where}, ${until}`;
}

/** "503", "dropped", "delayed 2.00 s" — what a faulted request got. */
export function outcomeWords(request: FaultedRequest): string {
  if (request.outcome === 'dropped') return 'dropped';
  if (request.outcome === 'delayed') return `delayed ${formatDuration(request.delayMs ?? 0)}`;
  return `answered ${request.status}`;
}
