import { useId, useMemo, useRef } from 'react';
import type { JsonCheck } from './json-check.ts';

/**
 * A plain textarea with a line-number gutter, monospace, no soft wrap (so numbers stay on their
 * lines). The check is the caller's (it also decides whether sending is allowed); the error, with
 * its line and column, is announced politely and marked in the gutter.
 */
export function JsonEditor({ value, onChange, check, label }: {
  value: string;
  onChange: (text: string) => void;
  check: JsonCheck;
  label: string;
}) {
  const errorId = useId();
  const gutter = useRef<HTMLDivElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const lines = useMemo(() => {
    let n = 1;
    for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) === 10) n++;
    return n;
  }, [value]);
  const errorLine = check.ok ? null : check.line;

  const goToError = () => {
    if (check.ok || !area.current) return;
    area.current.focus();
    area.current.setSelectionRange(check.offset, Math.min(value.length, check.offset + 1));
  };

  return (
    <div className="json-editor-wrap">
      <div className={`json-editor${check.ok ? '' : ' json-editor-invalid'}`}>
        <div className="json-gutter" aria-hidden="true" ref={gutter}>
          {Array.from({ length: lines }, (_, i) => (
            <span key={i} className={errorLine === i + 1 ? 'gutter-error' : undefined}>
              {i + 1}
            </span>
          ))}
        </div>
        <textarea
          ref={area}
          className="json-text"
          aria-label={label}
          aria-invalid={!check.ok}
          aria-describedby={errorId}
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          wrap="off"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
          }}
        />
      </div>
      <p id={errorId} className={`json-status ${check.ok ? 'muted' : 'error-text'}`} aria-live="polite">
        {check.ok ? (
          'Valid JSON.'
        ) : (
          <>
            <span>
              Line {check.line}, column {check.column}: {check.message}.
            </span>{' '}
            <button type="button" className="btn btn-small btn-quiet" onClick={goToError}>
              Go to the error
            </button>
          </>
        )}
      </p>
    </div>
  );
}
