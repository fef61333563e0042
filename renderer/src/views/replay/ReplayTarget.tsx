import { useId } from 'react';
import type { DestinationView } from '../../../../shared/contract.ts';
import { Field } from '../../components/Field.tsx';
import { ownTarget } from './replay-words.ts';
import { checkTargetUrl, TARGET_EXAMPLE } from './target-url.ts';

export interface TargetChoice {
  /** The destination that signs and shapes the replay; null = each message's own enabled destinations (bulk only). */
  destinationId: number | null;
  sendTo: 'webhooks' | 'url';
  url: string;
}

/** The request fields for a choice, or the sentence saying what to fix. */
export function targetRequest(choice: TargetChoice): { ok: true; destinationId?: number; targetUrl?: string } | { ok: false; message: string } {
  const base = choice.destinationId === null ? {} : { destinationId: choice.destinationId };
  if (choice.sendTo === 'webhooks') return { ok: true, ...base };
  const url = checkTargetUrl(choice.url);
  return url.ok ? { ok: true, ...base, targetUrl: url.url } : url;
}

/** Which destination shapes the replay, and where it goes: the destination's webhooks (or Tracking API) or a typed URL. */
export function ReplayTarget({ destinations, choice, onChange, eachOwn, sourceId }: {
  destinations: readonly DestinationView[];
  choice: TargetChoice;
  onChange: (choice: TargetChoice) => void;
  /** Offer "each message's own destinations" (bulk replays). */
  eachOwn?: boolean;
  /** The message's source, to mark the destinations connected to it. */
  sourceId?: number;
}) {
  const name = useId();
  const urlErrorId = useId();
  const destination = destinations.find((d) => d.id === choice.destinationId);
  const url = choice.sendTo === 'url' ? checkTargetUrl(choice.url) : null;
  const own = destination ? ownTarget(destination) : null;
  return (
    <div className="replay-target">
      <Field label="Destination (shapes the body and signs it, or forwards it)">
        {(control) => (
          <select
            {...control}
            aria-label="Replay destination"
            value={choice.destinationId ?? ''}
            onChange={(e) => onChange({ ...choice, destinationId: e.target.value === '' ? null : Number(e.target.value) })}
          >
            {eachOwn ? <option value="">Each message’s own enabled destinations</option> : null}
            {destinations.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
                {sourceId !== undefined && !d.sourceIds.includes(sourceId) ? ' (not connected to this source)' : ''}
                {d.enabled ? '' : ' (disabled)'}
              </option>
            ))}
          </select>
        )}
      </Field>
      {destination && !destination.enabled ? (
        <p className="hint">{destination.name} is disabled: a replay through it waits until it is enabled again.</p>
      ) : null}
      <fieldset className="send-to">
        <legend className="field-label">Send to</legend>
        <label className="radio">
          <input type="radio" name={name} checked={choice.sendTo === 'webhooks'} onChange={() => onChange({ ...choice, sendTo: 'webhooks' })} />
          <span>
            {own ? own.label : 'Each destination’s own webhooks (or Tracking API)'}
            {own ? <code className="muted"> {own.urls}</code> : null}
          </span>
        </label>
        <label className="radio">
          <input type="radio" name={name} checked={choice.sendTo === 'url'} onChange={() => onChange({ ...choice, sendTo: 'url' })} />
          <span>Another URL</span>
        </label>
        <input
          type="url"
          className="target-url"
          aria-label="Replay URL"
          placeholder={TARGET_EXAMPLE}
          value={choice.url}
          aria-invalid={url !== null && !url.ok}
          aria-describedby={urlErrorId}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => onChange({ ...choice, sendTo: 'url', url: e.target.value })}
        />
        <p id={urlErrorId} className="target-url-error error-text" aria-live="polite">
          {url !== null && !url.ok ? url.message : '\u00a0'}
        </p>
      </fieldset>
    </div>
  );
}
