// "Add to plan" asks before it writes (issue 24, point 11): plans.addEvent's dry run infers the schema
// and writes nothing; the confirmed call writes the schema it is given — the one the dry run showed —
// and a given schema that does not compile is refused with the file untouched. A real core, a real
// plan file, a real stored example.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandlers, invoke } from '../../../electron/core/api/contract-handlers.ts';
import { parseConfig } from '../../../electron/core/config/load-config.ts';
import { callOk } from '../../helpers/contract.ts';
import { post, startCore, tempDir, type TestCore } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

let core: TestCore | undefined;
afterEach(async () => {
  await core?.dispose();
  core = undefined;
});

async function setup() {
  const dir = tempDir('sluice-plan-add-');
  const file = path.join(dir, 'plan.json');
  fs.writeFileSync(file, '{ "events": {} }\n');
  core = await startCore({
    config: parseConfig(JSON.stringify({ sources: [{ name: 'web', writeKey: 'wk_web' }], trackingPlans: [{ name: 'web plan', sources: ['web'], file }] })),
  });
  const handlers = createHandlers(core);
  expect((await post({ ingestUrl: core.ingestUrl, writeKey: 'wk_web' }, '/v1/track', { userId: 'u', event: 'Coupon Applied', properties: { code: 'SPRING' } })).status).toBe(200);
  await until(() => core!.messages.list({}).length === 1);
  return { file, handlers };
}

describe('plans.addEvent asks first', () => {
  it('a dry run infers the schema and writes nothing; the confirmed call writes the schema it was shown', async () => {
    const { file, handlers } = await setup();
    const before = fs.readFileSync(file, 'utf8');
    const preview = await callOk(handlers, 'plans.addEvent', { name: 'web plan', type: 'track', event: 'Coupon Applied', dryRun: true });
    expect(preview.examples).toBe(1);
    expect(preview.schema).toMatchObject({ type: 'object', properties: { code: { type: 'string' } } });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
    expect((await callOk(handlers, 'plans.list', {})).plans[0]!.plan!.events).toEqual({});

    // Confirmed: exactly the schema given (here the preview's, narrowed by hand), not one inferred again.
    const confirmed = { ...(preview.schema as object), required: ['code'] };
    const written = await callOk(handlers, 'plans.addEvent', { name: 'web plan', type: 'track', event: 'Coupon Applied', schema: confirmed });
    expect(written.schema).toEqual(confirmed);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ events: { 'Coupon Applied': confirmed } });
  });

  it('a given schema that does not compile is refused, and the file stays as it was', async () => {
    const { file, handlers } = await setup();
    const before = fs.readFileSync(file, 'utf8');
    const refused = await invoke(handlers, 'plans.addEvent', { name: 'web plan', type: 'track', event: 'Coupon Applied', schema: { type: 'nonsense' } });
    expect(refused).toMatchObject({ ok: false, error: { code: 'invalid_schema', message: expect.stringMatching(/^the schema does not compile \(.+\); nothing was written$/) } });
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});
