import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PLAN_FILE_LIMIT, loadPlanFile, readPlanDocument, writePlanFile } from '../../../electron/core/plans/plan-document.ts';
import { PlanError } from '../../../electron/core/plans/plan-error.ts';
import type { TrackingPlan } from '../../../shared/tracking-plan.ts';
import { tempDir } from '../../helpers/temp-dirs.ts';

const FIXTURES = path.join(import.meta.dirname, '../../fixtures/plans');
const fixture = (name: string): any => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8'));

/** The problems of the PlanError `run` throws (and fails the test when it throws nothing, or something else). */
function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PlanError);
    return (error as PlanError).problems;
  }
  throw new Error('expected a PlanError');
}

describe("Sluice's format", () => {
  it('reads the plan as it is written', () => {
    const json = fixture('sluice.json');
    const { plan, format, notes } = readPlanDocument(json);
    expect(format).toBe('sluice');
    expect(plan).toEqual(json);
    expect(notes).toEqual([]);
  });

  it('names each place that is not a JSON Schema, all at once', () => {
    const problems = problemsOf(() => readPlanDocument({ events: { 'Order Completed': 5, '': {} }, identify: 'traits' }));
    expect(problems).toContain('events["Order Completed"]: must be a JSON Schema (an object, or true / false)');
    expect(problems).toContain('events[""]: an event name must have 1 to 1024 characters');
    expect(problems).toContain('identify: must be a JSON Schema (an object, or true / false)');
  });

  it('reads a plan without events when it has other parts, but not events given as a list', () => {
    expect(readPlanDocument({ identify: { type: 'object' } }).plan).toEqual({ events: {}, identify: { type: 'object' } });
    expect(problemsOf(() => readPlanDocument({ events: [] }))[0]).toMatch(/^events: /);
  });
});

describe('Segment Config API', () => {
  const json = fixture('segment-config-api.json');

  it('takes each track event’s properties schema, with the draft, description and labels of its rule', () => {
    const { plan, format } = readPlanDocument(json);
    expect(format).toBe('segment');
    expect(plan.name).toBe('Acme Shop (Protocols)');
    expect(Object.keys(plan.events)).toEqual(['Order Completed', 'Product Viewed', 'Checkout Started', 'Signed Up']);
    const inner = json.rules.events[3].rules.properties.properties;
    expect(plan.events['Checkout Started']).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      ...inner,
      labels: { area: 'checkout', platform: 'web' },
    });
    // Its own draft-04 stays draft-04 (exclusiveMinimum and friends mean other things there); empty labels are not copied.
    expect(plan.events['Product Viewed']).toMatchObject({ $schema: 'http://json-schema.org/draft-04/schema#', description: 'A product page was opened.' });
    expect(plan.events['Product Viewed']).not.toHaveProperty('labels');
  });

  it('keeps the highest version of an event listed twice', () => {
    const { plan, notes } = readPlanDocument(json);
    expect(plan.events['Order Completed']).toMatchObject({ required: ['order_id', 'total', 'currency', 'products'], labels: { priority: 'p0' } });
    expect(notes).toContain('rules.events[1]: "Order Completed" version 2 is used; version 1 is left out (Sluice checks the highest version)');
  });

  it('takes identify and group traits, and the global rule’s context', () => {
    const { plan } = readPlanDocument(json);
    expect(plan.identify).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', ...json.rules.identify.properties.traits });
    expect(plan.group).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', ...json.rules.group.properties.traits });
    expect(plan.context).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', ...json.rules.global.properties.context });
    expect(plan).not.toHaveProperty('page');
  });

  it('says what an event constrains outside its properties', () => {
    const { notes } = readPlanDocument(json);
    expect(notes).toContain("rules.events[4].rules.properties.context: not carried over (Sluice's plan checks a track event's properties here)");
    expect(notes).toContain("rules.events[4].rules.required: userId not carried over (Sluice's plan checks a track event's properties here)");
    expect(notes).toHaveLength(3);
  });

  it('reads the same plan inside the API’s envelopes', () => {
    const plain = readPlanDocument(json).plan;
    expect(readPlanDocument({ tracking_plan: json }).plan).toEqual(plain);
    expect(readPlanDocument({ tracking_plans: [json] }).plan).toEqual(plain);
    expect(problemsOf(() => readPlanDocument({ tracking_plans: [json, json] }))).toEqual([
      'tracking_plans: holds 2 tracking plans; save one plan (its own GET) instead',
    ]);
  });

  it('takes the highest version whatever the order', () => {
    const reversed = { ...json, rules: { ...json.rules, events: [...json.rules.events].reverse() } };
    expect(readPlanDocument(reversed).plan.events['Order Completed']).toEqual(readPlanDocument(json).plan.events['Order Completed']);
  });

  it('names the malformed part', () => {
    const broken = structuredClone(json);
    broken.rules.events[3].rules = 'object';
    expect(problemsOf(() => readPlanDocument(broken))).toEqual(['rules.events[3].rules: must be an object']);
    broken.rules.events[3] = { name: '', rules: {} };
    expect(problemsOf(() => readPlanDocument(broken))).toEqual(["rules.events[3].name: must be the event's name (a non-empty string)"]);
    broken.rules.events = { 'Order Completed': {} };
    expect(problemsOf(() => readPlanDocument(broken))).toEqual(['rules.events: must be a list']);
  });
});

describe('Segment Public API', () => {
  const json = fixture('segment-public-api.json');

  it('converts each rule by its type', () => {
    const { plan, format, notes } = readPlanDocument(json);
    const rules = json.data.rules;
    expect(format).toBe('segment');
    expect(Object.keys(plan.events)).toEqual(['Order Completed', 'Product Viewed', 'Product List Filtered']);
    expect(plan.events['Product List Filtered']).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      ...rules[4].jsonSchema.properties.properties,
      description: 'A shopper filtered or sorted a product list.',
      labels: { area: 'browse', platform: 'web' },
    });
    expect(plan.context).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', ...rules[0].jsonSchema.properties.context });
    expect(plan.identify).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', ...rules[5].jsonSchema.properties.traits });
    expect(plan.group).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', ...rules[6].jsonSchema.properties.traits });
    expect(plan.page).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', ...rules[7].jsonSchema.properties.properties });
    expect(plan).not.toHaveProperty('screen');
    // Version 2 is listed before version 1.
    expect(plan.events['Order Completed']).toMatchObject({ required: ['order_id', 'revenue', 'currency'] });
    expect(notes).toEqual(['data.rules[2]: "Order Completed" version 1 is left out (Sluice checks the highest version, version 2)']);
  });

  it('reads the rules without their envelope too, and a null jsonSchema as an event without constraints', () => {
    expect(readPlanDocument({ rules: json.data.rules }).plan).toEqual(readPlanDocument(json).plan);
    expect(readPlanDocument({ rules: [{ type: 'TRACK', key: 'Signed Out', version: 1, jsonSchema: null }] }).plan.events).toEqual({ 'Signed Out': {} });
  });

  it("reads Typewriter's plan.json, whose track rules are already narrowed to the properties", () => {
    // As segmentio/typewriter writes it (src/__tests__/__data__/plan.json).
    const jsonSchema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      description: 'This event is fired in order to trigger a custom violation handler.',
      eventMetadata: { name: 'Custom Violation Handler', type: 'TRACK' },
      labels: {},
      properties: { 'regex property': { description: '', id: '/properties/regex%20property', pattern: 'Lawyer Morty|Evil Morty', type: 'string' } },
      required: ['regex property'],
      type: 'object',
    };
    const typewriter = {
      createdAt: '2022-07-22T21:47:06.000Z',
      description: '',
      id: 'tp_2CJh7O9XUIirKFn4pabvhz8Cn9K',
      name: 'Typewriter E2E',
      resourceSchemaId: 'rs_2CJh7QUSFvjOlQEvvxzpTt8x48X',
      rules: [{ createdAt: '2022-07-22T21:58:03.000Z', deprecatedAt: '0001-01-01T00:00:00.000Z', jsonSchema, key: 'Custom Violation Handler', type: 'TRACK', updatedAt: '2022-07-22T21:58:03.000Z', version: 1 }],
      slug: '',
      type: 'LIVE',
      updatedAt: '2022-07-22T21:58:16.000Z',
    };
    const { eventMetadata: _, ...expected } = jsonSchema;
    const { plan, format } = readPlanDocument(typewriter);
    expect(format).toBe('segment');
    expect(plan).toEqual({ name: 'Typewriter E2E', events: { 'Custom Violation Handler': expected } });
  });

  it('names the malformed rule', () => {
    const rule = json.data.rules[1];
    expect(problemsOf(() => readPlanDocument({ data: { rules: [rule, { ...rule, type: 'ALIAS' }] } }))).toEqual([
      'data.rules[1].type: must be one of TRACK, IDENTIFY, GROUP, PAGE, SCREEN, COMMON',
    ]);
    expect(problemsOf(() => readPlanDocument({ rules: [{ ...rule, key: undefined }] }))).toEqual(["rules[0].key: must be the event's name (a non-empty string)"]);
    expect(problemsOf(() => readPlanDocument({ rules: [{ ...rule, jsonSchema: [] }] }))).toEqual(['rules[0].jsonSchema: must be an object']);
    expect(problemsOf(() => readPlanDocument({ rules: [{ ...rule, version: {} }] }))).toEqual(['rules[0].version: must be a number']);
  });

  it('refuses a tracking plan saved without its rules, and says which answer to save', () => {
    const saved = { data: { trackingPlan: { id: 'tp_2CJh7O9XUIirKFn4pabvhz8Cn9K', name: 'Acme', slug: 'acme', type: 'LIVE' } } };
    expect(problemsOf(() => readPlanDocument(saved))).toEqual([
      'data.trackingPlan: a Segment tracking plan without its rules; save the answer of GET /tracking-plans/{id}/rules instead',
    ]);
  });
});

describe('RudderStack', () => {
  it('reads a Data Catalog plan: each event by its eventType and identitySection, $defs carried down', () => {
    const json = fixture('rudderstack.json');
    const { plan, format, notes } = readPlanDocument(json);
    const [viewed, , shared, identify, page] = json.events;
    expect(format).toBe('rudderstack');
    expect(plan.name).toBe('Acme Shop');
    expect(plan.description).toBe('Events from the Acme Shop web app.');
    expect(Object.keys(plan.events)).toEqual(['Product Viewed', 'Order Completed', 'Cart Shared']);
    // price is { $ref: '#/$defs/Money' }: the definitions must sit at the root of the schema taken out.
    expect(plan.events['Product Viewed']).toEqual({
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      ...viewed.rules.properties.properties,
      $defs: viewed.rules.$defs,
      description: 'A product page was opened.',
    });
    expect(plan.events['Cart Shared']).toEqual({ $schema: 'https://json-schema.org/draft/2019-09/schema', ...shared.rules.properties.properties });
    expect(plan.identify).toEqual({ $schema: 'https://json-schema.org/draft/2019-09/schema', ...identify.rules.properties.traits });
    expect(plan.page).toEqual({ $schema: 'https://json-schema.org/draft/2019-09/schema', ...page.rules.properties.properties });
    expect(notes).toEqual([]);
  });

  it('reads identify traits planned in context.traits as the traits, and says so', () => {
    const traits = { type: 'object', properties: { email: { type: ['string'] } }, required: ['email'] };
    const doc = {
      name: 'Demo',
      version: 1,
      workspaceId: 'ws',
      events: [{ id: 'ev_1', name: '', eventType: 'identify', identitySection: 'context.traits', rules: { type: 'object', properties: { context: { type: 'object', properties: { traits } } } } }],
    };
    const { plan, notes } = readPlanDocument(doc);
    expect(plan.identify).toEqual(traits);
    expect(notes).toEqual(["events[0]: its rules are for context.traits; Sluice checks the identify's traits against them"]);
  });

  it('reads the legacy shape rudder-transformer reads (rules.events with "1-0-0" versions) as RudderStack’s', () => {
    // As rudder-transformer's test/__tests__/eventValidation.test.js mocks the config backend.
    const rules = (required: string[]) => ({
      type: 'object',
      $schema: 'http://json-schema.org/draft-07/schema#',
      required: ['properties'],
      properties: { properties: { $schema: 'http://json-schema.org/draft-07/schema#', additionalProperties: false, properties: { email: { type: ['string'] } }, type: 'object', required } },
    });
    const doc = {
      rules: {
        events: [
          { id: 'ev_22HzyIUtuhfoI80iDfAgf47GHpw', name: 'Product clicked', description: 'Fired when an product is clicked.', version: '1-10-0', rules: rules(['email']) },
          { id: 'ev_22HzyIUtuhfoI80iDfAgf47GHpx', name: 'Product clicked', description: 'Fired when an product is clicked.', version: '1-9-0', rules: rules([]) },
        ],
        identify: { type: 'object', properties: { traits: { type: 'object', required: ['name'] } } },
      },
      name: 'workspaces/dummy_workspace_id/tracking-plans/dummy_tracking_plan_id',
      display_name: 'Demo Tracking Plan',
      version: 1,
      create_time: '2021-12-14T19:19:13.666Z',
      update_time: '2021-12-15T13:29:59.272Z',
    };
    const { plan, format, notes } = readPlanDocument(doc);
    expect(format).toBe('rudderstack');
    expect(plan.name).toBe('Demo Tracking Plan');
    // 1-10-0 is above 1-9-0: versions compare number by number, not as text.
    expect(plan.events['Product clicked']).toMatchObject({ required: ['email'], description: 'Fired when an product is clicked.' });
    expect(plan.identify).toEqual({ type: 'object', required: ['name'] });
    expect(notes).toEqual(['rules.events[1]: "Product clicked" version 1-9-0 is left out (Sluice checks the highest version, version 1-10-0)']);
  });

  it('names the malformed event', () => {
    const events = [{ name: 'A', eventType: 'alias', rules: {} }];
    expect(problemsOf(() => readPlanDocument({ workspaceId: 'ws', events }))).toEqual(['events[0].eventType: must be one of track, identify, group, page, screen']);
    expect(problemsOf(() => readPlanDocument({ events: [{ name: 'A', eventType: 'track', rules: { properties: [] } }] }))).toEqual(['events[0].rules.properties: must be an object']);
  });
});

describe('documents Sluice cannot read', () => {
  const understood =
    'not a tracking plan: Sluice reads its own plan format (an "events" object), Segment Protocols plans (Config API "rules.events", Public API "rules" with type, key and jsonSchema, Typewriter\'s plan.json) and RudderStack plans (Data Catalog "events" with eventType, or "rules.events")';

  it('says which formats it reads and what the document held', () => {
    expect(problemsOf(() => readPlanDocument({ openapi: '3.1.0', info: {}, paths: {} }))).toEqual([`${understood}; the top-level keys are openapi, info, paths`]);
    // An ESLint config has a rules object too, but none of a tracking plan's.
    expect(problemsOf(() => readPlanDocument({ rules: { 'no-console': 'error' } }))).toEqual([`${understood}; the top-level keys are rules`]);
    expect(problemsOf(() => readPlanDocument([]))).toEqual([`${understood}; the document is a list`]);
    expect(problemsOf(() => readPlanDocument({}))).toEqual([`${understood}; the document is an empty object`]);
    expect(problemsOf(() => readPlanDocument({ data: { items: [] } }))).toEqual([`${understood}; the top-level keys of data are items`]);
  });
});

describe('plan files', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir('sluice-plan-');
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('loads a file; its version is the start of the SHA-256 of its bytes', () => {
    const file = path.join(FIXTURES, 'segment-public-api.json');
    const loaded = loadPlanFile(file);
    expect(loaded.version).toBe(crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 12));
    expect(loaded.format).toBe('segment');
    expect(loaded.plan).toEqual(readPlanDocument(fixture('segment-public-api.json')).plan);
  });

  it('loads a file that starts with a byte order mark', () => {
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, `\uFEFF${JSON.stringify({ events: { A: {} } })}`);
    expect(loadPlanFile(file).plan).toEqual({ events: { A: {} } });
  });

  it('refuses a file over 5 MB, saying its size', () => {
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, Buffer.alloc(PLAN_FILE_LIMIT + 200 * 1024, 0x20));
    expect(problemsOf(() => loadPlanFile(file))).toEqual([`${file} is 5.2 MB; a plan file may be at most 5.0 MB`]);
  });

  it('refuses a file that is not JSON, naming it and the parse error', () => {
    const file = path.join(dir, 'plan.yaml');
    fs.writeFileSync(file, 'events:\n  Order Completed: {}\n');
    const [problem] = problemsOf(() => loadPlanFile(file));
    expect(problem?.startsWith(`${file} is not JSON: `)).toBe(true);
    expect(problem).toContain('is not valid JSON'); // V8's own sentence, with the place it stopped
  });

  it('refuses a missing file and a folder, naming the path', () => {
    const file = path.join(dir, 'missing.json');
    expect(problemsOf(() => loadPlanFile(file))).toEqual([`${file}: there is no such file`]);
    expect(problemsOf(() => loadPlanFile(dir))).toEqual([`${dir} is a folder, not a plan file`]);
  });

  it('writes 2-space JSON with a newline that reads back equal', () => {
    const file = path.join(dir, 'plan.json');
    const plan = readPlanDocument(fixture('segment-config-api.json')).plan;
    writePlanFile(file, plan);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toBe(`${JSON.stringify(plan, null, 2)}\n`);
    expect(loadPlanFile(file)).toMatchObject({ plan, format: 'sluice' });
  });

  it('replaces the file in one rename: the old content is there until then, and the mode is kept', () => {
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, '{"events":{}}\n');
    fs.chmodSync(file, 0o640);
    const plan: TrackingPlan = { name: 'New', events: { 'Order Completed': { type: 'object' } } };
    const rename = fs.renameSync;
    const seen: { before: string; from: string }[] = [];
    vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      seen.push({ before: fs.readFileSync(to, 'utf8'), from: String(from) });
      expect(fs.readFileSync(from, 'utf8')).toBe(`${JSON.stringify(plan, null, 2)}\n`);
      rename(from, to);
    });
    writePlanFile(file, plan);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.before).toBe('{"events":{}}\n');
    expect(path.dirname(seen[0]!.from)).toBe(dir);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(fs.readdirSync(dir)).toEqual(['plan.json']);
  });

  it('leaves the old file, and no temporary one, when the rename fails', () => {
    const file = path.join(dir, 'plan.json');
    fs.writeFileSync(file, '{"events":{}}\n');
    vi.spyOn(fs, 'renameSync').mockImplementation(() => {
      throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
    });
    expect(() => writePlanFile(file, { events: { A: {} } })).toThrow(/EXDEV/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"events":{}}\n');
    expect(fs.readdirSync(dir)).toEqual(['plan.json']);
  });

  it('writes through a symbolic link, which stays a link', () => {
    const real = path.join(dir, 'real.json');
    const link = path.join(dir, 'plan.json');
    fs.writeFileSync(real, '{"events":{}}\n');
    fs.symlinkSync(real, link);
    writePlanFile(link, { events: { A: {} } });
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(fs.readFileSync(real, 'utf8'))).toEqual({ events: { A: {} } });
  });

  it('refuses to write what is not a plan', () => {
    const file = path.join(dir, 'plan.json');
    expect(problemsOf(() => writePlanFile(file, { events: { A: 5 } } as never))).toEqual(['events.A: must be a JSON Schema (an object, or true / false)']);
    expect(fs.existsSync(file)).toBe(false);
  });
});
