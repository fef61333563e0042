/** The name by which `integrations` switches the webhook destination on or off (case-sensitive). */
export const WEBHOOKS_INTEGRATION = 'Webhooks';

/**
 * Why the webhook destination must skip a message, or null when it is enabled (seed §2.4,
 * DESIGN.md §5.10): all destinations are on by default; `All: false` turns every one off unless its
 * own key is true; `Webhooks: false` turns this one off.
 */
export function webhooksSkipReason(integrations: Record<string, unknown> | undefined): string | null {
  if (!integrations) return null;
  const own = integrations[WEBHOOKS_INTEGRATION];
  if (own !== undefined) return own === false ? `integrations.${WEBHOOKS_INTEGRATION} is false` : null;
  if (integrations.All === false) return `integrations.All is false and ${WEBHOOKS_INTEGRATION} is not true`;
  return null;
}

/**
 * The message's integrations as Segment reads them: batch-level, then context.integrations, then its
 * own. `batchContext` is the batch-level context, which ingestion merges under the message's own
 * (normalize.ts), so its `integrations` counts unless the message's context has its own.
 */
export function mergedIntegrations(
  message: { integrations?: unknown; context?: unknown },
  batchLevel?: Record<string, unknown>,
  batchContext?: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const context = message.context as Record<string, unknown> | undefined;
  const fromContext = context && 'integrations' in context ? context.integrations : batchContext?.integrations;
  const parts = [batchLevel, fromContext, message.integrations].filter(
    (part): part is Record<string, unknown> => typeof part === 'object' && part !== null && !Array.isArray(part),
  );
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : Object.assign({}, ...parts);
}
