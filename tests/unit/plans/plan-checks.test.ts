// The writer thread's plan checks: each plan compiled once per version (the rules are sent again
// whenever sources, destinations or any plan change), and a source's messages checked by its plans only.
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../../electron/core/plans/compile-plan.ts';
import { PlanChecks } from '../../../electron/core/plans/plan-checks.ts';
import type { PlanRule } from '../../../electron/core/writer/protocol.ts';

const rule = (name: string, version: string, required: string[], sourceIds: number[] | null = null): PlanRule => ({
  name,
  version,
  plan: { events: { 'Order Completed': { type: 'object', required } } },
  sourceIds,
  unplanned: 'flag',
  violations: 'flag',
  forwardTo: null,
});
const order = { type: 'track', event: 'Order Completed', properties: {} };

describe('PlanChecks', () => {
  it('compiles each plan once per version, and again when its version changes', () => {
    const compiled: string[] = [];
    const counting: typeof compilePlan = (name, plan) => {
      compiled.push(name);
      return compilePlan(name, plan);
    };
    const checks = new PlanChecks();
    checks.set([rule('a', 'v1', ['price']), rule('b', 'v1', [])], counting);
    checks.set([rule('a', 'v1', ['price']), rule('b', 'v1', [])], counting); // e.g. a destination was added
    expect(compiled).toEqual(['a', 'b']);
    checks.set([rule('a', 'v2', ['currency']), rule('b', 'v1', [])], counting);
    expect(compiled).toEqual(['a', 'b', 'a']);
    // the new version is the one in use
    expect(checks.violations(1, order).map((v) => v.path)).toEqual(['/properties/currency']);
  });

  it('checks a source by the plans of every source and its own, no other', () => {
    const checks = new PlanChecks();
    checks.set([rule('everyone', 'v1', ['price']), rule('web only', 'v1', ['currency'], [1])], compilePlan);
    expect(checks.violations(1, order).map((v) => `${v.plan} ${v.path}`)).toEqual(['everyone /properties/price', 'web only /properties/currency']);
    expect(checks.violations(2, order).map((v) => v.plan)).toEqual(['everyone']);
    checks.set([], compilePlan);
    expect(checks.empty).toBe(true);
    expect(checks.check(1, order)).toBeNull();
  });
});
