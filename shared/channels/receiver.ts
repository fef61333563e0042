/**
 * The contract's channels of the built-in webhook receiver (`receiver.*`): its inbox, how each hook
 * answers, and a source connected to it. Composed into shared/contract.ts.
 */
import { z } from 'zod';
import { receiverBehaviourSchema, type InboxEntry, type ReceiverBehaviour } from '../receiver.ts';
import { recordId as id } from './record-id.ts';

export const receiverRequestSchemas = {
  /** What the built-in receiver got (the newest `limit`, oldest first) and how each hook answers. */
  'receiver.inbox': z.strictObject({ hook: z.string().max(200).optional(), limit: z.number().int().min(1).max(10_000).optional() }),
  'receiver.setBehaviour': z.strictObject({ hook: z.string().min(1).max(200), behaviour: receiverBehaviourSchema }),
  /**
   * When no enabled destination receives the source: the "Built-in receiver" destination (signed,
   * sluice://receiver/demo; made or reused, as samples.send does) connected to it. Its next messages
   * arrive signed in the receiver's inbox. `destination` null: the source already delivered somewhere.
   */
  'receiver.connect': z.strictObject({ sourceId: id }),
} as const;

/** The "Built-in receiver" destination a source was connected to (`created`: made by this call). */
export interface ReceiverDestination {
  id: number;
  name: string;
  hookUrl: string;
  created: boolean;
}

export interface ReceiverResponses {
  'receiver.inbox': { entries: InboxEntry[]; behaviours: Record<string, ReceiverBehaviour> };
  'receiver.setBehaviour': { hook: string; behaviour: ReceiverBehaviour };
  'receiver.connect': { destination: ReceiverDestination | null };
}
