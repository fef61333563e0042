/**
 * A tracking plan that cannot be used. `problems` holds one sentence per problem, each starting with
 * where in the plan it is (`events["Order Completed"].properties.price.type: must be ...`), so a
 * loader can show them all at once instead of making the author fix them one reload at a time.
 */
export class PlanError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    const count = problems.length;
    super(count === 1 ? `the tracking plan cannot be used: ${problems[0]}` : `the tracking plan cannot be used (${count} problems): ${problems.join('; ')}`);
    this.name = 'PlanError';
    this.problems = problems;
  }
}
