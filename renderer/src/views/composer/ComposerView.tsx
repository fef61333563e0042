import { useId, useState } from 'react';
import { COMPOSER_TYPES, FIELDS_BY_TYPE, TEMPLATES, templateById } from '../../../../shared/composer-templates.ts';
import type { MessageType } from '../../../../shared/messages.ts';
import { clockTime } from '../../lib/format.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';
import {
  emptyForm,
  errorField,
  explainClientError,
  FIELD_LABELS,
  fieldsToSend,
  formFromTemplate,
  JSON_FIELDS,
  jsonErrors,
  switchType,
  type ComposerForm,
  type FieldErrors,
  type FormField,
} from './composer-form.ts';
import { QueuePanel } from './QueuePanel.tsx';
import { useComposerQueue } from './use-composer-queue.ts';
import { ErrorText } from '../../components/ErrorText.tsx';
import { Field } from '../../components/Field.tsx';
import { SourcePicker } from '../../components/SourcePicker.tsx';

/** Examples, worded so they are not mistaken for values. */
const PLACEHOLDERS: Partial<Record<FormField, string>> = {
  userId: 'e.g. u_123 (or give an Anonymous ID)',
  anonymousId: 'e.g. anon_9f2c (optional with a User ID)',
  event: 'e.g. Order Completed',
  name: 'e.g. Pricing (optional)',
  category: 'e.g. Marketing (optional)',
  properties: 'optional, e.g. {"plan": "pro"}',
  traits: 'optional, e.g. {"email": "ada@example.com"}',
  groupId: 'e.g. acme',
  previousId: 'e.g. anon_9f2c',
};

interface Sent {
  at: number;
  type: MessageType;
  what: string;
}

/**
 * Builds identify/track/page/screen/group/alias messages and sends them through Sluice's client
 * library (the core's composer), beside the client's live queue.
 */
export function ComposerView() {
  const inspector = useInspector();
  const sources = useInspectorState((s) => s.info?.sources ?? null);
  const [chosenSource, setChosenSource] = useState<number | null>(null);
  const sourceId = chosenSource ?? sources?.[0]?.id ?? null;
  const [form, setForm] = useState<ComposerForm>(() => formFromTemplate(templateById('order-completed')!));
  const [templateId, setTemplateId] = useState('order-completed');
  const [sendErrors, setSendErrors] = useState<FieldErrors>({});
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<Sent[]>([]);
  const { queue, error: queueError, replace } = useComposerQueue(sourceId);
  const typing = jsonErrors(form);
  const errors: FieldErrors = { ...sendErrors, ...typing };
  const base = useId();

  const edit = (patch: Partial<ComposerForm>) => {
    setForm((f) => ({ ...f, ...patch }));
    setSendErrors({});
  };

  const send = async () => {
    if (sourceId === null) return;
    const built = fieldsToSend(form);
    if (!built.ok) {
      setSendErrors(built.errors);
      return;
    }
    setSending(true);
    const result = await inspector.call('composer.send', { sourceId, type: form.type, fields: built.fields });
    setSending(false);
    if (!result.ok) {
      const { code, message } = result.error;
      setSendErrors({ [errorField(code, message)]: explainClientError(code, message) });
      return;
    }
    setSendErrors({});
    replace(result.value.state);
    const what = form.event || form.name || form.groupId || form.previousId || form.userId || form.anonymousId;
    setSent((list) => [{ at: Date.now(), type: form.type, what }, ...list].slice(0, 8));
  };

  const flush = async (): Promise<string | null> => {
    if (sourceId === null) return null;
    const result = await inspector.call('composer.flush', { sourceId });
    if (!result.ok) return `Flush failed: ${result.error.message}`;
    replace(result.value);
    return null;
  };

  return (
    <section className="tool-view composer" aria-labelledby="composer-title">
      <header className="tool-view-head">
        <h2 id="composer-title">Composer</h2>
        <p className="hint">
          Build a message and send it through Sluice’s client library into Sluice’s own endpoint, as an app would. It shows up in the stream
          and is delivered like any other.
        </p>
      </header>
      <div className="composer-grid">
        <form
          className="composer-form"
          aria-label="Message"
          onSubmit={(event) => {
            event.preventDefault();
            void send();
          }}
        >
          <div className="toolbar">
            <Field label="Source">
              {(control) => (
                <SourcePicker
                  {...control}
                  sources={sources ?? []}
                  value={sourceId}
                  optionLabel={(s) => `${s.name} (${s.writeKey})`}
                  onChange={setChosenSource}
                  disabled={!sources}
                />
              )}
            </Field>
            <Field label="Template">
              {(control) => (
                <select
                  {...control}
                  value={templateId}
                  onChange={(e) => {
                    const template = templateById(e.target.value);
                    setTemplateId(e.target.value);
                    setSendErrors({});
                    setForm(template ? formFromTemplate(template) : emptyForm(form.type));
                  }}
                >
                  <option value="">Blank {form.type}</option>
                  {COMPOSER_TYPES.map((type) => (
                    <optgroup key={type} label={type}>
                      {TEMPLATES.filter((t) => t.type === type).map((t) => (
                        <option key={t.id} value={t.id}>
                          {t.label}
                        </option>
                      ))}
                    </optgroup>
                  ))}
                </select>
              )}
            </Field>
          </div>
          <div className="segmented composer-types" role="group" aria-label="Message type">
            {COMPOSER_TYPES.map((type) => (
              <button
                key={type}
                type="button"
                className="btn btn-small"
                aria-pressed={form.type === type}
                onClick={() => {
                  if (form.type === type) return;
                  setTemplateId('');
                  setSendErrors({});
                  setForm(switchType(form, type));
                }}
              >
                {type}
              </button>
            ))}
          </div>
          {FIELDS_BY_TYPE[form.type].map((field) => {
            const json = JSON_FIELDS.includes(field);
            // Problems come on Send (the client's) or as JSON is typed: a line kept for them, read out when they come.
            return (
              <Field
                key={field}
                id={`${base}-${field}`}
                className={`composer-field${json ? ' composer-json' : ''}`}
                label={FIELD_LABELS[field]}
                error={errors[field]}
                announce
              >
                {(control) => {
                  const common = { ...control, value: form[field], placeholder: PLACEHOLDERS[field], spellCheck: false } as const;
                  return json ? (
                    <textarea {...common} rows={12} onChange={(e) => edit({ [field]: e.target.value })} />
                  ) : (
                    <input {...common} type="text" autoComplete="off" onChange={(e) => edit({ [field]: e.target.value })} />
                  );
                }}
              </Field>
            );
          })}
          <ErrorText error={errors.form} />
          <div className="toolbar">
            <button type="submit" className="btn btn-primary" disabled={sending || sourceId === null || Object.keys(typing).length > 0}>
              Send {form.type}
            </button>
            <span className="muted" role="status">
              {sent[0] ? `Queued ${sent[0].type}${sent[0].what ? ` “${sent[0].what}”` : ''} at ${clockTime(sent[0].at)}` : ''}
            </span>
          </div>
        </form>
        <div className="composer-side">
          <QueuePanel queue={queue} error={queueError} onFlush={flush} />
          {sent.length > 0 ? (
            <section aria-labelledby="composer-sent">
              <h3 id="composer-sent" className="section-title">
                Sent from here
              </h3>
              <ul className="composer-sent" aria-label="Sent from here">
                {sent.map((s, i) => (
                  <li key={`${s.at}-${i}`}>
                    <span className="muted mono">{clockTime(s.at)}</span> <span className={`type-badge type-${s.type}`}>{s.type}</span>{' '}
                    {s.what}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
        </div>
      </div>
    </section>
  );
}
