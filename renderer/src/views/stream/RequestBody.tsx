import { useMemo, useState } from 'react';
import { BODY_PREVIEW_BYTES } from '../../../../shared/limits.ts';
import { JsonTree } from '../../components/JsonTree.tsx';
import { formatBytes } from '../storage/storage-words.ts';
import { indentJson, parseBody } from './body-text.ts';
import type { WholeBody } from './use-whole-body.ts';
import './request-body.css';

/**
 * The Webhook tab's body: pretty-printed (a JSON tree that folds) or Raw — the exact text sent, the
 * stored body as it is. A body bigger than the detail carries (BODY_PREVIEW_BYTES) shows its start,
 * indented without being parsed, and "Show all" reads the rest from the core.
 */
export function RequestBody({ body }: { body: WholeBody }) {
  const [raw, setRaw] = useState(false);
  // Parsed only when whole: the start of a cut body is indented as text instead.
  const parsed = useMemo(() => (body.cut ? null : parseBody(body.text)), [body.cut, body.text]);
  // A cut body is taken for JSON when it starts like JSON (indenting plain text would drop its spaces).
  const json = parsed === null ? /^\s*[[{]/.test(body.text) : parsed.ok;
  const indented = useMemo(() => (body.cut && json && !raw ? indentJson(body.text) : null), [body.cut, body.text, raw, json]);

  return (
    <div className="request-body">
      <div className="request-body-bar">
        <div className="segmented" role="group" aria-label="Body view">
          <button type="button" className="btn btn-small" aria-pressed={!raw} disabled={!json} onClick={() => setRaw(false)}>
            Pretty
          </button>
          <button type="button" className="btn btn-small" aria-pressed={raw || !json} onClick={() => setRaw(true)}>
            Raw
          </button>
        </div>
        <span className="muted">
          {!json ? 'Not JSON: shown as sent.' : raw ? 'The exact text sent, byte for byte.' : 'Indented for reading; Raw shows the exact text sent.'}
        </span>
      </div>
      {body.cut ? (
        <p className="request-body-cut" role="note">
          <span>
            Showing the first {formatBytes(BODY_PREVIEW_BYTES)} of {formatBytes(body.bytes)}.
          </span>
          <button type="button" className="btn btn-small" disabled={body.loading} onClick={body.showAll}>
            {body.loading ? 'Loading…' : `Show all ${formatBytes(body.bytes)}`}
          </button>
          {body.error ? (
            <span className="tool-field-error" role="alert">
              {body.error}
            </span>
          ) : null}
        </p>
      ) : null}
      {body.cut ? (
        <pre className="code-block body-block" aria-label={raw ? 'Start of the request body' : 'Start of the request body, indented'}>
          {raw ? body.text : indented}
        </pre>
      ) : raw || !parsed?.ok ? (
        <pre className="code-block body-block" aria-label="Request body">
          {body.text}
        </pre>
      ) : (
        <JsonTree value={parsed.value} label="Request body, pretty-printed" />
      )}
      {body.cut ? <p className="muted request-body-more">… cut here, at {formatBytes(BODY_PREVIEW_BYTES)}: the rest is read with Show all.</p> : null}
    </div>
  );
}
