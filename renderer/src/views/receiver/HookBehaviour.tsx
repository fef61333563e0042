import { useState } from 'react';
import type { ReceiverBehaviour } from '../../../../shared/receiver.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { behaviourOf, describeBehaviour, draftOf, type BehaviourDraft, type BehaviourMode } from './behaviour-form.ts';

const MODES: { mode: BehaviourMode; label: string }[] = [
  { mode: 'ok', label: 'Answer 200' },
  { mode: 'status', label: 'Answer a status' },
  { mode: 'random', label: 'Random mix' },
  { mode: 'hang', label: 'Hang past the timeout' },
];

/**
 * One hook of the built-in receiver: its URL, who posts to it, and how it answers (switchable). The
 * parent keys it by the behaviour, so a new behaviour starts a fresh draft.
 */
export function HookBehaviour({ hook, url, destinations, received, behaviour, onApply }: {
  hook: string;
  url: string;
  /** Names of the destinations whose webhooks post here. */
  destinations: string[];
  received: number;
  behaviour: ReceiverBehaviour;
  onApply: (behaviour: ReceiverBehaviour) => Promise<string | null>;
}) {
  const [draft, setDraft] = useState<BehaviourDraft>(() => draftOf(behaviour));
  const [error, setError] = useState<string | null>(null);
  const [applying, setApplying] = useState(false);
  const checked = behaviourOf(draft);
  const changed = !checked.ok || JSON.stringify(checked.behaviour) !== JSON.stringify(behaviour);
  const edit = (patch: Partial<BehaviourDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setError(null);
  };
  return (
    <li className="hook" aria-label={`Hook ${hook}`}>
      <div className="hook-head">
        <strong className="mono">{hook}</strong>
        <code className="hook-url">{url}</code>
        <CopyButton text={url} label={`Copy URL of hook ${hook}`} />
        <span className="muted">
          {received} received{destinations.length > 0 ? ` · from ${destinations.map((d) => `“${d}”`).join(', ')}` : ' · no destination posts here'}
        </span>
      </div>
      <form
        className="hook-form"
        onSubmit={async (event) => {
          event.preventDefault();
          if (!checked.ok) {
            setError(checked.error);
            return;
          }
          setApplying(true);
          setError(await onApply(checked.behaviour));
          setApplying(false);
        }}
      >
        <span className="hook-now" aria-label={`Behaviour of hook ${hook} now`}>
          Now {describeBehaviour(behaviour)}
        </span>
        <select aria-label={`Behaviour of hook ${hook}`} value={draft.mode} onChange={(e) => edit({ mode: e.target.value as BehaviourMode })}>
          {MODES.map((m) => (
            <option key={m.mode} value={m.mode}>
              {m.label}
            </option>
          ))}
        </select>
        {draft.mode === 'random' ? (
          <label className="hook-inline">
            fail
            <input
              type="text"
              inputMode="decimal"
              className="hook-number"
              aria-label={`Failure rate of hook ${hook} (%)`}
              value={draft.failurePercent}
              onChange={(e) => edit({ failurePercent: e.target.value })}
            />
            % with
          </label>
        ) : null}
        {draft.mode === 'status' || draft.mode === 'random' ? (
          <input
            type="text"
            inputMode="numeric"
            className="hook-number"
            aria-label={`Status of hook ${hook}`}
            aria-invalid={!checked.ok ? true : undefined}
            value={draft.status}
            onChange={(e) => edit({ status: e.target.value })}
          />
        ) : null}
        <button type="submit" className="btn btn-small" disabled={applying || !changed} aria-label={`Apply behaviour to hook ${hook}`}>
          Apply
        </button>
        {error || !checked.ok ? (
          <span className="error-text" role="alert">
            {error ?? (checked.ok ? '' : checked.error)}
          </span>
        ) : null}
      </form>
    </li>
  );
}
