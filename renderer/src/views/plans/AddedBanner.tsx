import { useState } from 'react';
import type { JsonSchema, TrackingPlanView } from '../../../../shared/tracking-plan.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { plural } from '../../lib/format.ts';
import { isRunning, useRecheck } from './recheck-store.ts';

export interface Added {
  name: string;
  schema: JsonSchema;
  examples: number;
}

/**
 * What "Add to plan" did: the schema inferred and where it went (the plan file; for a plan written in
 * the config, memory only, until Sluice restarts), and that stored messages keep the violations they
 * were stored with (an Unplanned-Event) until a re-check, which it offers.
 */
export function AddedBanner({ plan, added, onDismiss }: { plan: TrackingPlanView; added: Added; onDismiss: () => void }) {
  const recheck = useRecheck();
  const running = isRunning(recheck);
  // A re-check that started after the addition (ids grow) and finished: stored violations follow the plan now.
  const [before] = useState(() => recheck.progress?.id ?? 0);
  const rechecked = recheck.progress !== null && recheck.progress.id > before && recheck.progress.state === 'finished' && !recheck.lost;
  const schemaText = JSON.stringify(added.schema, null, 2);
  return (
    <div className="plan-added" role="status" aria-label="Added to the plan">
      <p>
        Added <strong>{added.name}</strong> to {plan.name}: its schema was inferred from {plural(added.examples, 'stored example')}
        {plan.file ? (
          <>
            {' '}
            and written to <code>{plan.file}</code>.
          </>
        ) : (
          <>
            . The plan is written in the config file, so the addition lives in memory until Sluice restarts: put the schema in the config’s plan
            (under <code>events</code>) to keep it.
          </>
        )}
      </p>
      <JsonTree value={added.schema} label={`Inferred schema of ${added.name}`} />
      {rechecked ? (
        <p>Stored messages were re-checked since: their violations follow the plan as it is now.</p>
      ) : (
        <p>
          Messages already stored keep the violations they were stored with (an Unplanned-Event for {added.name}) until they are re-checked, so
          its Violated count stays until then.
        </p>
      )}
      <div className="toolbar">
        {/* Its progress, and why it could not start, show under the plans' list. */}
        {rechecked ? null : (
          <button type="button" className="btn btn-small" disabled={running} onClick={() => void recheck.start()}>
            {running ? 'Re-checking…' : 'Re-check now'}
          </button>
        )}
        {plan.file ? null : <CopyButton text={schemaText} label={`Copy the schema of ${added.name}`} />}
        <button type="button" className="btn btn-small" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
    </div>
  );
}
