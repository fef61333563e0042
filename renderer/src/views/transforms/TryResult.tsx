import type { TransformTry } from '../../../../shared/contract.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { formatDuration } from '../../lib/format.ts';
import { OutputDiff, TransformRun } from './TransformRun.tsx';


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
            <TransformRun run={transform} tone={tone}>
              {transform.output.map((output, i) => (
                <OutputDiff key={i} input={result.input} output={output} index={i} count={transform.output.length} />
              ))}
            </TransformRun>
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
