import type { TrackingPlanView } from '../../../../shared/tracking-plan.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { absoluteTime } from '../../lib/format.ts';
import { EventTables } from './EventTables.tsx';
import { FORMAT_NAMES, shortVersion, sourcesWords, unplannedWords, violationModeWords } from './plan-words.ts';

/** One plan: its settings, its load error (said first), its events' counts and schemas. */
export function PlanDetail({ plan }: { plan: TrackingPlanView }) {
  return (
    <section className="plan-detail" aria-label={plan.name}>
      <header className="plan-head">
        <h2>{plan.name}</h2>
        {plan.plan?.description ? <p className="hint">{plan.plan.description}</p> : null}
      </header>
      {plan.error ? <LoadError plan={plan} /> : null}
      <dl className="facts plan-facts">
        <div className="fact">
          <dt>File</dt>
          <dd>
            {plan.file === null ? (
              <span className="muted">inline: the plan is written in the config file</span>
            ) : (
              <span className="plan-file">
                <code>{plan.file}</code>
                <CopyButton text={plan.file} label="Copy the plan file’s path" />
              </span>
            )}
          </dd>
        </div>
        <div className="fact">
          <dt>Format</dt>
          <dd>{plan.format ? FORMAT_NAMES[plan.format] : <span className="muted">—</span>}</dd>
        </div>
        <div className="fact">
          <dt>Sources</dt>
          <dd>{sourcesWords(plan)}</dd>
        </div>
        <div className="fact">
          <dt>Unplanned events</dt>
          <dd>
            <span className="plan-mode">{plan.unplanned}</span> {unplannedWords(plan.unplanned)}
          </dd>
        </div>
        <div className="fact">
          <dt>Violations</dt>
          <dd>
            <span className="plan-mode">{plan.violations}</span> {violationModeWords(plan.violations)}
          </dd>
        </div>
        <div className="fact">
          <dt>Forward violations to</dt>
          <dd>
            {plan.forwardViolationsTo ?? <span className="muted">— (no destination receives them)</span>}
            {plan.forwardViolationsTo ? <span className="muted"> — each as a “Violation Generated” track event</span> : null}
          </dd>
        </div>
        <div className="fact">
          <dt>Version</dt>
          <dd>
            <code title={plan.version ?? undefined}>{shortVersion(plan.version)}</code>
            {plan.loadedAt !== null ? <span className="muted"> · loaded {absoluteTime(plan.loadedAt)}</span> : null}
          </dd>
        </div>
      </dl>
      {plan.plan ? <EventTables plan={plan} /> : null}
      {plan.plan?.context !== undefined ? (
        <>
          <h3 className="section-title">Context of every message</h3>
          <JsonTree value={plan.plan.context} label="Schema of every message’s context" />
        </>
      ) : null}
    </section>
  );
}

function LoadError({ plan }: { plan: TrackingPlanView }) {
  return (
    <div className="banner banner-bad plan-load-error" role="alert">
      <p>
        <strong>The plan did not load.</strong> {plan.error}
      </p>
      <p>
        {plan.plan
          ? `The previous version (${shortVersion(plan.version)}${plan.loadedAt !== null ? `, loaded ${absoluteTime(plan.loadedAt)}` : ''}) stays in use until the file loads again; fix it and save, and it reloads.`
          : 'No version of this plan ever loaded: it checks nothing until the file loads. Fix it and save, and it reloads.'}
      </p>
    </div>
  );
}
