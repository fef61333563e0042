import { Fragment, useState, type ReactNode } from 'react';
import type { JsonSchema, PlanEventStat, TrackingPlanView } from '../../../../shared/tracking-plan.ts';
import { JsonTree } from '../../components/JsonTree.tsx';
import { useSecondClock } from '../../lib/clock.ts';
import { absoluteTime, formatCount, relativeTime } from '../../lib/format.ts';
import { navigate } from '../../lib/route.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { schemaOf, statName, streamFiltersFor, TYPE_SCHEMAS, type TypeSchema } from './plan-words.ts';
import { usePlanStats } from './use-plans.ts';

/** Unplanned events listed at first (a client sending made-up names can make thousands). */
const UNPLANNED_SHOWN = 200;

interface Added {
  name: string;
  schema: JsonSchema;
  examples: number;
}

type AddTarget = { type: 'track'; event: string } | { type: TypeSchema };

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
  const [allUnplanned, setAllUnplanned] = useState(false);

  const show = (stat: PlanEventStat, violations: boolean) => {
    inspector.setFilters({ ...streamFiltersFor(stat, plan, sources, violations), violations: violations ? true : undefined });
    navigate('stream');
  };

  const add = async (target: AddTarget) => {
    const key = targetKey(target);
    setAdding(key);
    setAddError(null);
    const result = await inspector.call('plans.addEvent', { name: plan.name, ...target });
    setAdding(null);
    if (result.ok) setAdded({ name: target.type === 'track' ? target.event : target.type, schema: result.value.schema, examples: result.value.examples });
    else setAddError({ key, message: `Could not add ${target.type === 'track' ? `“${target.event}”` : `a ${target.type} schema`}: ${result.error.message}` });
  };

  const missingTypes = TYPE_SCHEMAS.filter((t) => plan.plan?.[t] === undefined);
  const unplanned = stats ? (allUnplanned ? stats.unplanned : stats.unplanned.slice(0, UNPLANNED_SHOWN)) : [];

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
      {missingTypes.length > 0 && plan.plan ? (
        <div className="toolbar plan-types">
          <span className="muted">No schema for {missingTypes.join(', ')}:</span>
          {missingTypes.map((t) => (
            <button key={t} type="button" className="btn btn-small" disabled={adding !== null} onClick={() => void add({ type: t })}>
              {adding === t ? 'Adding…' : `Add ${t} from examples`}
            </button>
          ))}
          {addError && (TYPE_SCHEMAS as readonly string[]).includes(addError.key) ? (
            <span className="plans-error" role="alert">
              {addError.message}
            </span>
          ) : null}
        </div>
      ) : null}

      {added ? (
        <div className="plan-added" role="status" aria-label="Added to the plan">
          <p>
            Added <strong>{added.name}</strong> to {plan.name}: its schema was inferred from {formatCount(added.examples)} stored example
            {added.examples === 1 ? '' : 's'}
            {plan.file ? <> and written to <code>{plan.file}</code></> : null}.
          </p>
          <JsonTree value={added.schema} label={`Inferred schema of ${added.name}`} />
          <button type="button" className="btn btn-small" onClick={() => setAdded(null)}>
            Dismiss
          </button>
        </div>
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
                      <button
                        type="button"
                        className="btn btn-small"
                        aria-label={`Add “${stat.event}” to ${plan.name}`}
                        disabled={adding !== null}
                        onClick={() => void add(target)}
                      >
                        {adding === key ? 'Adding…' : 'Add to plan'}
                      </button>
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
          {stats.unplanned.length > unplanned.length ? (
            <button type="button" className="btn btn-small plan-more" onClick={() => setAllUnplanned(true)}>
              Show all {formatCount(stats.unplanned.length)} unplanned events
            </button>
          ) : null}
        </>
      )}
    </div>
  );
}

type OnShow = (stat: PlanEventStat, violations: boolean) => void;

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
              aria-label={`${formatCount(stat.violated)} violated: show the messages of ${name} with violations in the stream`}
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
  return (
    <StatRow
      stat={stat}
      now={now}
      onShow={onShow}
      actions={
        schema === undefined ? null : (
          <button type="button" className="btn btn-small" aria-expanded={open} aria-label={`Schema of ${name}`} onClick={() => setOpen(!open)}>
            {open ? 'Hide schema' : 'Schema'}
          </button>
        )
      }
      below={open && schema !== undefined ? <JsonTree value={schema} label={`Schema of ${name}`} /> : null}
    />
  );
}
