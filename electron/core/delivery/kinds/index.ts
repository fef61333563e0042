import type { DestinationKind } from '../../../../shared/settings.ts';
import type { Destination } from '../../store/destinations-repo.ts';
import type { Kind } from './kind.ts';
import { trackingApiKind } from './tracking-api.ts';
import { webhookKind } from './webhook.ts';

export type { Kind } from './kind.ts';

/** Every destination kind, by the name its destinations carry: a new kind is registered here. */
const KINDS: { readonly [name in DestinationKind]: Kind } = {
  webhooks: webhookKind,
  'tracking-api': trackingApiKind,
};

/** A destination's kind (webhooks, the seed's, when it names none). */
export function kindOf(destination: Pick<Destination, 'kind'>): Kind {
  const kind = KINDS[destination.kind ?? 'webhooks'];
  if (!kind) throw new Error(`destination kind "${destination.kind}" is not one Sluice knows (${Object.keys(KINDS).join(', ')}); update Sluice or change the destination's kind`);
  return kind;
}
