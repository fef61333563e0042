import { Fragment, useId, useState, type ReactNode } from 'react';
import type { PlanEventStat, TrackingPlanView } from '../../../../shared/tracking-plan.ts';
import { JsonTree } from '../../components/JsonTree.tsx';
import { useSecondClock } from '../../lib/clock.ts';
import { absoluteTime, formatCount, relativeTime } from '../../lib/format.ts';
import { navigate } from '../../lib/route.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { AddedBanner, type Added } from './AddedBanner.tsx';
import { AddToPlanDialog, type AddTarget, type Preview } from './AddToPlanDialog.tsx';
import { FORMAT_NAMES, readOnlyFormat, schemaOf, statName, streamFiltersFor, TYPE_SCHEMAS } from './plan-words.ts';
import { usePlanStats } from './use-plans.ts';

/**
 * The most unplanned events listed: the core lists at most this many, the most seen first (shared's
 * UNPLANNED_SHOWN: that module imports zod, kept out of the renderer's bundle); an older core that
 * lists them all is cut here too.
 */
const UNPLANNED_SHOWN = 200;


const targetKey = (t: AddTarget) => (t.type === 'track' ? `track:${t.event}` : t.type);

/**
 * A plan's events: the planned ones with how often they were seen and broke the plan (a count opens
 * the stream on them) and each one's schema; the unplanned ones seen, each with "Add to plan", which
 * infers its schema from stored examples.
 */
export function EventTables({ plan }: { plan: TrackingPlanView }) {
  const inspector = useInspector();
  const sources = useInspectorState((s) => s.info?.sources) ?? [];
  const { stats, error } = usePlanStats(plan.name);
  const [adding, setAdding] = useState<string | null>(null);
  const [addError, setAddError] = useState<{ key: string; message: string } | null>(null);
  const [added, setAdded] = useState<Added | null>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const readOnlyId = useId();
  const readOnly = readOnlyFormat(plan);

  const show = (stat: PlanEventStat, violations: boolean) => {
    // Every filter is replaced: none left from before narrows the list further without a word.
    inspector.setFilters({ violations: undefined, event: undefined, plan: undefined, ...streamFiltersFor(stat, plan, sources, violations) });
    navigate('stream');
  };

  // First what would be added (a dry run: nothing written), then the dialog asks before it is.
  const add = async (target: AddTarget) => {
    const key = targetKey(target);
    setAdding(key);
    setAddError(null);
    const result = await inspector.call('plans.addEvent', { name: plan.name, ...target, dryRun: true });
    setAdding(null);
    if (result.ok) setPreview({ target, schema: result.value.schema, examples: result.value.examples });
    else setAddError({ key, message: `Could not add ${target.type === 'track' ? `“${target.event}”` : `a ${target.type} schema`}: ${result.error.message}` });
  };

  const missingTypes = TYPE_SCHEMAS.filter((t) => plan.plan?.[t] === undefined);
  const unplanned = stats ? stats.unplanned.slice(0, UNPLANNED_SHOWN) : [];
  // An older core does not say how many there are in all: as many as it listed.
  const notShown = stats ? Math.max(0, (stats.unplannedTotal ?? stats.unplanned.length) - unplanned.length) : 0;
  // Add is off while one is under way, and for a vendor export (never written to: the note says why).
  const addDisabled = adding !== null || readOnly !== null;

  return (
    <div className="plan-events" aria-busy={stats === null && !error ? true : undefined}>
      {error ? (
        <p className="plans-error" role="alert">
          {error}
        </p>
      ) : null}
      <h3 className="section-title">
        Planned events <span className="muted">(among stored messages of the plan’s sources)</span>
      </h3>
      {stats === null ? (
        <div className="plans-loading" />
      ) : stats.planned.length === 0 ? (
        <p className="tab-empty">The plan lists no event yet.</p>
      ) : (
        <StatTable label="Planned events" stats={stats.planned}>
          {(stat, now) => <PlannedRow plan={plan} stat={stat} now={now} onShow={show} />}
        </StatTable>
      )}
      {readOnly ? (
        <p className="banner banner-info plan-read-only" id={readOnlyId}>
          This plan is read from a {FORMAT_NAMES[readOnly]}: Sluice does not write to it, so “Add to plan” is off. To add events here, convert it
          to Sluice’s format with <code>sluice plan import {plan.file ?? 'FILE'} --out plan.json</code> and point the config’s <code>file</code>{' '}
          at plan.json.
        </p>
      ) : null}
      {missingTypes.length > 0 && plan.plan ? (
        <div className="toolbar plan-types">
          <span className="muted">No schema for {missingTypes.join(', ')}:</span>
          {missingTypes.map((t) => (
            <button
              key={t}
              type="button"
              className="btn btn-small"
              disabled={addDisabled}
              aria-describedby={readOnly ? readOnlyId : undefined}
              onClick={() => void add({ type: t })}
            >
              {adding === t ? 'Inferring…' : `Add ${t} from examples`}
            </button>
          ))}
          {addError && (TYPE_SCHEMAS as readonly string[]).includes(addError.key) ? (
            <span className="plans-error" role="alert">
              {addError.message}
            </span>
          ) : null}
        </div>
      ) : null}

      {added ? <AddedBanner plan={plan} added={added} onDismiss={() => setAdded(null)} /> : null}
      {preview ? (
        <AddToPlanDialog
          plan={plan}
          preview={preview}
          onClose={() => setPreview(null)}
          onAdded={(done) => {
            setPreview(null);
            setAdded(done);
          }}
        />
      ) : null}

      <h3 className="section-title">
        Unplanned events seen <span className="muted">(track events the plan does not list)</span>
      </h3>
      {stats === null ? null : stats.unplanned.length === 0 ? (
        <p className="tab-empty">None: every track event seen is in the plan.</p>
      ) : (
        <>
          <StatTable label="Unplanned events" stats={unplanned}>
            {(stat, now) => {
              const target: AddTarget | null = stat.event !== null ? { type: 'track', event: stat.event } : null;
              const key = target ? targetKey(target) : '';
              return (
                <StatRow
                  stat={stat}
                  now={now}
                  onShow={show}
                  actions={
                    target ? (
                      <AddButton
                        what={`“${stat.event}” to ${plan.name}`}
                        adding={adding === key}
                        disabled={addDisabled}
                        readOnlyId={readOnly ? readOnlyId : null}
                        onAdd={() => void add(target)}
                      />
                    ) : null
                  }
                  below={
                    addError?.key === key ? (
                      <p className="plans-error" role="alert">
                        {addError.message}
                      </p>
                    ) : null
                  }
                />
              );
            }}
          </StatTable>
          {notShown > 0 ? (
            <p className="hint plan-more">
              {formatCount(notShown)} more not shown: the {formatCount(unplanned.length)} seen most are listed. Thousands of names usually mean a
              client puts ids or values in event names.
            </p>
          ) : null}
        </>
      )}
    </div>
  );
}

type OnShow = (stat: PlanEventStat, violations: boolean) => void;

/** "Add to plan": named by its visible words; what it adds (and why it is off) in its description. */
function AddButton({ what, adding, disabled, readOnlyId, onAdd }: { what: string; adding: boolean; disabled: boolean; readOnlyId: string | null; onAdd: () => void }) {
  const id = useId();
  return (
    <>
      <span id={id} hidden>
        Shows {what} with its schema inferred from stored examples, and asks before writing it
      </span>
      <button type="button" className="btn btn-small" aria-describedby={readOnlyId ? `${id} ${readOnlyId}` : id} disabled={disabled} onClick={onAdd}>
        {adding ? 'Inferring…' : 'Add to plan'}
      </button>
    </>
  );
}

function StatTable({ label, stats, children }: { label: string; stats: readonly PlanEventStat[]; children: (stat: PlanEventStat, now: number) => ReactNode }) {
  const now = useSecondClock();
  return (
    <table className="plan-table" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col" className="num col-seen">
            Seen
          </th>
          <th scope="col" className="num col-violated">
            Violated
          </th>
          <th scope="col" className="col-last">
            Last seen
          </th>
          <th scope="col" className="col-actions">
            <span className="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>{stats.map((stat) => <Fragment key={`${stat.type}:${stat.event ?? ''}`}>{children(stat, now)}</Fragment>)}</tbody>
    </table>
  );
}

/** An event's row; `below` is a row of its own under it, across the table (a schema). */
function StatRow({ stat, now, onShow, actions, below }: { stat: PlanEventStat; now: number; onShow: OnShow; actions: ReactNode; below?: ReactNode }) {
  const name = statName(stat);
  return (
    <>
      <tr>
        <th scope="row">
          <span className="plan-event">
            <span className={`type-badge type-${stat.type}`}>{stat.type}</span>
            {stat.event !== null ? <span className="plan-event-name">{stat.event}</span> : null}
          </span>
        </th>
        <td className="num">
          {stat.seen > 0 ? (
            <button type="button" className="count-link" aria-label={`${formatCount(stat.seen)} seen: show ${name} in the stream`} onClick={() => onShow(stat, false)}>
              {formatCount(stat.seen)}
            </button>
          ) : (
            '0'
          )}
        </td>
        <td className="num">
          {stat.violated > 0 ? (
            <button
              type="button"
              className="count-link count-violated"
              aria-label={`${formatCount(stat.violated)} violated: show the messages of ${name} that break the plan in the stream`}
              onClick={() => onShow(stat, true)}
            >
              {formatCount(stat.violated)}
            </button>
          ) : (
            '0'
          )}
        </td>
        <td>
          {stat.lastSeenAt === null ? (
            <span className="muted">never</span>
          ) : (
            <time dateTime={new Date(stat.lastSeenAt).toISOString()} title={absoluteTime(stat.lastSeenAt)}>
              {relativeTime(stat.lastSeenAt, now)}
            </time>
          )}
        </td>
        <td className="plan-actions">{actions}</td>
      </tr>
      {below ? (
        <tr className="plan-below">
          <td colSpan={5}>{below}</td>
        </tr>
      ) : null}
    </>
  );
}

/** A planned event's row, with its schema folded in a JSON tree under it on demand. */
function PlannedRow({ plan, stat, now, onShow }: { plan: TrackingPlanView; stat: PlanEventStat; now: number; onShow: OnShow }) {
  const [open, setOpen] = useState(false);
  const schema = schemaOf(plan.plan, stat);
  const name = statName(stat);
  const id = useId();
  return (
    <StatRow
      stat={stat}
      now={now}
      onShow={onShow}
      actions={
        schema === undefined ? null : (
          <>
            <span id={id} hidden>
              The schema of {name} in the plan
            </span>
            <button type="button" className="btn btn-small" aria-expanded={open} aria-describedby={id} onClick={() => setOpen(!open)}>
              {open ? 'Hide schema' : 'Schema'}
            </button>
          </>
        )
      }
      below={open && schema !== undefined ? <JsonTree value={schema} label={`Schema of ${name}`} /> : null}
    />
  );
}
