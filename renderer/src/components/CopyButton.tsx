import type { ReactNode } from 'react';
import { useEffect, useRef, useState } from 'react';
import { copyText } from '../lib/clipboard.ts';

/** A button that copies `text` (or what `getText` returns, or resolves to) and says so for a moment. */
export function CopyButton({ text, getText, label, children, className }: {
  text?: string;
  getText?: () => string | Promise<string>;
  /** Accessible name, e.g. "Copy ingest URL". */
  label: string;
  children?: ReactNode;
  className?: string;
}) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <button
      type="button"
      className={`btn btn-small copy ${className ?? ''}`}
      aria-label={label}
      title={label}
      data-state={state}
      onClick={async () => {
        let ok: boolean;
        try {
          ok = await copyText(getText ? await getText() : (text ?? ''));
        } catch {
          ok = false; // the text could not be had (e.g. a body that could not be read)
        }
        setState(ok ? 'copied' : 'failed');
        clearTimeout(timer.current);
        timer.current = setTimeout(() => setState('idle'), 1500);
      }}
    >
      {/* Both labels take the same cell, the idle one sized invisibly: the button never changes size. */}
      <span className="copy-label">
        <span className="copy-idle" aria-hidden={state !== 'idle'}>
          {children ?? 'Copy'}
        </span>
        <span className="copy-done" aria-live="polite">
          {state === 'copied' ? '✓ Copied' : state === 'failed' ? 'Copy failed' : ''}
        </span>
      </span>
    </button>
  );
}
