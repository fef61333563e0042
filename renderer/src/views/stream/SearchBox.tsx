import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import type { SavedSearch } from '../../../../shared/contract.ts';
import { MAX_QUERY_LENGTH, parseQuery, QueryError } from '../../../../shared/message-query.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import { applySuggestion, complete, QUERY_EXAMPLES, QUERY_FIELDS, type Completion, type CompletionContext } from './query-completion.ts';
import { matchingSaved, savedNarrows, toFilters } from './saved-search.ts';
import './search.css';

const NO_SOURCES: never[] = [];

/**
 * The stream's search: the query language (shared/message-query.ts), applied 200 ms after typing stops
 * and only once it parses (the problem shows under the box meanwhile, and the list keeps the last
 * query); completion of field names and values and, below them, the saved searches whose name or query
 * holds what is typed (all of them in an empty box) — one combobox: ↓ ↑ choose, Enter or Tab take the
 * option chosen (a saved search sets every filter it keeps; none is chosen until ↓ or ↑: Enter then
 * searches what is typed), Esc closes; the syntax help, whose examples fill the box.
 */
export function SearchBox({ searchRef }: { searchRef: RefObject<HTMLInputElement | null> }) {
  const inspector = useInspector();
  const applied = useInspectorState((s) => s.filters.search);
  const sources = useInspectorState((s) => s.info?.sources) ?? NO_SOURCES;
  const [text, setText] = useState(applied);
  const [completion, setCompletion] = useState<Completion | null>(null);
  /** The option chosen with the arrows; -1: none (Enter searches what is typed). */
  const [active, setActive] = useState(0);
  /** Every saved search (read again each time the box takes the focus), and whether they are offered now. */
  const [saved, setSaved] = useState<readonly SavedSearch[]>([]);
  const [savedShown, setSavedShown] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const sent = useRef(applied);
  const helpButton = useRef<HTMLButtonElement>(null);
  /** Closes the syntax help from inside it (Esc): the focus goes back to its button. */
  const closeHelp = () => {
    setHelpOpen(false);
    helpButton.current?.focus();
  };
  const ids = { list: useId(), error: useId(), help: useId(), hint: useId() };
  const offered = savedShown ? matchingSaved(saved, text) : [];
  const suggestions = completion?.suggestions ?? [];
  const total = suggestions.length + offered.length;

  // Parsed when the text changes (not at each arrow key in the suggestions).
  const problem = useMemo(() => {
    try {
      parseQuery(text);
      return null;
    } catch (error) {
      if (!(error instanceof QueryError)) throw error;
      return error;
    }
  }, [text]);

  // Filters cleared elsewhere (Esc, the top bar's button): follow them.
  useEffect(() => {
    if (applied !== sent.current) {
      sent.current = applied;
      setText(applied);
    }
  }, [applied]);

  const parses = problem === null;
  useEffect(() => {
    if (text === sent.current || !parses) return;
    const timer = setTimeout(() => {
      sent.current = text;
      inspector.setFilters({ search: text });
    }, 200);
    return () => clearTimeout(timer);
  }, [text, parses, inspector]);

  function apply(query: string): void {
    sent.current = query;
    inspector.setFilters({ search: query });
  }

  function context(): CompletionContext {
    const events = new Set<string>();
    let seen = 0;
    for (const row of inspector.store.getState().list.byId.values()) {
      if (row.event) events.add(row.event);
      if (++seen >= 2000 || events.size >= 200) break;
    }
    return { sources: sources.map((s) => s.name), events: [...events].sort() };
  }

  function suggest(query: string, at: number, all = false): void {
    const next = complete(query, at, context(), all);
    setCompletion(next);
    setSavedShown(true);
    // Nothing is chosen until ↓ (or ↑) moves to it: Enter searches what is typed — `event` searches the
    // word, not `event:` — and Tab moves on. ↓ on a closed list opens it on its first option.
    setActive(all ? 0 : -1);
  }

  function close(): void {
    setCompletion(null);
    setSavedShown(false);
  }

  function readSaved(): void {
    void inspector.call('searches.list', {}).then((result) => {
      if (result.ok) setSaved(result.value.searches);
    });
  }

  /** A saved search: its query in the box and every filter it keeps on the stream. */
  function pick(search: SavedSearch): void {
    setText(search.filters.search);
    sent.current = search.filters.search;
    inspector.setFilters(toFilters(search.filters));
    close();
  }

  function take(index: number): void {
    if (index >= suggestions.length) {
      const search = offered[index - suggestions.length];
      if (search) pick(search);
      return;
    }
    if (!completion) return;
    const suggestion = completion.suggestions[index];
    if (!suggestion) return;
    const next = applySuggestion(text, completion, suggestion);
    setText(next.query);
    requestAnimationFrame(() => {
      searchRef.current?.setSelectionRange(next.caret, next.caret);
      suggest(next.query, next.caret);
    });
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>): void {
    const open = total > 0;
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      if (!open) suggest(text, e.currentTarget.selectionStart ?? text.length, true);
      else setActive((a) => (a + 1) % total);
    } else if (e.key === 'ArrowUp' && open) {
      e.preventDefault();
      setActive((a) => (a <= 0 ? total - 1 : a - 1));
    } else if ((e.key === 'Enter' || e.key === 'Tab') && open && active >= 0 && !e.shiftKey) {
      e.preventDefault();
      take(active);
    } else if (e.key === 'Escape' && open) {
      e.preventDefault(); // closes the list; the stream's Esc (clear the filters) waits for the next one
      close();
    } else if (e.key === 'Escape' && helpOpen) {
      e.preventDefault(); // closes the syntax help, the same way
      setHelpOpen(false);
    } else if (e.key === 'Enter' && !problem) {
      apply(text);
      close();
    }
  }

  const open = total > 0;
  const optionId = (i: number) => `${ids.list}-${i}`;
  return (
    <div className="field field-grow search-field">
      <label className="field-label" htmlFor={`${ids.list}-input`}>
        Search
      </label>
      <div className="search-row">
        <div className="search-combo">
          <input
            id={`${ids.list}-input`}
            ref={searchRef}
            type="search"
            role="combobox"
            aria-label="Search messages"
            aria-autocomplete="list"
            aria-expanded={open}
            aria-controls={ids.list}
            aria-activedescendant={open && active >= 0 ? optionId(active) : undefined}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? ids.error : ids.hint}
            placeholder="words, or field:value — e.g. ord_123 event:Signup -type:identify   ( / )"
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              suggest(e.target.value, e.target.selectionStart ?? e.target.value.length);
            }}
            onKeyDown={onKeyDown}
            onFocus={() => {
              readSaved();
              setSavedShown(true);
              setActive(completion ? active : -1);
            }}
            onBlur={close}
            onClick={(e) => suggest(text, e.currentTarget.selectionStart ?? text.length)}
            maxLength={MAX_QUERY_LENGTH}
            spellCheck={false}
            autoComplete="off"
          />
          {open ? (
            <ul className="search-suggestions" role="listbox" id={ids.list} aria-label="Suggestions">
              {suggestions.map((s, i) => (
                <SuggestionOption key={s.insert} id={optionId(i)} active={i === active} onTake={() => take(i)}>
                  <span className="mono">{s.label}</span> <span className="muted">{s.detail}</span>
                </SuggestionOption>
              ))}
              {offered.length > 0 ? (
                <li role="none" className="search-group">
                  <span className="search-group-label" aria-hidden="true">
                    Saved searches
                  </span>
                  <ul role="group" aria-label="Saved searches">
                    {offered.map((search, j) => {
                      const i = suggestions.length + j;
                      const narrows = savedNarrows(search.filters);
                      return (
                        <SuggestionOption key={search.name} id={optionId(i)} active={i === active} onTake={() => take(i)}>
                          <span aria-hidden="true">★ </span>
                          {search.name} <span className="muted mono">{search.filters.search || '(no search)'}</span>
                          {narrows ? <span className="muted"> · {narrows}</span> : null}
                        </SuggestionOption>
                      );
                    })}
                  </ul>
                </li>
              ) : null}
            </ul>
          ) : null}
        </div>
        <button
          ref={helpButton}
          type="button"
          className="btn"
          aria-expanded={helpOpen}
          aria-controls={ids.help}
          title="How to write a search"
          onClick={() => setHelpOpen(!helpOpen)}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && helpOpen) {
              e.preventDefault(); // the help closes; the stream's Esc (clear the filters) waits for the next one
              setHelpOpen(false);
            }
          }}
        >
          Syntax
        </button>
      </div>
      <span id={ids.hint} hidden>
        Words anywhere in the message, or field:value clauses. Down arrow for suggestions.
      </span>
      {problem ? (
        <p className="field-error search-error" id={ids.error} role="status">
          {problem.message}.{' '}
          {problem.suggestion !== undefined ? (
            <button type="button" className="btn btn-small mono" onClick={() => (setText(problem.suggestion!), apply(problem.suggestion!), searchRef.current?.focus())}>
              Search {problem.suggestion}
            </button>
          ) : null}{' '}
          <span className="muted">The list still shows the last search that worked{sent.current ? `: ${sent.current}` : ''}.</span>
        </p>
      ) : null}
      {helpOpen ? <QueryHelp id={ids.help} onPick={(query) => (setText(query), apply(query), searchRef.current?.focus())} onClose={closeHelp} /> : null}
    </div>
  );
}

/** The syntax help: each example fills the box when pressed; the fields with what they compare. Esc inside it closes it. */
/** One option of the search box's list (a completion or a saved search): chosen by a click, the focus kept in the box. */
function SuggestionOption({ id, active, onTake, children }: { id: string; active: boolean; onTake: () => void; children: ReactNode }) {
  return (
    <li
      id={id}
      role="option"
      aria-selected={active}
      className={active ? 'active' : undefined}
      onMouseDown={(e) => e.preventDefault() /* keep the focus in the box */}
      onClick={onTake}
    >
      {children}
    </li>
  );
}

function QueryHelp({ id, onPick, onClose }: { id: string; onPick: (query: string) => void; onClose: () => void }) {
  return (
    <section
      className="search-help"
      id={id}
      aria-label="Search syntax"
      onKeyDown={(e) => {
        if (e.key !== 'Escape') return;
        e.preventDefault(); // not the stream's Esc (clear the filters)
        e.stopPropagation();
        onClose();
      }}
    >
      <table>
        <caption className="sr-only">Examples</caption>
        <tbody>
          {QUERY_EXAMPLES.map((example) => (
            <tr key={example.query}>
              <td>
                <button type="button" className="btn btn-small mono" title="Search for this" onClick={() => onPick(example.query)}>
                  {example.query}
                </button>
              </td>
              <td>{example.finds}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint">
        Fields:{' '}
        {Object.entries(QUERY_FIELDS).map(([name, what], i) => (
          <span key={name} title={what}>
            {i > 0 ? ', ' : ''}
            <code>{name}</code>
          </span>
        ))}
        {' '}— words are letters and digits; A–Z match a–z. The last word of a clause matches longer words once it has 3 characters.
      </p>
    </section>
  );
}
