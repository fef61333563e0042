import type { DestinationView } from '../../../../shared/contract.ts';
import { audienceTargets, type AudienceForm, type FieldErrors, type FormChange } from './audience-form.ts';

/**
 * Which destinations an audience's syncs go to: the source's (every enabled destination connected to
 * it, as they are at each sync — what Sluice always did, and the default), or only the ones ticked,
 * connected to the source or not, as Segment connects an audience to its destinations.
 */
export function DestinationsChoice({ form, shown, change, sourceName, destinations }: {
  form: AudienceForm;
  shown: FieldErrors;
  change: FormChange;
  sourceName: string | null;
  destinations: readonly DestinationView[];
}) {
  const bySource = form.destinationIds === null;
  const connected = destinations.filter((d) => form.sourceId !== null && d.sourceIds.includes(form.sourceId));
  const sourceTargets = audienceTargets(destinations, form.sourceId, null);
  const source = sourceName ? `“${sourceName}”` : 'the source';
  const chosen = (d: DestinationView) => (bySource ? sourceTargets.includes(d) : form.destinationIds!.includes(d.id));
  const errorId = shown.destinationIds ? 'aud-destinations-error' : undefined;
  return (
    <fieldset className="aud-fieldset aud-destinations" aria-describedby={errorId ?? 'aud-destinations-hint'}>
      <legend className="field-label">Destinations</legend>
      <div className="aud-dest-modes" role="radiogroup" aria-label="Which destinations receive the syncs">
        <label className="aud-check">
          <input type="radio" name="aud-dest-mode" checked={bySource} onChange={() => change({ destinationIds: null }, 'destinationIds')} />
          The destinations of {source}
          <span className="muted">
            — every enabled one connected to it at each sync (now: {sourceTargets.length > 0 ? sourceTargets.map((d) => d.name).join(', ') : 'none'})
          </span>
        </label>
        <label className="aud-check">
          <input
            type="radio"
            name="aud-dest-mode"
            checked={!bySource}
            // Starts from what the syncs go to now, so switching alone changes nothing.
            onChange={() => change({ destinationIds: sourceTargets.map((d) => d.id) }, 'destinationIds')}
          />
          Only the destinations ticked below
        </label>
      </div>
      {destinations.length === 0 ? (
        <p className="aud-help">No destinations yet: the syncs are stored and shown, and sent nowhere. Add one under Destinations.</p>
      ) : (
        <ul className="aud-dest-list" aria-label="Destinations">
          {destinations.map((d) => (
            <li key={d.id}>
              <label className={`aud-check${bySource ? ' muted' : ''}`}>
                <input
                  type="checkbox"
                  disabled={bySource}
                  checked={chosen(d)}
                  onChange={(e) =>
                    change(
                      { destinationIds: e.target.checked ? [...(form.destinationIds ?? []), d.id] : (form.destinationIds ?? []).filter((id) => id !== d.id) },
                      'destinationIds',
                    )
                  }
                />
                {d.name}
                <span className="muted">
                  {' '}
                  · {connected.includes(d) ? `connected to ${source}` : `not connected to ${source}`}
                  {d.enabled ? '' : ' · disabled: receives nothing until enabled'}
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
      {shown.destinationIds ? (
        <p className="aud-error" id="aud-destinations-error">
          {shown.destinationIds}
        </p>
      ) : (
        <p className="aud-help" id="aud-destinations-hint">
          {!bySource && form.destinationIds!.length === 0
            ? 'None ticked: the syncs are stored and shown in the stream, and sent nowhere.'
            : 'A destination added to an audience gets every member at the next sync; the others hear only what changed.'}
        </p>
      )}
    </fieldset>
  );
}
