import { useId, useMemo, useState } from 'react';
import type { MessageDetail } from '../../../../shared/contract.ts';
import { JsonTree, type Reveal } from '../../components/JsonTree.tsx';
import { navigate } from '../../lib/route.ts';
import { fieldOf, VIOLATION_TYPE_WORDS, violationAnnotations, violationsLabel } from './violation-words.ts';

/**
 * The message's tracking plan violations: each with its type, its sentence and its plan, above the
 * message's JSON tree where each sits beside its field. Choosing one brings its field into view.
 */
export function ViolationsTab({ data }: { data: MessageDetail }) {
  const list = data.violationList ?? [];
  const annotations = useMemo(() => violationAnnotations(list), [list]);
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const hint = useId();
  if (list.length === 0) {
    return (
      <div className="violations-tab">
        <p className="tab-empty">
          {data.violations > 0
            ? `${violationsLabel(data.violations)} counted, but not listed: read the message again.`
            : 'This message breaks no tracking plan (or no plan checks its source).'}
        </p>
        <PlansLink />
      </div>
    );
  }
  return (
    <div className="violations-tab">
      <p className="hint">
        {violationsLabel(list.length)} of the tracking plans of this message’s source. Choose one to see its field in the message below.
      </p>
      <span id={hint} hidden>
        Shows its field in the message below
      </span>
      <ol className="violation-list" aria-label="Violations">
        {list.map((v, i) => (
          <li key={i}>
            {/* Named by its words as shown (type, field, plan, sentence); what choosing it does is its description. */}
            <button type="button" className="violation-item" aria-describedby={hint} onClick={() => setReveal({ index: i, seq: (reveal?.seq ?? 0) + 1 })}>
              <span className="violation-head">
                <span className="violation-type" title={VIOLATION_TYPE_WORDS[v.type]}>
                  {v.type}
                </span>{' '}
                <span className="violation-field mono">{fieldOf(v.path)}</span>{' '}
                <span className="violation-plan muted">plan “{v.plan}”</span>
              </span>{' '}
              <span className="violation-message">{v.message}</span>
            </button>
          </li>
        ))}
      </ol>
      <PlansLink />
      {data.message ? (
        <JsonTree value={data.message} label="Message with violations" annotations={annotations} reveal={reveal} />
      ) : null}
    </div>
  );
}

function PlansLink() {
  return (
    <p className="hint">
      <button type="button" className="btn btn-small btn-quiet link-button" onClick={() => navigate('plans')}>
        Tracking plans →
      </button>
    </p>
  );
}
