// Which tracking plans check a source's messages, and what follows from a message's violations: the
// policy (flag, block, forward) around the mechanism (compile-plan.ts). Runs in the store's writer
// thread, where ingestion requests are parsed: each accepted message is checked there, before it is
// stored, so that a blocked message's deliveries are created skipped in the same transaction.
import type { Violation } from '../../../shared/tracking-plan.ts';
import type { PlanRule } from '../writer/protocol.ts';
import type { CheckedMessage, CompiledPlan, compilePlan } from './compile-plan.ts';

/** What the plans say about one message. */
export interface PlanVerdict {
  violations: Violation[];
  /** Why the message is blocked (its deliveries skipped with this reason); null: delivered as usual. */
  blocked: string | null;
  /** Violations to forward, per destination. */
  forward: { destinationId: number; rule: PlanRule; violations: Violation[] }[];
}

interface Active {
  rule: PlanRule;
  compiled: CompiledPlan;
}

/**
 * Violation Generated events per message and plan, at most: each is a stored message and a delivery,
 * and a broken batch of 2,500 events could otherwise make 50,000 of them in one transaction. Every
 * violation is still stored with its message.
 */
export const FORWARD_PER_MESSAGE = 5;

export class PlanChecks {
  #all: Active[] = [];
  #bySource = new Map<number, Active[]>();
  #compiled = new Map<string, CompiledPlan>();

  /**
   * Replaces the rules; a plan that does not compile here (the registry compiled it first) is left out
   * with a log line. `compile` is compile-plan.ts's, which the writer loads only once there is a plan
   * (ajv costs a relay without plans a tenth of a second at start).
   */
  set(rules: PlanRule[], compile?: typeof compilePlan): void {
    const compiled = new Map<string, CompiledPlan>();
    const all: Active[] = [];
    for (const rule of rules) {
      const key = `${rule.name}\u0000${rule.version}`;
      let plan = this.#compiled.get(key);
      if (!plan) {
        try {
          if (!compile) throw new Error('the plan checker is not loaded');
          plan = compile(rule.name, rule.plan);
        } catch (error) {
          console.error(`sluice: tracking plan "${rule.name}" not used: ${(error as Error).message}`);
          continue;
        }
      }
      compiled.set(key, plan);
      all.push({ rule, compiled: plan });
    }
    this.#compiled = compiled;
    this.#all = all.filter((a) => a.rule.sourceIds === null);
    this.#bySource = new Map();
    for (const active of all) {
      for (const sourceId of active.rule.sourceIds ?? []) this.#bySource.set(sourceId, [...(this.#bySource.get(sourceId) ?? []), active]);
    }
  }

  get empty(): boolean {
    return this.#all.length === 0 && this.#bySource.size === 0;
  }

  /** The message's violations of every plan of its source, with what they cause; null when it conforms (or no plan applies). */
  check(sourceId: number, message: CheckedMessage): PlanVerdict | null {
    const own = this.#bySource.get(sourceId);
    if (this.#all.length === 0 && !own) return null;
    let verdict: PlanVerdict | null = null;
    for (const active of own ? [...this.#all, ...own] : this.#all) {
      const found = active.compiled.check(message, active.rule.unplanned);
      if (found.length === 0) continue;
      verdict ??= { violations: [], blocked: null, forward: [] };
      verdict.violations.push(...found);
      verdict.blocked ??= blockReason(active.rule, found);
      if (active.rule.forwardTo !== null) {
        verdict.forward.push({ destinationId: active.rule.forwardTo, rule: active.rule, violations: found.slice(0, FORWARD_PER_MESSAGE) });
      }
    }
    return verdict;
  }

  /** Violations only (a re-check records them; it does not block or forward after the fact). */
  violations(sourceId: number, message: CheckedMessage): Violation[] {
    return this.check(sourceId, message)?.violations ?? [];
  }
}

/** The skip reason of a blocked message's deliveries, or null when this plan lets it through. */
function blockReason(rule: PlanRule, violations: Violation[]): string | null {
  const blocking = violations.filter((v) => (v.type === 'Unplanned-Event' ? rule.unplanned === 'block' : rule.violations === 'block'));
  if (blocking.length === 0) return null;
  const more = blocking.length > 1 ? ` (and ${blocking.length - 1} more)` : '';
  return `blocked by the tracking plan "${rule.name}": ${blocking[0]!.message}${more}`;
}
