/**
 * The URL a replay is sent to instead of the destination's webhooks, checked as typed with the same
 * rules the core applies (shared/settings.ts webhookUrlSchema), worded with the fix.
 */
import { receiverUrlProblem } from '../../../../shared/receiver-hooks.ts';

export type TargetCheck = { ok: true; url: string } | { ok: false; message: string };

export const TARGET_EXAMPLE = 'http://localhost:3000/hook';

export function checkTargetUrl(input: string): TargetCheck {
  const text = input.trim();
  if (text === '') return { ok: false, message: `Type the URL to send to, e.g. ${TARGET_EXAMPLE}.` };
  // The built-in receiver by name (shared/receiver-hooks.ts).
  if (/^sluice:/i.test(text)) {
    const problem = receiverUrlProblem(text);
    return problem ? { ok: false, message: `${problem[0]!.toUpperCase()}${problem.slice(1)}.` } : { ok: true, url: text };
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    return { ok: false, message: `Start the URL with http:// or https://, e.g. http://${text.replace(/^\/+/, '')}.` };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: `"${text.slice(0, 100)}" is not a valid URL; check the host and port, e.g. ${TARGET_EXAMPLE}.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: `Only http and https URLs can receive webhooks, not ${url.protocol.replace(':', '')}.` };
  }
  if (url.hostname === '') return { ok: false, message: `The URL needs a host, e.g. ${TARGET_EXAMPLE}.` };
  if (url.username || url.password) {
    return { ok: false, message: 'Remove the user name and password from the URL; webhooks authenticate with their signature.' };
  }
  return { ok: true, url: text };
}
