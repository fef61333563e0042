/** The composer's form as plain data: filled from templates, turned into the client call's fields. */
import { FIELDS_BY_TYPE, type ComposerFields, type ComposerTemplate } from '../../../../shared/composer-templates.ts';
import type { MessageType } from '../../../../shared/messages.ts';
import { parseJsonObject } from './json-field.ts';

export type FormField = keyof ComposerFields;

/** Every field as the user typed it (JSON fields as text). */
export type ComposerForm = { type: MessageType } & Record<FormField, string>;

export type FieldErrors = Partial<Record<FormField | 'form', string>>;

export const FIELD_LABELS: Record<FormField, string> = {
  userId: 'User ID',
  anonymousId: 'Anonymous ID',
  event: 'Event',
  name: 'Name',
  category: 'Category',
  properties: 'Properties (JSON)',
  traits: 'Traits (JSON)',
  groupId: 'Group ID',
  previousId: 'Previous ID',
};

export const JSON_FIELDS: readonly FormField[] = ['properties', 'traits'];

export function emptyForm(type: MessageType): ComposerForm {
  return { type, userId: '', anonymousId: '', event: '', name: '', category: '', properties: '', traits: '', groupId: '', previousId: '' };
}

export function formFromTemplate(template: ComposerTemplate): ComposerForm {
  const form = emptyForm(template.type);
  for (const [key, value] of Object.entries(template.fields) as [FormField, unknown][]) {
    form[key] = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }
  return form;
}

/** Another message type keeps who sent it (userId, anonymousId) and starts the rest blank. */
export function switchType(form: ComposerForm, type: MessageType): ComposerForm {
  return { ...emptyForm(type), userId: form.userId, anonymousId: form.anonymousId };
}

/** The JSON fields' problems as the user types (the others are checked by the client library on send). */
export function jsonErrors(form: ComposerForm): FieldErrors {
  const errors: FieldErrors = {};
  for (const field of FIELDS_BY_TYPE[form.type]) {
    if (!JSON_FIELDS.includes(field)) continue;
    const parsed = parseJsonObject(form[field], labelOf(field));
    if (!parsed.ok) errors[field] = parsed.error;
  }
  return errors;
}

/**
 * The fields of the form's message type, ready for `composer.send`: text trimmed, empty ones left
 * out (so the client library reports what is missing), JSON parsed.
 */
export function fieldsToSend(form: ComposerForm): { ok: true; fields: Record<string, unknown> } | { ok: false; errors: FieldErrors } {
  const errors = jsonErrors(form);
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const fields: Record<string, unknown> = {};
  for (const field of FIELDS_BY_TYPE[form.type]) {
    if (JSON_FIELDS.includes(field)) {
      const parsed = parseJsonObject(form[field], labelOf(field));
      if (parsed.ok && parsed.value !== undefined) fields[field] = parsed.value;
    } else if (form[field].trim() !== '') {
      fields[field] = form[field].trim();
    }
  }
  return { ok: true, fields };
}

/** Which field a client library error is about, so it shows under that field (else above the form). */
export function errorField(code: string, message: string): FormField | 'form' {
  switch (code) {
    case 'missing_user':
      return 'userId';
    case 'missing_event':
      return 'event';
    case 'missing_group_id':
      return 'groupId';
    case 'missing_previous_id':
      return 'previousId';
    case 'invalid_field': {
      const named = /"(\w+)"/.exec(message)?.[1];
      return named !== undefined && named in FIELD_LABELS ? (named as FormField) : 'form';
    }
    default:
      return 'form';
  }
}

/** The client's sentence, with what to do about it. */
export function explainClientError(code: string, message: string): string {
  const sentence = message.endsWith('.') ? message : `${message}.`;
  switch (code) {
    case 'missing_user':
      return `${sentence} Fill in the User ID or the Anonymous ID.`;
    case 'missing_event':
      return `${sentence} Name the event, e.g. “Order Completed”.`;
    case 'missing_group_id':
      return `${sentence} Fill in the Group ID (the account or company).`;
    case 'missing_previous_id':
      return `${sentence} Fill in the Previous ID (often the anonymous ID the user had).`;
    case 'message_too_large':
      return `${sentence} Make the properties or traits smaller.`;
    default:
      return sentence;
  }
}

function labelOf(field: FormField): string {
  return FIELD_LABELS[field].replace(' (JSON)', '');
}
