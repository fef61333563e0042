import { useState } from 'react';
import type { TrackingPlanView } from '../../../../shared/tracking-plan.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { plural } from '../../lib/format.ts';
import { FORMAT_NAMES, progressFraction, progressWords } from './plan-words.ts';
import { PlanDetail } from './PlanDetail.tsx';
import { isRunning, useRecheck } from './recheck-store.ts';
import { usePlans } from './use-plans.ts';
import './plans.css';

/**
 * Tracking plans: the plans the config puts to work, each with its settings, its load error, how
 * often each planned and unplanned event was seen and broke the plan, and its schemas; "Add to plan"
 * for an unplanned event; a re-check of stored messages with live progress. Follows `plans.changed`.
 */
export function PlansView() {
  const { plans, error } = usePlans();
  const [chosen, setChosen] = useState<string | null>(null);
  if (plans === null) {
    return (
      <div className="master-detail plans-view" aria-busy={error ? undefined : true}>
        {error ? (
          <p className="plans-error plans-pad" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    );
  }
  if (plans.length === 0) return <NoPlans />;
  const current = plans.find((p) => p.name === chosen) ?? plans[0]!;
  return (
    <div className="master-detail plans-view">
      <aside className="master-list" aria-label="Tracking plans">
        <div className="master-list-head">
          <h2>Tracking plans</h2>
        </div>
        {error ? (
          <p className="plans-error plans-pad" role="alert">
            {error}
          </p>
        ) : null}
        <ul>
          {plans.map((p) => (
            <li key={p.name}>
              <PlanItem plan={p} current={p.name === current.name} onOpen={() => setChosen(p.name)} />
            </li>
          ))}
        </ul>
        <RecheckPanel />
      </aside>
      <div className="plans-pane">
        <PlanDetail key={current.name} plan={current} />
      </div>
    </div>
  );
}

function PlanItem({ plan, current, onOpen }: { plan: TrackingPlanView; current: boolean; onOpen: () => void }) {
  const events = plan.plan ? Object.keys(plan.plan.events).length : 0;
  return (
    <button type="button" className={`master-item${current ? ' current' : ''}`} aria-current={current ? 'true' : undefined} onClick={onOpen}>
      <span className="master-item-line">
        <span className="master-item-name">{plan.name}</span>
        {plan.error ? <span className="plan-error-mark">⚠ load error</span> : null}
      </span>
      <span className="master-item-sub">
        {plan.format ? FORMAT_NAMES[plan.format] : plan.file === null ? 'inline plan' : 'plan file'} · {plural(events, 'event')}
      </span>
      <span className="master-item-sub">
        unplanned: {plan.unplanned} · violations: {plan.violations}
      </span>
    </button>
  );
}

/**
 * Re-checks stored messages against the plans in use; the bar follows the `plans.recheck` events. The
 * words beside it change a few times a second: they are not a live region. A status of their own
 * says the start and the end, once each (the progress bar carries the value between).
 */
function RecheckPanel() {
  const recheck = useRecheck();
  const { progress, lost, error, start } = recheck;
  const running = isRunning(recheck);
  const fraction = progress ? progressFraction(progress) : 0;
  const words = progress ? (lost ? LOST_WORDS : progressWords(progress)) : '';
  const announced = running ? 'Re-checking stored messages…' : words;
  return (
    <section className="recheck" aria-label="Re-check stored messages">
      <button type="button" className="btn" disabled={running} onClick={() => void start()}>
        {running ? 'Re-checking…' : 'Re-check stored messages'}
      </button>
      <p className="hint">
        Checks every stored message again against the plans in use and records its violations. It does not block or release anything: deliveries
        already made stay as they were.
      </p>
      {progress ? (
        <div
          className={`recheck-track recheck-${lost ? 'lost' : progress.state}`}
          role="progressbar"
          aria-label="Re-check progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(fraction * 100)}
          aria-valuetext={words}
        >
          <div className="recheck-bar" style={{ width: `${fraction * 100}%` }} />
        </div>
      ) : null}
      <p className={`recheck-words${progress?.state === 'failed' ? ' tone-bad' : progress?.state === 'finished' ? ' tone-ok' : ''}`}>{words}</p>
      <p className="sr-only" role="status">
        {announced}
      </p>
      {error ? (
        <p className="plans-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

/** A re-check the core no longer runs, whose end did not reach this page (the counts are read again). */
const LOST_WORDS = 'The re-check ended, but how it went did not reach this page: the counts shown are read again from the store.';

const EXAMPLE_CONFIG = `{
  "sources": [{ "name": "web", "writeKey": "wk_web", "kind": "web" }],
  "trackingPlans": [
    {
      "name": "web plan",
      "sources": ["web"],
      "file": "tracking-plan.json",
      "unplanned": "flag",
      "violations": "flag"
    }
  ]
}`;

const EXAMPLE_PLAN = `{
  "events": {
    "Order Completed": {
      "type": "object",
      "properties": { "price": { "type": "number" }, "currency": { "type": "string" } },
      "required": ["price"]
    }
  }
}`;

function NoPlans() {
  return (
    <div className="tool-view plans-empty">
      <div className="tool-view-head">
        <h2>No tracking plan yet</h2>
        <p className="hint">
          A tracking plan says what each event should look like, as JSON Schemas. Sluice checks every message of the plan’s sources against it: a
          message that does not match shows its violations in the stream, beside the fields they are about.
        </p>
      </div>
      <h3 className="section-title">
        1. Name the plan in the config file <span className="muted">(the file given with --config)</span>
        <CopyButton text={EXAMPLE_CONFIG} label="Copy the config example" />
      </h3>
      <pre className="code-block">{EXAMPLE_CONFIG}</pre>
      <dl className="facts plans-empty-facts">
        <div className="fact">
          <dt>sources</dt>
          <dd>the source names it checks (leave it out: every source)</dd>
        </div>
        <div className="fact">
          <dt>file</dt>
          <dd>the plan, relative to the config file: Sluice’s format, or a Segment Protocols or RudderStack export; edits load as you save</dd>
        </div>
        <div className="fact">
          <dt>unplanned</dt>
          <dd>an event the plan does not list: allow, flag (a violation) or block (stored and shown, not delivered)</dd>
        </div>
        <div className="fact">
          <dt>violations</dt>
          <dd>a message that breaks the plan: flag (delivered anyway) or block</dd>
        </div>
        <div className="fact">
          <dt>forwardViolationsTo</dt>
          <dd>optional: a destination that receives each violation as a “Violation Generated” track event</dd>
        </div>
      </dl>
      <h3 className="section-title">
        2. Write the plan <span className="muted">(tracking-plan.json)</span>
        <CopyButton text={EXAMPLE_PLAN} label="Copy the plan example" />
      </h3>
      <pre className="code-block">{EXAMPLE_PLAN}</pre>
      <p className="hint">
        Then start Sluice with <code>--config</code> and that file. Events you have not planned yet show here with an “Add to plan” button that
        infers their schema from the messages already stored.
      </p>
    </div>
  );
}
