import { useId, useState } from 'react';
import type { JsonSchema, TrackingPlanView } from '../../../../shared/tracking-plan.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { fileName, plural } from '../../lib/format.ts';
import { useInspector } from '../../store/react.ts';
import type { Added } from './AddedBanner.tsx';
import type { TypeSchema } from './plan-words.ts';

/** What "Add to plan" adds: a track event's schema under `events`, or a type's schema. */
export type AddTarget = { type: 'track'; event: string } | { type: TypeSchema };

/** The schema a dry run inferred, shown before anything is written. */
export interface Preview {
  target: AddTarget;
  schema: JsonSchema;
  examples: number;
}

/** The addition as lines of the plan's JSON, each added line marked "+" (a diff of the plan document). */
export function changeLines(target: AddTarget, schema: JsonSchema, otherEvents: number): string {
  const key = target.type === 'track' ? target.event : target.type;
  const added = `${JSON.stringify(key)}: ${JSON.stringify(schema, null, 2)}`.split('\n');
  if (target.type !== 'track') return added.map((line) => `+ ${line}`).join('\n');
  return ['  "events": {', ...(otherEvents > 0 ? [`    … (${plural(otherEvents, 'event')} already there)`] : []), ...added.map((line) => `+   ${line}`), '  }'].join('\n');
}

/**
 * Asks before "Add to plan" writes: what will be added (the inferred schema, as lines of the plan) to
 * which file — or, for a plan written in the config, that it lives in memory until Sluice restarts.
 * Confirming writes exactly the schema shown (`plans.addEvent` with it); Esc or Cancel writes nothing.
 */
export function AddToPlanDialog({ plan, preview, onClose, onAdded }: {
  plan: TrackingPlanView;
  preview: Preview;
  onClose: () => void;
  onAdded: (added: Added) => void;
}) {
  const inspector = useInspector();
  const textId = useId();
  const [writing, setWriting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const { target, schema, examples } = preview;
  const name = target.type === 'track' ? `“${target.event}”` : `a ${target.type} schema`;

  const confirm = async () => {
    setWriting(true);
    setProblem(null);
    const result = await inspector.call('plans.addEvent', { name: plan.name, ...target, schema });
    setWriting(false);
    if (!result.ok) return setProblem(`Nothing was written: ${result.error.message}.`);
    onAdded({ name: target.type === 'track' ? target.event : target.type, schema: result.value.schema, examples });
  };

  return (
    <Dialog title={`Add ${name} to ${plan.name}?`} className="plan-dialog" describedBy={textId} onClose={onClose}>
      <p id={textId}>
        Its schema, inferred from {plural(examples, 'stored example')}, goes into{' '}
        {plan.file ? (
          <>
            the plan file <code>{plan.file}</code> (rewritten whole, as JSON indented by two spaces):
          </>
        ) : (
          <>the plan in memory only: the plan is written in the config file, so the addition lasts until Sluice restarts unless you put it there:</>
        )}
      </p>
      <pre className="code-block plan-change" aria-label={`The change to ${plan.file ?? plan.name}`}>
        {changeLines(target, schema, Object.keys(plan.plan?.events ?? {}).length)}
      </pre>
      <p className="plans-error" role="alert">
        {problem ?? ''}
      </p>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
        <button type="button" className="btn btn-primary" disabled={writing} onClick={() => void confirm()}>
          {writing ? 'Writing…' : plan.file ? `Write to ${fileName(plan.file)}` : 'Add to the plan in memory'}
        </button>
      </div>
    </Dialog>
  );
}
