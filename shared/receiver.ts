import { z } from 'zod';

/** How the built-in receiver answers a hook: for demos of success, failures, retries and timeouts. */
export const receiverBehaviourSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('ok') }),
  // 1xx are interim answers, not an answer a webhook sender can act on.
  z.strictObject({ mode: z.literal('status'), status: z.number().int().min(200).max(599) }),
  /** Fails this share of requests with `status` (default 500), answers 200 otherwise. */
  z.strictObject({ mode: z.literal('random'), failureRate: z.number().min(0).max(1), status: z.number().int().min(400).max(599).default(500) }),
  /** Never answers: the sender's timeout fires. */
  z.strictObject({ mode: z.literal('hang') }),
]);
export type ReceiverBehaviour = z.infer<typeof receiverBehaviourSchema>;

/** What the receiver concluded about X-Signature. */
export type SignatureVerdict = 'valid' | 'invalid' | 'missing' | 'unsigned' | 'unverifiable';

export interface InboxEntry {
  id: number;
  hook: string;
  receivedAt: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as received, or its first 64 KB when it was bigger (see bodyBytes). */
  body: string;
  /** The whole body's size in bytes, when `body` holds only its start. */
  bodyBytes?: number;
  signature: SignatureVerdict;
  /** The status it answered, or null when it hung. */
  answeredStatus: number | null;
}
