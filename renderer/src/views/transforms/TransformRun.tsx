import { useMemo, type ReactNode } from 'react';
import type { TransformRunView } from '../../../../shared/contract.ts';
import type { Annotation } from '../../components/json-pointer.ts';
import { JsonTree } from '../../components/JsonTree.tsx';
import { diffJson, shortJson, type FieldChange } from './json-diff.ts';
import './transforms.css';

const OUTCOME_WORDS = {
  changed: 'changed the message',
  unchanged: 'returned the message unchanged',
  dropped: 'dropped the message',
  retry: 'asked to retry (RetryError)',
  failed: 'failed',
} as const;

/**
 * One call of a transform, as a preview or a delivery's attempt shows it: what it did (a drop's reason,
 * a failure's message and stack), `children` (its outputs against the input), and its log lines.
 */
export function TransformRun({ run, tone, children }: {
  run: Pick<TransformRunView, 'outcome' | 'logs' | 'message' | 'stack'>;
  tone: 'ok' | 'warn' | 'bad';
  children?: ReactNode;
}) {
  return (
    <>
      <p className={`tf-outcome tone-${tone}`}>
        The transform {OUTCOME_WORDS[run.outcome]}
        {run.message ? `: ${run.message}` : '.'}
      </p>
      {run.stack ? (
        <pre className="code-block tf-stack" aria-label="Stack">
          {run.stack}
        </pre>
      ) : null}
      {children}
      <h4 className="section-title">
        Log lines <span className="muted">{run.logs.length}</span>
      </h4>
      {run.logs.length === 0 ? (
        <p className="hint">The transform logged nothing.</p>
      ) : (
        <ol className="tf-logs" aria-label="Log lines">
          {run.logs.map((line, i) => (
            <li key={i} className={`tf-log tf-log-${line.level}`}>
              <span className="tf-log-level">{line.level}</span> {line.text}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

/** The tone of a run's outcome. */
export function runTone(outcome: TransformRunView['outcome']): 'ok' | 'warn' | 'bad' {
  return outcome === 'failed' ? 'bad' : outcome === 'retry' || outcome === 'dropped' ? 'warn' : 'ok';
}

/** One output of the transform against the input: the changes listed, and both as trees (the output's changes marked). */
export function OutputDiff({ input, output, index, count }: { input: Record<string, unknown>; output: Record<string, unknown>; index: number; count: number }) {
  const { changes, more } = useMemo(() => diffJson(input, output), [input, output]);
  const annotations = useMemo<Annotation[]>(() => changes.map(noteOf), [changes]);
  const name = count > 1 ? `output ${index + 1} of ${count}` : 'output';
  return (
    <div className="tf-diff">
      <h4 className="section-title">
        Input → {name}{' '}
        <span className="muted">{changes.length === 0 ? 'no field changed' : `${changes.length}${more ? '+' : ''} ${changes.length === 1 ? 'change' : 'changes'}`}</span>
      </h4>
      {changes.length > 0 ? (
        <ul className="tf-changes" aria-label={`Changes in ${name}`}>
          {changes.map((c) => (
            <li key={`${c.kind} ${c.pointer}`} className={`tf-change tf-change-${c.kind}`}>
              <span className="tf-change-kind">{c.kind}</span> <code>{c.path}</code>{' '}
              {c.kind === 'changed' ? `${shortJson(c.before)} → ${shortJson(c.after)}` : c.kind === 'added' ? shortJson(c.after) : `was ${shortJson(c.before)}`}
            </li>
          ))}
          {more ? <li className="muted">… and more</li> : null}
        </ul>
      ) : null}
      <div className="tf-trees">
        <details>
          <summary>Input</summary>
          <JsonTree value={input} label="Input" />
        </details>
        <details open>
          <summary>{count > 1 ? `Output ${index + 1}` : 'Output'}</summary>
          <JsonTree value={output} label={count > 1 ? `Output ${index + 1}` : 'Output'} annotations={annotations} />
        </details>
      </div>
    </div>
  );
}

function noteOf(change: FieldChange): Annotation {
  const text = change.kind === 'changed' ? `changed, was ${shortJson(change.before, 40)}` : change.kind === 'added' ? 'added' : `removed (was ${shortJson(change.before, 40)})`;
  return { pointer: change.pointer, text, tag: change.kind, tone: 'change' };
}

