/**
 * The audience editor's model, without React: the form's state (strings, as inputs hold them), the
 * `audiences.save` / `audiences.preview` requests it makes, and its validation — the core's own zod
 * schema (shared/audiences.ts), so the errors shown as the user types are the ones the core would
 * answer, each placed next to its field.
 */
import {
  audienceInputSchema,
  DEFAULT_INTERVAL_SECONDS,
  type AudienceInput,
  type AudienceKind,
  type AudienceView,
  type Computation,
  type Condition,
  type EventOperator,
  type SyncMode,
  type TraitOperator,
  type WindowUnit,
} from '../../../../shared/audiences.ts';
import type { DestinationView } from '../../../../shared/contract.ts';

export type ValueType = 'text' | 'number' | 'true' | 'false';

export interface WindowForm {
  on: boolean;
  amount: string;
  unit: WindowUnit;
}

export interface ConditionForm {
  /** React key: conditions are added and removed in the middle. */
  key: number;
  kind: 'trait' | 'event';
  trait: string;
  operator: TraitOperator;
  valueType: ValueType;
  value: string;
  event: string;
  eventOperator: EventOperator;
  count: string;
  within: WindowForm;
}

export interface AudienceForm {
  /** null while creating. */
  id: number | null;
  name: string;
  kind: AudienceKind;
  sourceId: number | null;
  match: 'all' | 'any';
  conditions: ConditionForm[];
  computation: { kind: Computation['kind']; event: string; property: string; within: WindowForm };
  mode: SyncMode;
  intervalSeconds: string;
  /** The destinations chosen; null: the enabled destinations connected to the source (the default). */
  destinationIds: number[] | null;
}

/** Where an error is shown: `name`, `sourceId`, `conditions`, `conditions.0.value`, `computation.event`, `intervalSeconds`, `destinationIds`, or `form`. */
export type FieldErrors = Record<string, string>;

/** The editor's change: a patch of the form, and the field it touches (its problem shows from then on). */
export type FormChange = (patch: Partial<AudienceForm>, field: string) => void;

export const TRAIT_OPERATOR_LABELS: Record<TraitOperator, string> = {
  equals: 'equals',
  not_equals: 'does not equal',
  exists: 'exists',
  not_exists: 'does not exist',
  contains: 'contains',
  greater_than: 'is greater than',
  less_than: 'is less than',
};

/**
 * The destinations an audience's syncs go to: the ones chosen (enabled or not: a disabled one is said
 * so), or — none chosen — every enabled destination connected to its source, as they are at each sync.
 */
export function audienceTargets(destinations: readonly DestinationView[], sourceId: number | null, destinationIds: readonly number[] | null): DestinationView[] {
  return destinationIds === null
    ? destinations.filter((d) => d.enabled && sourceId !== null && d.sourceIds.includes(sourceId))
    : destinations.filter((d) => destinationIds.includes(d.id));
}

/** Which value an operator takes. */
export function valueTypesFor(operator: TraitOperator): ValueType[] {
  switch (operator) {
    case 'exists':
    case 'not_exists':
      return [];
    case 'contains':
      return ['text'];
    case 'greater_than':
    case 'less_than':
      return ['number'];
    default:
      return ['text', 'number', 'true', 'false'];
  }
}

let lastKey = 0;
const nextKey = () => ++lastKey;
const noWindow = (): WindowForm => ({ on: false, amount: '7', unit: 'days' });

export function emptyCondition(kind: 'trait' | 'event' = 'trait'): ConditionForm {
  return {
    key: nextKey(),
    kind,
    trait: '',
    operator: 'equals',
    valueType: 'text',
    value: '',
    event: '',
    eventOperator: 'at_least',
    count: '1',
    within: noWindow(),
  };
}

export function newForm(sourceId: number | null): AudienceForm {
  return {
    id: null,
    name: '',
    kind: 'audience',
    sourceId,
    match: 'all',
    conditions: [emptyCondition()],
    computation: { kind: 'event_count', event: '', property: '', within: noWindow() },
    mode: 'demo',
    intervalSeconds: String(DEFAULT_INTERVAL_SECONDS),
    destinationIds: null,
  };
}

function windowForm(window: { amount: number; unit: WindowUnit } | undefined): WindowForm {
  return window ? { on: true, amount: String(window.amount), unit: window.unit } : noWindow();
}

function conditionForm(c: Condition): ConditionForm {
  const base = emptyCondition(c.kind);
  if (c.kind === 'event') {
    return { ...base, event: c.event, eventOperator: c.operator, count: String(c.count), within: windowForm(c.within) };
  }
  const valueType: ValueType =
    typeof c.value === 'number' ? 'number' : c.value === true ? 'true' : c.value === false ? 'false' : 'text';
  return { ...base, trait: c.trait, operator: c.operator, valueType, value: typeof c.value === 'boolean' || c.value === undefined ? '' : String(c.value) };
}

export function formOf(view: AudienceView): AudienceForm {
  const form = newForm(view.sourceId);
  return {
    ...form,
    id: view.id,
    name: view.name,
    kind: view.kind,
    match: view.rule?.match ?? 'all',
    conditions: view.rule ? view.rule.conditions.map(conditionForm) : form.conditions,
    computation: view.computation
      ? {
          kind: view.computation.kind,
          event: view.computation.event,
          property: view.computation.kind === 'last_property' ? view.computation.property : '',
          within: windowForm(view.computation.kind === 'event_count' ? view.computation.within : undefined),
        }
      : form.computation,
    mode: view.mode,
    intervalSeconds: String(view.intervalSeconds),
    destinationIds: view.destinationIds,
  };
}

/** The saved definition as a save request (e.g. to switch its mode). */
export function inputOf(view: AudienceView): AudienceInput {
  return {
    id: view.id,
    sourceId: view.sourceId,
    name: view.name,
    kind: view.kind,
    ...(view.rule ? { rule: view.rule } : {}),
    ...(view.computation ? { computation: view.computation } : {}),
    mode: view.mode,
    intervalSeconds: view.intervalSeconds,
    destinationIds: view.destinationIds,
  };
}

/** A whole number as typed, or an error sentence. */
function wholeNumber(text: string): number | string {
  const trimmed = text.trim();
  if (trimmed === '') return 'enter a number';
  const n = Number(trimmed);
  return Number.isInteger(n) ? n : 'enter a whole number';
}

function windowOf(window: WindowForm, path: string, errors: FieldErrors): { amount: number; unit: WindowUnit } | undefined {
  if (!window.on) return undefined;
  const amount = wholeNumber(window.amount);
  if (typeof amount === 'string') {
    errors[`${path}.amount`] = amount;
    return undefined;
  }
  return { amount, unit: window.unit };
}

function conditionOf(c: ConditionForm, i: number, errors: FieldErrors): unknown {
  const path = `conditions.${i}`;
  if (c.kind === 'event') {
    const count = wholeNumber(c.count);
    if (typeof count === 'string') errors[`${path}.count`] = count;
    const within = windowOf(c.within, `${path}.within`, errors);
    return { kind: 'event', event: c.event, operator: c.eventOperator, count: typeof count === 'number' ? count : 0, ...(within ? { within } : {}) };
  }
  const types = valueTypesFor(c.operator);
  const valueType = types.includes(c.valueType) ? c.valueType : types[0];
  let value: string | number | boolean | undefined;
  if (valueType === 'true' || valueType === 'false') value = valueType === 'true';
  else if (valueType === 'number') {
    const n = Number(c.value.trim());
    if (c.value.trim() === '' || !Number.isFinite(n)) errors[`${path}.value`] = 'enter a number, e.g. 100';
    value = n;
  } else if (valueType === 'text') value = c.value;
  return { kind: 'trait', trait: c.trait, operator: c.operator, ...(value === undefined ? {} : { value }) };
}

/** The definition part of a save or preview request. */
function definitionOf(form: AudienceForm, errors: FieldErrors): { rule?: unknown; computation?: unknown } {
  if (form.kind === 'audience') {
    return { rule: { match: form.match, conditions: form.conditions.map((c, i) => conditionOf(c, i, errors)) } };
  }
  const c = form.computation;
  if (c.kind === 'last_property') return { computation: { kind: c.kind, event: c.event, property: c.property } };
  const within = windowOf(c.within, 'computation.within', errors);
  return { computation: { kind: c.kind, event: c.event, ...(within ? { within } : {}) } };
}

/** Field key of a zod issue path: rule.conditions.0.value → conditions.0.value. */
function fieldOf(path: readonly PropertyKey[]): string {
  const parts = path.map(String);
  if (parts[0] === 'rule') parts.shift();
  if (parts[0] === 'destinationIds') return 'destinationIds'; // shown once, under the list
  return parts.length === 0 ? 'form' : parts.join('.');
}

export interface Checked<T> {
  request: T | null;
  errors: FieldErrors;
}

/** The `audiences.save` request, or the errors to show (the first per field). */
export function checkSave(form: AudienceForm): Checked<AudienceInput> {
  const errors: FieldErrors = {};
  if (form.sourceId === null) errors.sourceId = 'choose the source whose users the audience is made of';
  const interval = wholeNumber(form.intervalSeconds);
  if (typeof interval === 'string' && form.mode === 'demo') errors.intervalSeconds = interval;
  const input = {
    ...(form.id !== null ? { id: form.id } : {}),
    sourceId: form.sourceId ?? 1,
    name: form.name,
    kind: form.kind,
    ...definitionOf(form, errors),
    mode: form.mode,
    // Realistic mode does not use the interval: keep a valid one so it can be switched back.
    intervalSeconds: typeof interval === 'number' ? interval : DEFAULT_INTERVAL_SECONDS,
    destinationIds: form.destinationIds,
  };
  const parsed = audienceInputSchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const field = fieldOf(issue.path);
      errors[field] ??= issue.message;
    }
  }
  return Object.keys(errors).length > 0 || !parsed.success ? { request: null, errors } : { request: parsed.data, errors };
}

/** The `audiences.preview` request for the form as it stands (null when it is not valid yet). */
export function previewRequest(form: AudienceForm): Record<string, unknown> | null {
  const { request } = checkSave(form);
  if (!request) return null;
  return {
    ...(request.id !== undefined ? { audienceId: request.id } : {}),
    sourceId: request.sourceId,
    kind: request.kind,
    ...(request.rule ? { rule: request.rule } : {}),
    ...(request.computation ? { computation: request.computation } : {}),
    sampleSize: 10,
  };
}

/** How a value reads in lists: true, 3, "pro", {"a":1}. */
export function formatValue(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}
