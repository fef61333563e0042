import { useEffect, useId, useRef, useState } from 'react';
import type { SavedSearch } from '../../../../shared/contract.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { toFilters, toSaved } from './saved-search.ts';
import './keys.css';

/**
 * Saved searches, beside the search box: *Saved…* opens them — pick one to apply its search and
 * filters, rename or delete it — and saves the current search and filters under a new name (the search
 * box offers them too, as you type: SearchBox.tsx). Kept in the store (`searches.*`), so they last
 * across restarts and every window has them.
 */
export function SavedSearches() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="btn" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Saved…
      </button>
      {open ? <SavedSearchesDialog onClose={() => setOpen(false)} /> : null}
    </>
  );
}

function SavedSearchesDialog({ onClose }: { onClose: () => void }) {
  const inspector = useInspector();
  const filters = useInspectorState((s) => s.filters);
  const [searches, setSearches] = useState<SavedSearch[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<{ from: string; to: string } | null>(null);
  const textId = useId();
  const nameRef = useRef<HTMLInputElement>(null);

  const answer = (result: Awaited<ReturnType<typeof inspector.call<'searches.list'>>>): boolean => {
    if (result.ok) {
      setSearches(result.value.searches);
      setProblem(null);
      return true;
    }
    setProblem(result.error.issues?.[0] ? `${result.error.issues[0].path.join('.') || 'name'}: ${result.error.issues[0].message}` : result.error.message);
    return false;
  };

  useEffect(() => {
    void inspector.call('searches.list', {}).then(answer);
  }, [inspector]);

  const save = async () => {
    if (answer(await inspector.call('searches.save', { name, filters: toSaved(filters) }))) setName('');
  };

  return (
    <Dialog title="Saved searches" className="saved-dialog" describedBy={textId} initialFocus={nameRef} onClose={onClose}>
      <p id={textId}>Pick one to show its search and filters; save the current ones under a name. Kept across restarts.</p>
      <form
        className="saved-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <label>
          Save the current search as
          <input ref={nameRef} value={name} maxLength={80} onChange={(e) => setName(e.target.value)} />
        </label>
        <span className="muted mono">{filters.search || '(no search)'}</span>
        <button type="submit" className="btn btn-primary">
          Save
        </button>
      </form>
      {problem ? (
        <p role="alert" className="error-text">
          {problem}
        </p>
      ) : null}
      {searches === null ? (
        <p className="muted">Loading…</p>
      ) : searches.length === 0 ? (
        <p className="muted">No saved search yet.</p>
      ) : (
        <ul className="saved-list" aria-label="Saved searches">
          {searches.map((s) => (
            <li key={s.name}>
              {renaming?.from === s.name ? (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    void inspector.call('searches.rename', { name: s.name, to: renaming.to }).then((r) => answer(r) && setRenaming(null));
                  }}
                >
                  <label>
                    New name for {s.name}
                    <input autoFocus value={renaming.to} maxLength={80} onChange={(e) => setRenaming({ from: s.name, to: e.target.value })} />
                  </label>
                  <button type="submit" className="btn btn-small">
                    Rename
                  </button>
                  <button type="button" className="btn btn-small btn-quiet" onClick={() => setRenaming(null)}>
                    Cancel
                  </button>
                </form>
              ) : (
                <>
                  <button
                    type="button"
                    className="btn btn-quiet saved-pick"
                    onClick={() => {
                      inspector.setFilters(toFilters(s.filters));
                      onClose();
                    }}
                  >
                    {s.name}
                  </button>
                  <span className="muted mono">{s.filters.search}</span>
                  <button type="button" className="btn btn-small btn-quiet" aria-label={`Rename ${s.name}`} onClick={() => setRenaming({ from: s.name, to: s.name })}>
                    Rename
                  </button>
                  <button type="button" className="btn btn-small btn-quiet" aria-label={`Delete ${s.name}`} onClick={() => void inspector.call('searches.delete', { name: s.name }).then(answer)}>
                    Delete
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
