import { useEffect, useMemo, useRef, useState } from 'react';
import type { AudiencePreviewView } from '../../../../shared/audiences.ts';
import type { RequestOf } from '../../../../shared/contract.ts';
import { formatCount, plural } from '../../lib/format.ts';
import { useInspector } from '../../store/react.ts';
import { formatValue, previewRequest, type AudienceForm } from './audience-form.ts';

/** The preview follows the form this long after the last change. */
const PREVIEW_DELAY_MS = 400;

export interface PreviewState {
  status: 'idle' | 'counting' | 'ready' | 'failed';
  result: AudiencePreviewView | null;
  error: string | null;
}

/** Evaluates the form as it stands (debounced); keeps the last result on screen while counting. */
export function usePreview(form: AudienceForm): PreviewState {
  const inspector = useInspector();
  const [state, setState] = useState<PreviewState>({ status: 'idle', result: null, error: null });
  const request = useMemo(() => previewRequest(form), [form]);
  const key = request ? JSON.stringify(request) : null;
  const generation = useRef(0);
  useEffect(() => {
    const number = ++generation.current;
    if (key === null) {
      setState((s) => ({ ...s, status: 'idle' }));
      return;
    }
    setState((s) => ({ ...s, status: 'counting' }));
    const timer = setTimeout(async () => {
      const result = await inspector.call('audiences.preview', JSON.parse(key) as RequestOf<'audiences.preview'>);
      if (number !== generation.current) return;
      setState(result.ok ? { status: 'ready', result: result.value, error: null } : { status: 'failed', result: null, error: result.error.message });
    }, PREVIEW_DELAY_MS);
    return () => clearTimeout(timer);
  }, [inspector, key]);
  return state;
}

/** Who is in it now, before anything is saved: the count, what the next sync would send, and a sample. */
export function PreviewPanel({ preview, kind, editing }: { preview: PreviewState; kind: AudienceForm['kind']; editing: boolean }) {
  // An incomplete form shows no stale count.
  const r = preview.status === 'idle' ? null : preview.result;
  const noun = kind === 'audience' ? 'member' : 'user with a value';
  const nouns = kind === 'audience' ? 'members' : 'users with a value';
  let headline: string;
  if (preview.status === 'idle') headline = kind === 'audience' ? 'Complete the rule to see who is in it.' : 'Complete the computation to see its values.';
  else if (preview.status === 'failed') headline = `Could not count: ${preview.error}`;
  else if (!r) headline = 'Counting…';
  else headline = `${plural(r.members, noun, nouns)} now, of ${plural(r.users, 'user')} of the source`;
  return (
    <section className="aud-preview" aria-label="Preview" aria-busy={preview.status === 'counting'}>
      <h3 className="section-title">
        Preview <span className="muted">{preview.status === 'counting' ? '· counting…' : ''}</span>
      </h3>
      <p role="status" className={preview.status === 'failed' ? 'aud-error' : undefined}>
        {headline}
      </p>
      {r && editing && r.joining !== null ? (
        <p className="aud-help">
          The next sync would send {formatCount(r.joining)} joined{kind === 'computed_trait' ? ' or changed' : ''} and {formatCount(r.leaving ?? 0)} left.
        </p>
      ) : null}
      {r && r.sample.length > 0 ? (
        <ul className="aud-sample" aria-label="Sample of members">
          {r.sample.map((m) => (
            <li key={m.userId}>
              <span className="mono">{m.userId}</span>
              {kind === 'computed_trait' ? <span className="muted"> = {formatValue(m.value)}</span> : null}
            </li>
          ))}
          {r.members > r.sample.length ? <li className="muted">and {formatCount(r.members - r.sample.length)} more</li> : null}
        </ul>
      ) : null}
    </section>
  );
}
