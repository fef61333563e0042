import { useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import './code-area.css';

/** Where a text is wrong: 1-based line and column, and the UTF-16 offset to select (the line's start when unknown). */
export interface CodeProblem {
  line: number;
  column: number;
  message: string;
  offset?: number;
}

/**
 * A plain textarea with a line-number gutter, monospace, no soft wrap (so numbers stay on their
 * lines): the replay's JSON editor and the transform editor. The problem, with its line and column,
 * is announced politely, marked in the gutter, and one button away; `status` is said when there is none.
 * With `tabIndents`, Tab inserts two spaces (code is indented); Esc, then Tab, moves on as usual, so
 * the keyboard is never trapped.
 */
export function CodeArea({ value, onChange, problem, status, label, tabIndents = false, className }: {
  value: string;
  onChange: (text: string) => void;
  problem: CodeProblem | null;
  status: ReactNode;
  label: string;
  tabIndents?: boolean;
  className?: string;
}) {
  const statusId = useId();
  const gutter = useRef<HTMLDivElement>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const [leaving, setLeaving] = useState(false);
  const lines = useMemo(() => {
    let n = 1;
    for (let i = 0; i < value.length; i++) if (value.charCodeAt(i) === 10) n++;
    return n;
  }, [value]);

  const goToProblem = () => {
    if (!problem || !area.current) return;
    const offset = problem.offset ?? offsetOf(value, problem.line, problem.column);
    area.current.focus();
    area.current.setSelectionRange(offset, Math.min(value.length, offset + 1));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!tabIndents) return;
    if (event.key === 'Escape') {
      setLeaving(true);
      return;
    }
    if (event.key !== 'Tab' || leaving || event.shiftKey || event.ctrlKey || event.metaKey || event.altKey) {
      if (event.key !== 'Shift') setLeaving(false);
      return;
    }
    event.preventDefault();
    const el = event.currentTarget;
    const { selectionStart: start, selectionEnd: end } = el;
    onChange(`${value.slice(0, start)}  ${value.slice(end)}`);
    requestAnimationFrame(() => el.setSelectionRange(start + 2, start + 2));
  };

  return (
    <div className={className ? `code-area-wrap ${className}` : 'code-area-wrap'}>
      <div className={`code-area${problem ? ' code-area-invalid' : ''}`}>
        <div className="code-gutter" aria-hidden="true" ref={gutter}>
          {Array.from({ length: lines }, (_, i) => (
            <span key={i} className={problem?.line === i + 1 ? 'gutter-error' : undefined}>
              {i + 1}
            </span>
          ))}
        </div>
        <textarea
          ref={area}
          className="code-text"
          aria-label={label}
          aria-invalid={problem !== null}
          aria-describedby={statusId}
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          wrap="off"
          value={value}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={onKeyDown}
          onBlur={() => setLeaving(false)}
          onScroll={(e) => {
            if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
          }}
        />
      </div>
      <p id={statusId} className={`code-status ${problem ? 'error-text' : 'muted'}`} aria-live="polite">
        {problem ? (
          <>
            <span>
              Line {problem.line}, column {problem.column}: {problem.message}.
            </span>{' '}
            <button type="button" className="btn btn-small btn-quiet" onClick={goToProblem}>
              Go to the error
            </button>
          </>
        ) : (
          status
        )}
      </p>
    </div>
  );
}

/** The UTF-16 offset of a 1-based line and column (clamped to the text). */
export function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return Math.min(text.length, offset + Math.max(0, column - 1));
}
