import { useEffect, useState } from 'react';
import type { TransformSource } from '../../../../shared/contract.ts';
import { CodeArea, type CodeProblem } from '../../components/CodeArea.tsx';
import { clockTime } from '../../lib/format.ts';
import { useInspector } from '../../store/react.ts';
import { problemOf, STARTER_TRANSFORM } from './transform-words.ts';

/**
 * A destination's transform, edited: its source in a code area (line numbers; a refused save's
 * problem at its line and column), Save (compiled by the core first: a source that does not compile
 * is refused, the version in use stays), Remove, and what is in use — the file, its version, and why
 * the file's own text is not in use when a reload refused it. `onDraft` hears the text as typed (the
 * preview runs it unsaved); `version` changes when a save lands.
 */
export function TransformEditor({ destinationId, revision, onDraft }: {
  destinationId: number;
  /** Changes when the destination's settings change elsewhere: read the transform again. */
  revision: string;
  /** The text as typed; null when the editor holds nothing to run. */
  onDraft: (source: string | null) => void;
}) {
  const inspector = useInspector();
  const [current, setCurrent] = useState<TransformSource | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [text, setText] = useState<string | null>(null);
  const [problem, setProblem] = useState<CodeProblem | null>(null);
  const [saving, setSaving] = useState(false);
  const [status, setStatus] = useState<{ tone: 'ok' | 'bad'; text: string } | null>(null);

  useEffect(() => {
    let live = true;
    void inspector.call('transforms.get', { destinationId }).then((result) => {
      if (!live) return;
      if (!result.ok) {
        setLoadError(result.error.message);
        return;
      }
      setLoadError(null);
      setCurrent(result.value);
      // An edit under way is kept; otherwise the editor shows the file as it is now.
      setText((t) => (t === null || t === current?.source ? result.value.source : t));
    });
    return () => {
      live = false;
    };
  }, [destinationId, revision]);

  const shown = text ?? current?.source ?? '';
  const dirty = text !== null && text !== (current?.source ?? null);
  useEffect(() => {
    onDraft(text !== null && text.trim() !== '' && dirty ? text : null);
  }, [text, dirty]);

  const edit = (next: string) => {
    setText(next);
    setProblem(null);
    setStatus(null);
  };

  const save = async (source: string | null) => {
    setSaving(true);
    const result = await inspector.call('transforms.save', { destinationId, source });
    setSaving(false);
    if (!result.ok) {
      const at = problemOf(result.error);
      setProblem(at);
      setStatus({ tone: 'bad', text: at ? 'Not saved: the transform does not compile; the version in use stays.' : `Not saved: ${result.error.message}` });
      return;
    }
    setCurrent(result.value);
    setText(result.value.source);
    setProblem(null);
    setStatus({
      tone: 'ok',
      text: source === null ? `Transform removed at ${clockTime(Date.now())}.` : `Saved at ${clockTime(Date.now())} — version ${result.value.version ?? '?'} in use from the next delivery.`,
    });
  };

  return (
    <section className="tf-transform" aria-labelledby="tf-transform-title">
      <h3 id="tf-transform-title" className="section-title">
        Transform <span className="muted">JavaScript run on each message before its body is built: onTrack, onIdentify, … or onEvent</span>
      </h3>
      {loadError ? (
        <p role="alert" className="error-text">
          Could not read the transform: {loadError}
        </p>
      ) : null}
      <dl className="facts tf-transform-facts" aria-label="Transform in use">
        <div className="fact">
          <dt>file</dt>
          <dd>
            {current?.file ?? <span className="muted">none yet — Save writes it to the data folder</span>}
            {current?.file && !current.inDataFolder ? <span className="muted"> (the config’s; Save writes a copy to the data folder and leaves this file as it is)</span> : null}
          </dd>
        </div>
        <div className="fact">
          <dt>version</dt>
          <dd>{current?.version ? <code>{current.version}</code> : <span className="muted">—</span>}</dd>
        </div>
      </dl>
      {current?.error ? (
        <p className="banner banner-warn" role="note">
          The file’s current text is not in use: {current.error}.{current.version ? ` Version ${current.version} stays in use.` : ''}
        </p>
      ) : null}
      {text === null && current && current.source === null ? (
        <p className="hint">
          No transform: messages go as the filters leave them.{' '}
          <button type="button" className="btn btn-small" onClick={() => edit(STARTER_TRANSFORM)}>
            Write a transform
          </button>
        </p>
      ) : (
        <CodeArea
          value={shown}
          onChange={edit}
          problem={problem}
          tabIndents
          label="Transform source"
          status={dirty ? 'Unsaved: the preview below runs this text. Tab indents; Esc then Tab moves on.' : 'Tab indents; Esc then Tab moves on.'}
        />
      )}
      <div className="tf-transform-actions">
        <button type="button" className="btn btn-primary" disabled={saving || !dirty || shown.trim() === ''} onClick={() => void save(shown)}>
          {saving ? 'Saving…' : 'Save transform'}
        </button>
        {dirty ? (
          <button type="button" className="btn" disabled={saving} onClick={() => { setText(null); setProblem(null); setStatus(null); }}>
            Discard edits
          </button>
        ) : null}
        {current?.file ? (
          <button type="button" className="btn" disabled={saving} onClick={() => void save(null)}>
            Remove transform
          </button>
        ) : null}
        <p className="tf-transform-status" role="status" aria-label="Transform save">
          {status ? <span className={`tone-${status.tone}`}>{status.text}</span> : null}
        </p>
      </div>
    </section>
  );
}
