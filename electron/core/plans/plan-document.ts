/**
 * Plan files: Sluice's own format, and the tracking plans Segment Protocols and RudderStack hand out,
 * converted to Sluice's. A vendor's rule is a JSON Schema of a whole message (`properties`, `traits`,
 * `context` side by side); Sluice's plan keeps the one part each message type is checked on, so the
 * conversion takes that part out (with the `$schema` and `$defs` its references need) and says in
 * `notes` what it could not carry over. Shapes read, as published:
 * - Segment Config API (`GET /v1beta/workspaces/{ws}/tracking-plans/{id}`; Typewriter 7's plan.json):
 *   `{ name, display_name, rules: { events: [{ name, description, version, rules }], global, identify,
 *   group, identify_traits, group_traits } }`, also wrapped as `{ tracking_plan }` or `{ tracking_plans: [one] }`;
 * - Segment Public API (`GET /tracking-plans/{id}/rules`): `{ data: { rules: [{ type, key, version,
 *   jsonSchema }] } }`; Typewriter 8's plan.json holds the same rules with each TRACK rule's jsonSchema
 *   already narrowed to its properties (marked by Typewriter's `eventMetadata`);
 * - RudderStack's config backend, as rudder-transformer reads it: the Config API shape (event versions
 *   like "1-0-0", rules.page and rules.screen too), and the Data Catalog's `{ events: [{ name,
 *   eventType, identitySection, rules }] }`.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { trackingPlanSchema, type JsonSchema, type TrackingPlan } from '../../../shared/tracking-plan.ts';
import { writeWholeFile } from '../whole-file.ts';
import { PlanError } from './plan-error.ts';

export type PlanFormat = 'sluice' | 'segment' | 'rudderstack';

export interface PlanDocument {
  plan: TrackingPlan;
  format: PlanFormat;
  /** What the conversion left out or read differently, one sentence each, naming the place in the file. */
  notes: string[];
}

/** Plans are small; a bigger file is more likely a wrong path (a log, a data export) than a plan. */
export const PLAN_FILE_LIMIT = 5 * 1024 * 1024;

type Json = Record<string, unknown>;
type Part = 'identify' | 'group' | 'page' | 'screen' | 'context';
type Section = 'properties' | 'traits' | 'context';

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
// Own keys only: a plan may name an event "constructor", which a plain lookup would find on Object.prototype.
const own = (object: Json, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);
const refuse = (...problems: string[]): PlanError => new PlanError(problems);
const join = (at: string, key: string): string => (at === '' ? key : `${at}.${key}`);

const UNDERSTOOD =
  'Sluice reads its own plan format (an "events" object), Segment Protocols plans (Config API "rules.events", Public API "rules" with type, key and jsonSchema, Typewriter\'s plan.json) and RudderStack plans (Data Catalog "events" with eventType, or "rules.events")';

/** Recognises a plan document by its shape and converts it to Sluice's plan; a PlanError says why not. */
export function readPlanDocument(json: unknown): PlanDocument {
  let doc = json;
  let at = '';
  // The APIs' answers as saved: `{ data: … }`, the Config API's `{ tracking_plan: … }`, a list of one plan.
  for (let depth = 0; depth < 3 && isObject(doc); depth++) {
    const inner = envelope(doc, at);
    if (!inner) break;
    [doc, at] = inner;
  }
  if (!isObject(doc)) throw refuse(`not a tracking plan: ${UNDERSTOOD}; ${at || 'the document'} is ${kindOf(doc)}`);
  const events = own(doc, 'events');
  const rules = own(doc, 'rules');
  if (isObject(events)) return sluice(doc, at);
  if (Array.isArray(rules)) return publicApi(doc, rules, at);
  if (isObject(rules) && CONFIG_API_KEYS.some((key) => Object.hasOwn(rules, key))) return configApi(doc, rules, at);
  // An empty list alone is more likely a mistyped Sluice plan than an empty Data Catalog export.
  if (Array.isArray(events) && (events.length > 0 || Object.hasOwn(doc, 'workspaceId'))) return dataCatalog(doc, events, at);
  if (rules === undefined && (events !== undefined || PARTS.some((key) => Object.hasOwn(doc, key)))) return sluice(doc, at);
  if (rules === undefined && typeof own(doc, 'id') === 'string' && String(own(doc, 'id')).startsWith('tp_')) {
    throw refuse(`${at || 'the document'}: a Segment tracking plan without its rules; save the answer of GET /tracking-plans/{id}/rules instead`);
  }
  const keys = Object.keys(doc);
  const shown = keys.length > 12 ? `${keys.slice(0, 12).join(', ')}, …` : keys.join(', ');
  throw refuse(`not a tracking plan: ${UNDERSTOOD}; ${keys.length ? `the top-level keys ${at ? `of ${at} ` : ''}are ${shown}` : `${at || 'the document'} is an empty object`}`);
}

function envelope(doc: Json, at: string): [unknown, string] | null {
  if (Object.hasOwn(doc, 'rules') || Object.hasOwn(doc, 'events')) return null;
  for (const key of ['data', 'tracking_plan', 'trackingPlan']) {
    if (isObject(own(doc, key))) return [own(doc, key), join(at, key)];
  }
  for (const key of ['tracking_plans', 'trackingPlans']) {
    const list = own(doc, key);
    if (!Array.isArray(list)) continue;
    if (list.length !== 1) throw refuse(`${join(at, key)}: holds ${list.length} tracking plans; save one plan (its own GET) instead`);
    return [list[0], `${join(at, key)}[0]`];
  }
  return null;
}

const kindOf = (value: unknown): string => (Array.isArray(value) ? 'a list' : value === null ? 'null' : `a ${typeof value}`);

// ---- Sluice's format -------------------------------------------------------------------------

const PARTS: readonly Part[] = ['identify', 'group', 'page', 'screen', 'context'];

function sluice(doc: Json, at: string): PlanDocument {
  return { plan: checked(doc, at), format: 'sluice', notes: [] };
}

/** The plan as trackingPlanSchema reads it, or a PlanError naming each place it refuses. */
function checked(plan: unknown, at: string): TrackingPlan {
  const parsed = trackingPlanSchema.safeParse(plan);
  if (parsed.success) return parsed.data;
  throw refuse(
    ...parsed.error.issues.map((issue) => {
      const where = issue.path.reduce<string>(pathKey, at) || 'the plan';
      return `${where}: ${issue.code === 'invalid_key' ? 'an event name must have 1 to 1024 characters' : issue.message}`;
    }),
  );
}

function pathKey(place: string, key: PropertyKey): string {
  if (typeof key === 'number') return `${place}[${key}]`;
  const text = String(key);
  return /^[A-Za-z_$][\w$]*$/.test(text) ? join(place, text) : `${place}[${JSON.stringify(text)}]`;
}

// ---- The converted plan, built up rule by rule ------------------------------------------------

type Chosen = { schema: JsonSchema; rank: number[]; label: string };

class Draft {
  readonly events = new Map<string, Chosen>();
  readonly parts = new Map<Part, Chosen>();
  readonly notes: string[] = [];

  /**
   * Keeps the highest version of what is listed more than once, noting the other. Segment checks a
   * message against the version its `context.protocols.event_version` names (else the oldest);
   * Sluice's plan has one schema per event, and the newest is the one being instrumented.
   */
  offer<K extends string>(map: Map<K, Chosen>, key: K, schema: JsonSchema, version: unknown, at: string): void {
    const next: Chosen = { schema, rank: rankOf(version), label: `version ${String(version)}` };
    const kept = map.get(key);
    const what = map === this.parts ? key : JSON.stringify(key);
    if (!kept) map.set(key, next);
    else if (compare(next.rank, kept.rank) > 0) {
      map.set(key, next);
      this.notes.push(`${at}: ${what} ${next.label} is used; ${kept.label} is left out (Sluice checks the highest version)`);
    } else if (version === undefined) this.notes.push(`${at}: ${what} is listed again; the first one is used`);
    else this.notes.push(`${at}: ${what} ${next.label} is left out (Sluice checks the highest version, ${kept.label})`);
  }

  plan(format: PlanFormat, name: unknown, description: unknown): PlanDocument {
    const plan: Json = {};
    if (typeof name === 'string' && name !== '') plan.name = name.slice(0, 200);
    if (typeof description === 'string' && description !== '') plan.description = description.slice(0, 10_000);
    // fromEntries defines keys, so an event called "__proto__" stays an event.
    plan.events = Object.fromEntries([...this.events].map(([event, chosen]) => [event, chosen.schema]));
    for (const part of PARTS) if (this.parts.has(part)) plan[part] = this.parts.get(part)!.schema;
    return { plan: checked(plan, ''), format, notes: this.notes };
  }
}

/** Segment's versions are integers; RudderStack's legacy ones read "1-0-0". */
function rankOf(version: unknown): number[] {
  if (typeof version === 'number') return [version];
  if (typeof version === 'string') return (version.match(/\d+/g) ?? []).map(Number);
  return [];
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

function versionAt(value: unknown, at: string): unknown {
  if (value === null || value === undefined) return undefined;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'string') return value;
  throw refuse(`${at}: must be a number`);
}

function eventName(value: unknown, at: string): string {
  if (typeof value !== 'string' || value === '') throw refuse(`${at}: must be the event's name (a non-empty string)`);
  if (value.length > 1024) throw refuse(`${at}: an event name must have at most 1024 characters`);
  return value;
}

// ---- Taking one part out of a whole-message schema --------------------------------------------

/** What a whole-message schema may hold without constraining anything Sluice would drop. */
const WHOLE_KEYWORDS = new Set(['$schema', '$id', 'id', 'type', 'title', 'description', 'labels', 'properties', 'required', '$defs', 'definitions', '$comment', 'version']);
const PLAIN_KEYWORDS = new Set(['$schema', '$id', 'id', 'type', 'title', 'description', 'labels', '$comment']);

/** `{}`, `true`, `{ type: 'object' }`: a part that allows anything (an object). */
function allowsAnything(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isObject(schema)) return false;
  const type = own(schema, 'type');
  const objectType = type === undefined || type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object');
  return objectType && Object.keys(schema).every((key) => PLAIN_KEYWORDS.has(key));
}

/**
 * The schema of one part of a message (`whole.properties[section]`), as a schema of its own: the
 * whole's `$schema` (which draft it is written in) and `$defs` / `definitions` (what `#/$defs/…`
 * references point at) come along, since the part is now a document root. Undefined: not there.
 */
function part(whole: Json, section: Section, at: string): JsonSchema | undefined {
  const properties = own(whole, 'properties');
  if (properties === undefined) return undefined;
  if (!isObject(properties)) throw refuse(`${at}.properties: must be an object`);
  const schema = own(properties, section);
  if (schema === undefined || typeof schema === 'boolean') return schema;
  if (!isObject(schema)) throw refuse(`${at}.properties.${section}: must be a JSON Schema (an object, or true / false)`);
  const draft = own(whole, '$schema');
  let out: Json = typeof draft === 'string' && !Object.hasOwn(schema, '$schema') ? { $schema: draft, ...schema } : { ...schema };
  for (const key of ['$defs', 'definitions']) {
    if (isObject(own(whole, key)) && !Object.hasOwn(out, key)) out = { ...out, [key]: own(whole, key) };
  }
  return out;
}

/** Notes what a whole-message schema constrains besides the part kept. */
function leftOut(whole: Json, keep: Section, at: string, notes: string[], checks: string): void {
  const because = `not carried over (Sluice's plan checks ${checks} here)`;
  const properties = own(whole, 'properties');
  if (isObject(properties)) {
    for (const [key, schema] of Object.entries(properties)) if (key !== keep && !allowsAnything(schema)) notes.push(`${at}.properties.${key}: ${because}`);
  }
  const required = own(whole, 'required');
  const others = Array.isArray(required) ? required.filter((key) => key !== keep && key !== 'properties' && key !== 'traits' && key !== 'context') : [];
  if (others.length) notes.push(`${at}.required: ${others.join(', ')} ${because}`);
  for (const key of Object.keys(whole)) if (!WHOLE_KEYWORDS.has(key)) notes.push(`${at}.${key}: ${because}`);
}

/** A track event's schema: its properties part, with the event's description and labels for people reading the plan. */
function trackSchema(whole: Json, at: string, notes: string[], description: unknown): JsonSchema {
  leftOut(whole, 'properties', at, notes, "a track event's properties");
  const schema = part(whole, 'properties', at) ?? {};
  if (typeof schema === 'boolean') return schema;
  const extra: Json = {};
  description ??= own(whole, 'description'); // the Public API keeps it in the jsonSchema, the Config API beside it
  if (typeof description === 'string' && description !== '' && !Object.hasOwn(schema, 'description')) extra.description = description;
  const labels = own(whole, 'labels');
  if (isObject(labels) && Object.keys(labels).length && !Object.hasOwn(schema, 'labels')) extra.labels = labels;
  return { ...schema, ...extra };
}

/** identify and group are checked on traits, page and screen on properties, every message on context. */
const SECTION_OF: Record<Part, [Section, string]> = {
  identify: ['traits', "an identify's traits"],
  group: ['traits', "a group's traits"],
  page: ['properties', "a page's properties"],
  screen: ['properties', "a screen's properties"],
  context: ['context', "every message's context"],
};

function partSchema(whole: Json, target: Part, at: string, notes: string[]): JsonSchema {
  const [section, checks] = SECTION_OF[target];
  leftOut(whole, section, at, notes, checks);
  return part(whole, section, at) ?? {};
}

// ---- Segment Public API (and Typewriter 8's plan.json) ----------------------------------------

const RULE_TYPES: Record<string, Part | 'track'> = { TRACK: 'track', IDENTIFY: 'identify', GROUP: 'group', PAGE: 'page', SCREEN: 'screen', COMMON: 'context' };

function publicApi(doc: Json, rules: unknown[], at: string): PlanDocument {
  const draft = new Draft();
  rules.forEach((rule, i) => {
    const here = `${join(at, 'rules')}[${i}]`;
    if (!isObject(rule)) throw refuse(`${here}: must be an object (a rule with type, key and jsonSchema)`);
    const type = RULE_TYPES[String(own(rule, 'type')).toUpperCase()];
    if (!type) throw refuse(`${here}.type: must be one of TRACK, IDENTIFY, GROUP, PAGE, SCREEN, COMMON`);
    const version = versionAt(own(rule, 'version'), `${here}.version`);
    const whole = own(rule, 'jsonSchema') ?? {}; // the API allows null: a rule without constraints
    if (!isObject(whole)) throw refuse(`${here}.jsonSchema: must be an object`);
    const at2 = `${here}.jsonSchema`;
    if (type !== 'track') return draft.offer(draft.parts, type, partSchema(whole, type, at2, draft.notes), version, here);
    const name = eventName(own(rule, 'key'), `${here}.key`);
    // Typewriter 8 saves a TRACK rule's jsonSchema already narrowed to the properties, marked with eventMetadata.
    const schema = Object.hasOwn(whole, 'eventMetadata') ? withoutEventMetadata(whole) : trackSchema(whole, at2, draft.notes, undefined);
    draft.offer(draft.events, name, schema, version, here);
  });
  return draft.plan('segment', own(doc, 'name'), own(doc, 'description'));
}

function withoutEventMetadata(schema: Json): Json {
  const { eventMetadata: _, ...rest } = schema;
  return rest;
}

// ---- Segment Config API, and RudderStack's legacy plans of the same shape ----------------------

const CONFIG_API_KEYS = ['events', 'global', 'identify', 'group', 'page', 'screen', 'identify_traits', 'group_traits'];
const CONFIG_API_PARTS: [string, Part][] = [['global', 'context'], ['identify', 'identify'], ['group', 'group'], ['page', 'page'], ['screen', 'screen']];

function configApi(doc: Json, rules: Json, at: string): PlanDocument {
  const here = join(at, 'rules');
  const events = own(rules, 'events') ?? [];
  if (!Array.isArray(events)) throw refuse(`${here}.events: must be a list`);
  // RudderStack's copy of this shape: a plan version, event ids and "1-0-0" versions, page and screen rules.
  const rudderstack =
    Object.hasOwn(doc, 'version') ||
    ['page', 'screen'].some((key) => Object.hasOwn(rules, key)) ||
    events.some((event) => isObject(event) && (Object.hasOwn(event, 'id') || typeof own(event, 'version') === 'string'));
  const draft = new Draft();
  events.forEach((event, i) => {
    const at2 = `${here}.events[${i}]`;
    if (!isObject(event)) throw refuse(`${at2}: must be an object (an event with name and rules)`);
    const name = eventName(own(event, 'name'), `${at2}.name`);
    const version = versionAt(own(event, 'version'), `${at2}.version`);
    const whole = own(event, 'rules');
    if (!isObject(whole)) throw refuse(`${at2}.rules: must be an object`);
    draft.offer(draft.events, name, trackSchema(whole, `${at2}.rules`, draft.notes, own(event, 'description')), version, at2);
  });
  for (const [key, target] of CONFIG_API_PARTS) {
    const whole = own(rules, key);
    if (whole === undefined || whole === null) continue;
    if (!isObject(whole)) throw refuse(`${here}.${key}: must be an object`);
    draft.offer(draft.parts, target, partSchema(whole, target, `${here}.${key}`, draft.notes), undefined, `${here}.${key}`);
  }
  for (const key of ['identify_traits', 'group_traits']) {
    const list = own(rules, key);
    if (Array.isArray(list) && list.length) draft.notes.push(`${here}.${key}: not carried over (a legacy list; rules.identify and rules.group hold the traits' schemas)`);
  }
  return draft.plan(rudderstack ? 'rudderstack' : 'segment', own(doc, 'display_name') ?? own(doc, 'name'), own(doc, 'description'));
}

// ---- RudderStack Data Catalog ------------------------------------------------------------------

const EVENT_TYPES: Record<string, Part | 'track'> = { track: 'track', identify: 'identify', group: 'group', page: 'page', screen: 'screen' };

function dataCatalog(doc: Json, events: unknown[], at: string): PlanDocument {
  const draft = new Draft();
  events.forEach((event, i) => {
    const here = `${join(at, 'events')}[${i}]`;
    if (!isObject(event)) throw refuse(`${here}: must be an object (an event with eventType and rules)`);
    const type = EVENT_TYPES[String(own(event, 'eventType')).toLowerCase()];
    if (!type) throw refuse(`${here}.eventType: must be one of track, identify, group, page, screen`);
    const whole = own(event, 'rules');
    if (!isObject(whole)) throw refuse(`${here}.rules: must be an object`);
    const expected: Section = type === 'identify' || type === 'group' ? 'traits' : 'properties';
    const section = own(event, 'identitySection') ?? expected;
    if (section !== 'properties' && section !== 'traits' && section !== 'context.traits') {
      throw refuse(`${here}.identitySection: must be properties, traits or context.traits`);
    }
    const at2 = `${here}.rules`;
    let schema: JsonSchema;
    if (section === expected) {
      schema = type === 'track' ? trackSchema(whole, at2, draft.notes, own(event, 'description')) : partSchema(whole, type, at2, draft.notes);
    } else if (section === 'context.traits' && expected === 'traits') {
      // RudderStack's SDKs send identify traits in context.traits; Sluice checks a message's traits.
      draft.notes.push(`${here}: its rules are for context.traits; Sluice checks the ${type}'s traits against them`);
      const context = part(whole, 'context', at2); // carries the $schema and $defs down, for the next step
      schema = (isObject(context) ? part(context, 'traits', `${at2}.properties.context`) : undefined) ?? {};
    } else {
      draft.notes.push(`${at2}.properties.${section}: not carried over (Sluice checks a ${type}'s ${expected})`);
      schema = {};
    }
    if (type === 'track') draft.offer(draft.events, eventName(own(event, 'name'), `${here}.name`), schema, undefined, here);
    else draft.offer(draft.parts, type, schema, undefined, here);
  });
  return draft.plan('rudderstack', own(doc, 'name'), own(doc, 'description'));
}

// ---- Files -------------------------------------------------------------------------------------

/** Reads a plan file; `version` is the first 12 hex digits of the SHA-256 of its bytes. */
export function loadPlanFile(file: string): PlanDocument & { version: string } {
  const bytes = readLimited(file);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); // drops a leading BOM, as Windows editors write one
  } catch {
    throw refuse(`${file} is not UTF-8 text`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw refuse(`${file} is not JSON: ${(error as Error).message}`);
  }
  return { ...readPlanDocument(json), version: crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 12) };
}

function readLimited(file: string): Buffer {
  try {
    const stat = fs.statSync(file); // before reading: a wrong path may name a log of gigabytes
    if (stat.isDirectory()) throw refuse(`${file} is a folder, not a plan file`);
    if (stat.size > PLAN_FILE_LIMIT) throw refuse(`${file} is ${megabytes(stat.size)}; a plan file may be at most ${megabytes(PLAN_FILE_LIMIT)}`);
    return fs.readFileSync(file);
  } catch (error) {
    if (error instanceof PlanError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw refuse(`${file}: there is no such file`);
    if (code === 'EACCES' || code === 'EPERM') throw refuse(`${file}: Sluice may not read this file`);
    throw refuse(`${file}: ${(error as Error).message}`);
  }
}

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Writes a plan in Sluice's format (2-space JSON and a newline), whole (a reader sees the old file or
 * the new one: ../whole-file.ts). The file keeps its permissions; a symbolic link stays a link to the
 * file written.
 */
export function writePlanFile(file: string, plan: TrackingPlan): void {
  writeWholeFile(file, `${JSON.stringify(checked(plan, ''), null, 2)}\n`, { mode: 0o666, keepFile: true });
}
