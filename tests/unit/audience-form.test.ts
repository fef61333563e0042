import { describe, expect, it } from 'vitest';
import type { AudienceView } from '../../shared/audiences.ts';
import { checkSave, emptyCondition, formOf, inputOf, newForm, previewRequest, type AudienceForm } from '../../renderer/src/views/audiences/audience-form.ts';
import { describeDefinition } from '../../renderer/src/views/audiences/describe.ts';

function form(patch: Partial<AudienceForm> = {}): AudienceForm {
  const base = newForm(1);
  return { ...base, name: 'High Value Users', conditions: [{ ...emptyCondition(), trait: 'plan', value: 'pro' }], ...patch };
}

const saved: AudienceView = {
  id: 7,
  name: 'Big Spenders',
  kind: 'audience',
  sourceId: 2,
  property: 'big_spenders',
  rule: {
    match: 'any',
    conditions: [
      { kind: 'trait', trait: 'seats', operator: 'greater_than', value: 10 },
      { kind: 'trait', trait: 'vip', operator: 'equals', value: true },
      { kind: 'event', event: 'Order Completed', operator: 'at_least', count: 3, within: { amount: 1, unit: 'days' } },
    ],
  },
  computation: null,
  mode: 'realistic',
  intervalSeconds: 45,
  destinationIds: [4, 9],
  createdAt: 0,
  updatedAt: 0,
  lastSyncAt: null,
  nextSyncAt: null,
  members: 0,
  lastError: null,
};

describe('audience editor form', () => {
  it('makes the save request the core expects from what the inputs hold', () => {
    const checked = checkSave(
      form({
        match: 'any',
        conditions: [
          { ...emptyCondition(), trait: 'seats', operator: 'greater_than', valueType: 'text', value: ' 12.5 ' },
          { ...emptyCondition('event'), event: 'Order Completed', count: '3', within: { on: true, amount: '7', unit: 'days' } },
          { ...emptyCondition(), trait: 'vip', operator: 'equals', valueType: 'false' },
        ],
        intervalSeconds: '60',
      }),
    );
    expect(checked.errors).toEqual({});
    expect(checked.request).toEqual({
      sourceId: 1,
      name: 'High Value Users',
      kind: 'audience',
      rule: {
        match: 'any',
        conditions: [
          // greater_than compares numbers: the typed text is read as one whatever the type picker said
          { kind: 'trait', trait: 'seats', operator: 'greater_than', value: 12.5 },
          { kind: 'event', event: 'Order Completed', operator: 'at_least', count: 3, within: { amount: 7, unit: 'days' } },
          { kind: 'trait', trait: 'vip', operator: 'equals', value: false },
        ],
      },
      mode: 'demo',
      intervalSeconds: 60,
      destinationIds: null, // the source's destinations, as before audiences could choose
    });
  });

  it('places each problem next to its field', () => {
    const { request, errors } = checkSave(
      form({
        name: '***',
        conditions: [
          { ...emptyCondition(), trait: '', value: 'x' },
          { ...emptyCondition(), trait: 'seats', operator: 'less_than', value: 'ten' },
          { ...emptyCondition('event'), event: 'E', count: '2.5' },
          { ...emptyCondition('event'), event: 'E', within: { on: true, amount: '', unit: 'hours' } },
        ],
        intervalSeconds: '2',
      }),
    );
    expect(request).toBeNull();
    expect(errors).toEqual({
      name: 'needs at least one letter or digit: the trait it sends is named after it (snake_case)',
      'conditions.0.trait': 'name the trait, e.g. plan',
      'conditions.1.value': 'enter a number, e.g. 100',
      'conditions.2.count': 'enter a whole number',
      'conditions.3.within.amount': 'enter a number',
      intervalSeconds: 'must be at least 5 seconds',
    });
  });

  it('ignores the interval in realistic mode, keeping a valid one to switch back to', () => {
    const { request, errors } = checkSave(form({ mode: 'realistic', intervalSeconds: 'abc' }));
    expect(errors).toEqual({});
    expect(request).toMatchObject({ mode: 'realistic', intervalSeconds: 30 });
  });

  it('round-trips a saved audience through the form unchanged', () => {
    const { request } = checkSave(formOf(saved));
    expect(request).toEqual(inputOf(saved));
    // Its chosen destinations too: a mode switch (inputOf) or an edit must not fall back to the source's.
    expect(request?.destinationIds).toEqual([4, 9]);
  });

  it('previews only a complete definition, counting joins and leaves for an edit', () => {
    expect(previewRequest(form({ conditions: [{ ...emptyCondition(), trait: '' }] }))).toBeNull();
    expect(previewRequest(formOf(saved))).toMatchObject({ audienceId: 7, sourceId: 2, kind: 'audience', sampleSize: 10 });
    expect(
      previewRequest(form({ kind: 'computed_trait', name: 'Orders', computation: { kind: 'last_property', event: 'Order Completed', property: 'plan', within: { on: false, amount: '7', unit: 'days' } } })),
    ).toEqual({ sourceId: 1, kind: 'computed_trait', computation: { kind: 'last_property', event: 'Order Completed', property: 'plan' }, sampleSize: 10 });
  });

  it('describes a definition in one line', () => {
    expect(describeDefinition(saved)).toBe('seats is greater than 10 or vip equals true or Order Completed at least 3× in the last 1 day');
    expect(describeDefinition({ rule: null, computation: { kind: 'event_count', event: 'Signed In', within: { amount: 2, unit: 'hours' } } })).toBe(
      'count of Signed In in the last 2 hours',
    );
  });
});
