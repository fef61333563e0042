import { memo, useState } from 'react';
import { formatCount } from '../lib/format.ts';

const LONG_STRING = 160;
const BIG = 30;

/** A monospace JSON tree: objects and arrays fold, long strings and big objects start folded. */
export function JsonTree({ value, label }: { value: unknown; label: string }) {
  return (
    <div className="json-tree" role="tree" aria-label={label}>
      <JsonNode name={null} value={value} depth={0} last />
    </div>
  );
}

function isContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === 'object' && value !== null;
}

const JsonNode = memo(function JsonNode({ name, value, depth, last }: { name: string | null; value: unknown; depth: number; last: boolean }) {
  const container = isContainer(value);
  const entries = container ? (Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)) : [];
  const [open, setOpen] = useState(() => depth < 2 && entries.length <= BIG);
  const key = name === null ? null : <span className="j-key">{JSON.stringify(name)}</span>;
  const comma = last ? '' : ',';
  if (!container) {
    return (
      <div role="treeitem" aria-selected={false} className="j-line" style={{ paddingLeft: depth * 14 }}>
        {key}
        {key ? <span className="j-punct">: </span> : null}
        <Scalar value={value} />
        <span className="j-punct">{comma}</span>
      </div>
    );
  }
  const [openBrace, closeBrace] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div role="treeitem" aria-selected={false} className="j-line" style={{ paddingLeft: depth * 14 }}>
        {key}
        {key ? <span className="j-punct">: </span> : null}
        <span className="j-punct">{`${openBrace}${closeBrace}${comma}`}</span>
      </div>
    );
  }
  const summary = Array.isArray(value) ? `${entries.length} item${entries.length === 1 ? '' : 's'}` : `${entries.length} key${entries.length === 1 ? '' : 's'}`;
  return (
    <div role="treeitem" aria-expanded={open} aria-selected={false}>
      <div className="j-line" style={{ paddingLeft: depth * 14 }}>
        <button
          type="button"
          className="j-toggle"
          aria-label={`${open ? 'Collapse' : 'Expand'} ${name ?? 'root'}`}
          onClick={() => setOpen(!open)}
        >
          {open ? '▾' : '▸'}
        </button>
        {key}
        {key ? <span className="j-punct">: </span> : null}
        <span className="j-punct">{openBrace}</span>
        {open ? null : (
          <>
            <button type="button" className="j-more" onClick={() => setOpen(true)} aria-label={`Expand ${name ?? 'root'} (${summary})`}>
              {summary}
            </button>
            <span className="j-punct">{`${closeBrace}${comma}`}</span>
          </>
        )}
      </div>
      {open ? (
        <div role="group">
          {entries.map(([k, v], i) => (
            <JsonNode key={k} name={Array.isArray(value) ? null : k} value={v} depth={depth + 1} last={i === entries.length - 1} />
          ))}
          <div className="j-line" style={{ paddingLeft: depth * 14 }}>
            <span className="j-punct">{`${closeBrace}${comma}`}</span>
          </div>
        </div>
      ) : null}
    </div>
  );
});

function Scalar({ value }: { value: unknown }) {
  const [full, setFull] = useState(false);
  if (typeof value === 'string') {
    const text = JSON.stringify(value);
    if (text.length > LONG_STRING && !full) {
      return (
        <>
          <span className="j-string">{text.slice(0, LONG_STRING)}…</span>{' '}
          <button type="button" className="j-more" onClick={() => setFull(true)}>
            show all {formatCount(value.length)} characters
          </button>
        </>
      );
    }
    return <span className="j-string">{text}</span>;
  }
  if (typeof value === 'number') return <span className="j-number">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="j-bool">{String(value)}</span>;
  if (value === null) return <span className="j-null">null</span>;
  return <span className="j-null">{String(value)}</span>;
}
