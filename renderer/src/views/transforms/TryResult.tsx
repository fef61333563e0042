import { useMemo } from 'react';
import type { TransformTry } from '../../../../shared/contract.ts';
import type { Annotation } from '../../components/json-pointer.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { JsonTree } from '../../components/JsonTree.tsx';
import { formatDuration } from '../../lib/format.ts';
import { diffJson, shortJson, type FieldChange } from './json-diff.ts';

const OUTCOME_WORDS = {
  changed: 'changed the message',
  unchanged: 'returned the message unchanged',
  dropped: 'dropped the message',
  retry: 'asked to retry (RetryError)',
  failed: 'failed',
} as const;

/**
 * What a destination's filters and transform make of one message (transforms.try): the filters'
 * decisions, the transform's outcome with its version and time, input → output as a diff (each output
 * of a fan-out; a drop says why; a failure shows its message and stack), its log lines, and the bodies
 * that would be sent. Nothing was sent.
 */
export function TryResult({ result, forward = false }: {
  result: TransformTry;
  /** A Tracking API forward: each body is one message of a `{"batch": […]}` request. */
  forward?: boolean;
}) {
  const { transform } = result;
  const dropped = result.bodies.length === 0;
  const tone = transform?.outcome === 'failed' ? 'bad' : transform?.outcome === 'retry' ? 'warn' : dropped ? 'warn' : 'ok';
  return (
    <div className="tf-result">
      <p className={`tf-summary tone-${tone}`} role="note" aria-label="Outcome">
        {sentence(result.summary)}
      </p>

      <section aria-label="Filter decisions">
        <h4 className="section-title">Filters</h4>
        {result.filters.length === 0 ? (
          <p className="hint">No filter applied to this message.</p>
        ) : (
          <ol className="tf-decisions">
            {result.filters.map((f) => (
              <li key={f.index} className={`tf-decision tf-decision-${f.effect}`}>
                {sentence(f.text)}
              </li>
            ))}
          </ol>
        )}
      </section>

      <section aria-label="Transform">
        <h4 className="section-title">
          Transform
          {transform ? (
            <span className="muted">
              version <code>{transform.version}</code> · ran in {formatDuration(transform.ms)}
            </span>
          ) : null}
        </h4>
        {!transform ? (
          <p className="hint">{dropped ? 'Not run: a filter dropped the message first.' : 'None ran: the message goes on as the filters leave it.'}</p>
        ) : (
          <>
            <p className={`tf-outcome tone-${tone}`}>
              The transform {OUTCOME_WORDS[transform.outcome]}
              {transform.message ? `: ${transform.message}` : '.'}
            </p>
            {transform.stack ? (
              <pre className="code-block tf-stack" aria-label="Stack">
                {transform.stack}
              </pre>
            ) : null}
            {transform.output.map((output, i) => (
              <OutputDiff key={i} input={result.input} output={output} index={i} count={transform.output.length} />
            ))}
            <h4 className="section-title">
              Log lines <span className="muted">{transform.logs.length}</span>
            </h4>
            {transform.logs.length === 0 ? (
              <p className="hint">The transform logged nothing.</p>
            ) : (
              <ol className="tf-logs" aria-label="Log lines">
                {transform.logs.map((line, i) => (
                  <li key={i} className={`tf-log tf-log-${line.level}`}>
                    <span className="tf-log-level">{line.level}</span> {line.text}
                  </li>
                ))}
              </ol>
            )}
          </>
        )}
      </section>

      <section aria-label="Bodies">
        <h4 className="section-title">
          {result.bodies.length === 1 ? 'Body' : 'Bodies'} <span className="muted">{dropped ? 'nothing would be sent' : forward ? 'each one message of a {"batch": […]} request, exactly as it would be sent (nothing was sent)' : 'exactly as they would be sent (nothing was sent)'}</span>
        </h4>
        {result.bodies.map((body, i) => (
          <div key={i} className="tf-body">
            <CopyButton text={body} label={result.bodies.length === 1 ? 'Copy body' : `Copy body ${i + 1}`} />
            <pre className="code-block" aria-label={result.bodies.length === 1 ? 'Body' : `Body ${i + 1}`}>
              {pretty(body)}
            </pre>
          </div>
        ))}
      </section>
    </div>
  );
}

/** One output of the transform against the input: the changes listed, and both as trees (the output's changes marked). */
function OutputDiff({ input, output, index, count }: { input: Record<string, unknown>; output: Record<string, unknown>; index: number; count: number }) {
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

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

function sentence(text: string): string {
  const first = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}
