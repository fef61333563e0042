import { useEffect, useState } from 'react';
import type { MessageSummary, RequestOf } from '../../../../shared/contract.ts';
import { Field } from '../../components/Field.tsx';
import { clockTime } from '../../lib/format.ts';
import { useInspector } from '../../store/react.ts';
import { TryResult } from './TryResult.tsx';
import { useTry } from './use-try.ts';

/** Messages offered to preview on: the newest of the destination's sources. */
const OFFERED = 20;

/**
 * The destination editor's preview: the unsaved filters and transform on a stored message of the
 * destination's sources (the newest by default; any of the latest 20 to choose), run again as they are
 * edited. Nothing is sent or stored.
 */
export function TransformPreview({ destinationId, forward, sourceIds, filters, source }: {
  destinationId: number;
  /** A Tracking API forward (its bodies are batched). */
  forward: boolean;
  sourceIds: readonly number[];
  /** The filters as edited, when they are valid (null: the saved ones). */
  filters: RequestOf<'transforms.try'>['filters'] | null;
  /** The transform as edited, unsaved (null: the saved one). */
  source: string | null;
}) {
  const inspector = useInspector();
  const [messages, setMessages] = useState<MessageSummary[] | null>(null);
  const [messageId, setMessageId] = useState<number | null>(null);
  const [reloads, setReloads] = useState(0);
  const sourcesKey = sourceIds.join(',');

  useEffect(() => {
    let live = true;
    void Promise.all(sourceIds.map((sourceId) => inspector.call('messages.list', { sourceId, status: 'accepted', limit: OFFERED }))).then((pages) => {
      if (!live) return;
      const found = pages.flatMap((page) => (page.ok ? page.value.messages : []));
      found.sort((a, b) => b.id - a.id);
      const newest = found.slice(0, OFFERED);
      setMessages(newest);
      setMessageId((id) => (id !== null && newest.some((m) => m.id === id) ? id : (newest[0]?.id ?? null)));
    });
    return () => {
      live = false;
    };
  }, [sourcesKey, reloads]);

  const request =
    messageId === null ? null : { messageId, destinationId, ...(filters ? { filters } : {}), ...(source !== null ? { source } : {}) };
  const { state } = useTry(request, 300);

  return (
    <section className="tf-preview" aria-labelledby="tf-preview-title">
      <h3 id="tf-preview-title" className="section-title">
        Preview <span className="muted">the filters and transform above, saved or not, on a stored message; Sluice sends nothing to the destination (what the transform itself fetches, it fetches)</span>
      </h3>
      {messages === null ? (
        <p className="muted">Reading the latest messages…</p>
      ) : messages.length === 0 ? (
        <p className="hint">
          {sourceIds.length === 0 ? 'Connect a source and send a message to preview on it.' : 'No message from the connected sources yet: send one, then'}{' '}
          <button type="button" className="btn btn-small" onClick={() => setReloads((n) => n + 1)}>
            Look again
          </button>
        </p>
      ) : (
        <div className="tf-try-controls">
          <Field label="Preview on message" className="tf-preview-message">
            {(control) => (
              <select {...control} value={messageId ?? ''} onChange={(e) => setMessageId(Number(e.target.value))}>
                {messages.map((m) => (
                  <option key={m.id} value={m.id}>
                    {`#${m.id} · ${m.type ?? 'invalid'}${m.event ? ` ${m.event}` : ''} · ${m.userId ?? m.anonymousId ?? ''} · ${clockTime(m.receivedAt)}`}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="button" className="btn btn-small" onClick={() => setReloads((n) => n + 1)}>
            Newest messages
          </button>
        </div>
      )}
      <div aria-live="polite" aria-busy={state.kind === 'running'} className="tf-try-out">
        {state.kind === 'error' ? (
          <p role="alert" className="error-text">
            Could not preview: {state.message}
          </p>
        ) : state.kind === 'done' ? (
          <TryResult result={state.result} forward={forward} />
        ) : state.kind === 'running' && state.last ? (
          <TryResult result={state.last} forward={forward} />
        ) : null}
      </div>
    </section>
  );
}
