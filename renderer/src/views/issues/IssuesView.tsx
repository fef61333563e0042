import { useRef, useState } from 'react';
import { ISSUE_STATES } from '../../../../shared/channels/issues.ts';
import type { IssueState, IssueView } from '../../../../shared/contract.ts';
import { ErrorText } from '../../components/ErrorText.tsx';
import { Field } from '../../components/Field.tsx';
import { useVirtualWindow } from '../../components/virtual.ts';
import { formatCount, plural } from '../../lib/format.ts';
import { navigate } from '../../lib/route.ts';
import { useInspector } from '../../store/react.ts';
import { useLive } from '../../store/use-live.ts';
import { IssueRow, ISSUE_ROW_HEIGHT } from './IssueRow.tsx';
import { isActive } from './retry-jobs.ts';
import './issues.css';

const STATE_LABELS: Record<IssueState, string> = { open: 'Open', closed: 'Closed', all: 'Open and closed' };

/**
 * Issues: failed and retrying deliveries grouped by destination, URL, HTTP status and error kind
 * (the core keeps the groups: `issues.list`), the latest seen first, each with its counts and first
 * and last seen. A group opens the stream on exactly its messages (its `issue:<id>` query); "Retry
 * all" retries its deliveries as a job whose progress (`issues.retryProgress`, applied once per frame:
 * retry-jobs.ts) fills the row's bar. A group closes itself when its deliveries stop failing. The list
 * is read again as deliveries change (useLive: one load at a time, at most about once a second) and
 * only the rows in view are rendered.
 */
export function IssuesView() {
  const inspector = useInspector();
  const [state, setState] = useState<IssueState>('open');
  const { data, error } = useLive({
    load: () => inspector.call('issues.list', { state }),
    concerns: (events) =>
      events.some((e) => e.type === 'deliveries.changed' || e.type === 'store.reset' || (e.type === 'issues.retryProgress' && !isActive(e.progress))),
    what: 'the issues',
    key: state,
    everyMs: 1000,
  });

  const open = (issue: IssueView) => {
    inspector.setFilters({ type: null, status: null, sourceId: null, violations: undefined, event: undefined, plan: undefined, search: issue.query, time: { kind: 'all' } });
    navigate('stream');
  };

  return (
    <section className="tool-view issues" aria-labelledby="issues-title">
      <header className="tool-view-head">
        <h2 id="issues-title">Issues</h2>
        <p className="hint">
          Failed and retrying deliveries, grouped by destination, URL, status and error. Show a group’s messages in the stream, or retry them all at once;
          a group closes itself once its deliveries succeed.
        </p>
        <div className="issues-bar">
          <Field label="Show" className="issues-state">
            {(control) => (
              <select {...control} aria-label="Show" value={state} onChange={(e) => setState(e.target.value as IssueState)}>
                {ISSUE_STATES.map((s) => (
                  <option key={s} value={s}>
                    {STATE_LABELS[s]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {data ? (
            <p className="muted issues-open" role="status">
              {data.open === 0 ? 'No open issue: every delivery that was attempted lately succeeded or is on its way.' : `${plural(data.open, 'open issue')}.`}
            </p>
          ) : null}
        </div>
      </header>
      <ErrorText error={error} />
      {data === null && !error ? <p className="muted">Loading…</p> : null}
      {data && data.issues.length === 0 && state !== 'open' ? <p className="muted">{state === 'closed' ? 'No closed issue yet.' : 'No issue yet: no delivery has failed.'}</p> : null}
      {data && data.issues.length > 0 ? <IssueList issues={data.issues} onOpen={open} /> : null}
    </section>
  );
}

/**
 * The groups, virtualized: a list as tall as all its rows, only those in view rendered. Each row is
 * keyed by its group's id, not by its slot in the window (components/virtual.ts): a row keeps state of
 * its own (a retry being started, why one could not start) and may hold the focus, and the list is read
 * again about once a second, the latest seen first, so groups change places — the row, its state and the
 * focus go with its group. (At most ISSUES_LIST_MAX rows, a window of a few dozen: moving nodes is cheap.)
 */
function IssueList({ issues, onOpen }: { issues: readonly IssueView[]; onOpen: (issue: IssueView) => void }) {
  const scroller = useRef<HTMLDivElement>(null);
  const { start, end } = useVirtualWindow(scroller, issues.length, ISSUE_ROW_HEIGHT, 4);
  return (
    <div ref={scroller} className="issues-scroller">
      <ul className="issues-list" aria-label={`Issues (${formatCount(issues.length)})`} style={{ height: issues.length * ISSUE_ROW_HEIGHT }}>
        {issues.slice(start, end).map((issue, i) => (
          <IssueRow key={issue.id} issue={issue} index={start + i} count={issues.length} onOpen={onOpen} />
        ))}
      </ul>
    </div>
  );
}
