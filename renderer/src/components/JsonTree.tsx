import { createContext, memo, useContext, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { formatCount } from '../lib/format.ts';
import { CHILD_PAGE, childrenShown, foldedSummary, isContainer, startsOpen } from './json-fold.ts';
import { childPointer, notesInside, placeAnnotations, type Annotation, type PlacedAnnotation, type Placement } from './json-pointer.ts';

const LONG_STRING = 160;

/** Which annotation to bring into view and focus; a new `seq` does it again. */
export interface Reveal {
  index: number;
  seq: number;
}

interface TreeContextValue {
  placement: Placement | null;
  /** The node to reveal (the pointer of the node its annotation is shown on). */
  reveal: { node: string; seq: number } | null;
  /** The reveal already done (a node mounted again later does not steal the focus). */
  revealed: { current: number };
}

const TreeContext = createContext<TreeContextValue>({ placement: null, reveal: null, revealed: { current: -1 } });

/**
 * A monospace JSON tree: every object and array folds and unfolds by its toggle (a button with
 * aria-expanded: click, Enter or Space; → opens, ← folds), a folded one saying what it holds
 * (`{…} 12 keys`); deep or big ones start folded, long strings start cut (json-fold.ts).
 * `annotations` put a note beside the node each JSON Pointer names (a node under a note starts open);
 * a pointer to a node that does not exist (a missing required field) shows at its deepest existing
 * ancestor as "missing: <name> — <note>". `reveal` opens the way to one annotation's node, scrolls
 * it into view and focuses it.
 */
export function JsonTree({ value, label, annotations, reveal }: {
  value: unknown;
  label: string;
  annotations?: readonly Annotation[] | undefined;
  reveal?: Reveal | null | undefined;
}) {
  const revealed = useRef(-1);
  const placement = useMemo(() => (annotations && annotations.length > 0 ? placeAnnotations(value, annotations) : null), [value, annotations]);
  const node = reveal && placement ? placement.nodeOf[reveal.index] : undefined;
  const context = useMemo<TreeContextValue>(
    () => ({ placement, reveal: node !== undefined && reveal ? { node, seq: reveal.seq } : null, revealed }),
    [placement, node, reveal?.seq],
  );
  return (
    <TreeContext.Provider value={context}>
      <div className="json-tree" role="tree" aria-label={label}>
        <JsonNode name={null} value={value} depth={0} last pointer="" />
      </div>
    </TreeContext.Provider>
  );
}

/** Opens the node when a note below it needs showing or is revealed; focuses the line of a revealed node. */
/** `startOpen` is asked once, when the node first renders (it walks the node's values). */
function useNodeOpening(pointer: string, startOpen: () => boolean) {
  const { placement, reveal, revealed } = useContext(TreeContext);
  const mustOpen = placement?.open.has(pointer) ?? false;
  const [open, setOpen] = useState(() => mustOpen || startOpen());
  const line = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (mustOpen) setOpen(true);
  }, [mustOpen]);
  useEffect(() => {
    if (!reveal) return;
    if (reveal.node === pointer || reveal.node.startsWith(`${pointer}/`)) setOpen(true);
    if (reveal.node === pointer && revealed.current !== reveal.seq && line.current) {
      revealed.current = reveal.seq;
      line.current.scrollIntoView?.({ block: 'center' });
      line.current.focus({ preventScroll: true });
    }
  }, [reveal?.seq, reveal?.node, pointer, revealed]);
  // Folded, the node hides the notes below it: their count shows on its line.
  const inside = !open && placement ? notesInside(placement, pointer) : 0;
  return { open, setOpen, line, notes: placement?.at.get(pointer) ?? NO_NOTES, inside, focused: reveal?.node === pointer };
}

const NO_NOTES: PlacedAnnotation[] = [];

function Note({ placed }: { placed: PlacedAnnotation }) {
  const { annotation, missing } = placed;
  return (
    <span className={annotation.tone === 'change' ? 'j-annot j-annot-change' : 'j-annot'} title={annotation.title}>
      <span aria-hidden="true">{annotation.tone === 'change' ? '± ' : '⚠ '}</span>
      {annotation.tag ? <span className="sr-only">{annotation.tag}: </span> : null}
      {missing !== null ? `missing: ${missing} — ` : ''}
      {annotation.text}
    </span>
  );
}

/** "⚠ 3 inside" on a folded node's line: notes below it, hidden while it is folded; pressing it unfolds the node. */
function FoldedNotes({ count, onOpen }: { count: number; onOpen: () => void }) {
  const n = formatCount(count);
  return (
    <button
      type="button"
      className="j-inside"
      aria-label={`${n} inside: ${count === 1 ? 'a note is' : `${n} notes are`} folded in here; expand to see ${count === 1 ? 'it' : 'them'}`}
      onClick={onOpen}
    >
      <span aria-hidden="true">⚠ </span>
      {n} inside
    </button>
  );
}

function Notes({ notes }: { notes: readonly PlacedAnnotation[] }) {
  return notes.map((n) => <Note key={n.index} placed={n} />);
}

const JsonNode = memo(function JsonNode({ name, value, depth, last, pointer }: {
  name: string | null;
  value: unknown;
  depth: number;
  last: boolean;
  pointer: string;
}) {
  const container = isContainer(value);
  // Made once per value (a folded node of 10,000 items renders again without copying them).
  const entries = useMemo(
    () => (isContainer(value) ? (Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)) : []),
    [value],
  );
  const { open, setOpen, line, notes, inside, focused } = useNodeOpening(pointer, () => container && startsOpen(value, depth));
  const { placement } = useContext(TreeContext);
  const [page, setPage] = useState(CHILD_PAGE);
  const key = name === null ? null : <span className="j-key">{JSON.stringify(name)}</span>;
  const comma = last ? '' : ',';
  const flagged = notes.length > 0;
  const lineClass = `j-line${flagged ? ' j-flagged' : ''}${focused ? ' j-revealed' : ''}`;
  const lineProps = { ref: line, className: lineClass, style: { paddingLeft: depth * 14 }, ...(flagged ? { tabIndex: -1, 'data-pointer': pointer } : {}) };
  if (!container || entries.length === 0) {
    const [openBrace, closeBrace] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    return (
      <div role="treeitem" aria-selected={false} {...lineProps}>
        {key}
        {key ? <span className="j-punct">: </span> : null}
        {container ? <span className="j-punct">{`${openBrace}${closeBrace}`}</span> : <Scalar value={value} />}
        <span className="j-punct">{comma}</span>
        <Notes notes={notes} />
      </div>
    );
  }
  const [openBrace, closeBrace] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  const folded = foldedSummary(value);
  // Its name as its toggle's (stable: aria-expanded says the state): the key, an array's item by index, or the root.
  const toggleName = name ?? (pointer === '' ? 'root' : `item ${pointer.slice(pointer.lastIndexOf('/') + 1)}`);
  const toggleKeys = (event: KeyboardEvent) => {
    if ((event.key === 'ArrowRight' && !open) || (event.key === 'ArrowLeft' && open)) {
      event.preventDefault();
      setOpen(!open);
    }
  };
  // A child past the page shows when a note is on it or below it.
  const needed = placement && open ? lastNeeded(entries, pointer, page, placement) : -1;
  const shownCount = childrenShown(entries.length, page, needed);
  // Notes about the node itself stay beside its brace; notes about missing children go among them when open.
  const own = open ? notes.filter((n) => n.missing === null) : notes;
  const missing = open ? notes.filter((n) => n.missing !== null) : NO_NOTES;
  return (
    <div role="treeitem" aria-expanded={open} aria-selected={false}>
      <div {...lineProps}>
        <button type="button" className="j-toggle" aria-label={toggleName} aria-expanded={open} onClick={() => setOpen(!open)} onKeyDown={toggleKeys}>
          {open ? '▾' : '▸'}
        </button>
        {key}
        {key ? <span className="j-punct">: </span> : null}
        {open ? (
          <span className="j-punct">{openBrace}</span>
        ) : (
          <>
            {/* The toggle is the control (keyboard and screen readers); a click on the summary opens it too. */}
            <span className="j-folded" onClick={() => setOpen(true)}>
              <span className="j-punct">{folded.braces}</span> <span className="j-summary">{folded.count}</span>
              <span className="j-punct">{comma}</span>
            </span>
            {inside > 0 ? <FoldedNotes count={inside} onOpen={() => setOpen(true)} /> : null}
          </>
        )}
        <Notes notes={own} />
      </div>
      {open ? (
        <div role="group">
          {missing.map((n) => (
            <div key={n.index} role="treeitem" aria-selected={false} className="j-line j-flagged j-missing" style={{ paddingLeft: (depth + 1) * 14 }}>
              <Note placed={n} />
            </div>
          ))}
          {entries.slice(0, shownCount).map(([k, v], i) => (
            <JsonNode
              key={k}
              name={Array.isArray(value) ? null : k}
              value={v}
              depth={depth + 1}
              last={i === entries.length - 1}
              pointer={childPointer(pointer, k)}
            />
          ))}
          {shownCount < entries.length ? (
            <div role="treeitem" aria-selected={false} className="j-line" style={{ paddingLeft: (depth + 1) * 14 }}>
              <button type="button" className="j-more" onClick={() => setPage(shownCount + CHILD_PAGE)}>
                show {formatCount(Math.min(CHILD_PAGE, entries.length - shownCount))} more of {formatCount(entries.length - shownCount)} left
                {Array.isArray(value) ? ' items' : ' keys'}
              </button>
            </div>
          ) : null}
          <div className="j-line" style={{ paddingLeft: depth * 14 }}>
            <span className="j-punct">{`${closeBrace}${comma}`}</span>
          </div>
        </div>
      ) : null}
    </div>
  );
});

/** The index of the last child past the first `from` that is, or holds, a node with a note; -1 when none. */
function lastNeeded(entries: readonly (readonly [string, unknown])[], pointer: string, from: number, placement: Placement): number {
  for (let i = entries.length - 1; i >= from; i--) if (placement.open.has(childPointer(pointer, entries[i]![0]))) return i;
  return -1;
}

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
