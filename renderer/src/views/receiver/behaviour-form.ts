/** The behaviour switch of one hook, as typed, checked before it is sent to the receiver. */
import type { ReceiverBehaviour } from '../../../../shared/receiver.ts';

export type BehaviourMode = ReceiverBehaviour['mode'];

export interface BehaviourDraft {
  mode: BehaviourMode;
  /** As typed. */
  status: string;
  /** Percent of requests that fail, as typed. */
  failurePercent: string;
}

export function draftOf(behaviour: ReceiverBehaviour): BehaviourDraft {
  switch (behaviour.mode) {
    case 'ok':
    case 'hang':
      return { mode: behaviour.mode, status: '503', failurePercent: '50' };
    case 'status':
      return { mode: 'status', status: String(behaviour.status), failurePercent: '50' };
    case 'random':
      return { mode: 'random', status: String(behaviour.status), failurePercent: String(Math.round(behaviour.failureRate * 1000) / 10) };
  }
}

export function behaviourOf(draft: BehaviourDraft): { ok: true; behaviour: ReceiverBehaviour } | { ok: false; error: string } {
  if (draft.mode === 'ok' || draft.mode === 'hang') return { ok: true, behaviour: { mode: draft.mode } };
  const status = Number(draft.status);
  const [min, max] = draft.mode === 'status' ? [100, 599] : [400, 599];
  if (draft.status.trim() === '' || !Number.isInteger(status) || status < min || status > max) {
    return { ok: false, error: `The status must be a whole number from ${min} to ${max}, e.g. 503.` };
  }
  if (draft.mode === 'status') return { ok: true, behaviour: { mode: 'status', status } };
  const percent = Number(draft.failurePercent);
  if (draft.failurePercent.trim() === '' || !Number.isFinite(percent) || percent < 0 || percent > 100) {
    return { ok: false, error: 'The failure rate must be a percentage from 0 to 100, e.g. 30.' };
  }
  return { ok: true, behaviour: { mode: 'random', failureRate: percent / 100, status } };
}

/** "answers 200", "answers 503", "fails 30 % with 500", "hangs past the timeout". */
export function describeBehaviour(behaviour: ReceiverBehaviour): string {
  switch (behaviour.mode) {
    case 'ok':
      return 'answers 200';
    case 'status':
      return `answers ${behaviour.status}`;
    case 'random':
      return `answers ${behaviour.status} to ${Math.round(behaviour.failureRate * 1000) / 10} % of requests, 200 otherwise`;
    case 'hang':
      return 'never answers (the sender’s 5 s timeout fires)';
  }
}
