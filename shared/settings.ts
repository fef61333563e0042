import { z } from 'zod';
import { MAX_WEBHOOKS } from './limits.ts';
import { propertyName } from './audience-property.ts';
import { audienceConfigSchema } from './audiences.ts';
import { trackingPlanConfigSchema } from './tracking-plan.ts';
import { retentionSchema } from './retention.ts';
import { destinationFiltersSchema, destinationTransformSchema } from './destination-filters.ts';
import { RECEIVER_URL_PREFIX, receiverUrlProblem } from './receiver-hooks.ts';

export const SOURCE_KINDS = ['web', 'mobile', 'server'] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** RFC 9110 token: what an HTTP header name may contain. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers Sluice sets itself or that HTTP owns; a static header may not replace them. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'x-signature',
  'user-agent',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
  'sluice-loop', // the loop guard's (shared/loop-guard.ts)
  'webhook-id', // Standard Webhooks' three
  'webhook-timestamp',
  'webhook-signature',
]);

const name = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters');

export const writeKeySchema = z
  .string()
  .min(1, 'must not be empty')
  .max(256, 'must be at most 256 characters')
  .regex(/^[A-Za-z0-9_\-.~]+$/, 'may contain only letters, digits and _ - . ~');

/**
 * A web origin as browsers send it in the Origin header — scheme, host and port only, lowercase, the
 * default port left out ("https://app.example.com", "http://localhost:3000") — or "*" for any.
 */
export const originSchema = z.string().superRefine((value, ctx) => {
  if (value === '*') return;
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 200)}" is not an origin; write one as https://app.example.com, or "*" for any` });
  } else if (url.origin !== value) {
    ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 200)}" is not an origin as browsers send it; write ${url.origin} (no path, no trailing slash)` });
  }
});

/** What the inspector edits of a source (sources.save); the config file may also limit its origins. */
export const sourceFieldsSchema = z.strictObject({
  name,
  writeKey: writeKeySchema,
  kind: z.enum(SOURCE_KINDS, { error: () => `must be one of ${SOURCE_KINDS.join(', ')}` }).default('server'),
});

export const sourceSchema = z.strictObject({
  ...sourceFieldsSchema.shape,
  /** Browser origins that may send with this key (their Origin header); absent: any origin. Requests without Origin (servers) are not affected. */
  allowedOrigins: z.array(originSchema).max(100, 'at most 100 origins').optional(),
});
export type SourceConfig = z.infer<typeof sourceSchema>;

/** An http(s) URL to post to (a Tracking API's); webhookUrlSchema also takes the built-in receiver by name. */
export const httpUrlSchema = z.string().superRefine((value, ctx) => checkHttpUrl(value, ctx, 'must use http or https'));

/** A webhook's URL: http(s), or `sluice://receiver/<hook>` for the built-in receiver wherever it listens (shared/receiver-hooks.ts). */
export const webhookUrlSchema = z.string().superRefine((value, ctx) => {
  if (/^sluice:/i.test(value)) {
    const problem = receiverUrlProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
    return;
  }
  checkHttpUrl(value, ctx, `must use http or https (or ${RECEIVER_URL_PREFIX}<hook> for the built-in receiver)`);
});

function checkHttpUrl(value: string, ctx: z.RefinementCtx, schemes: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `"${value.slice(0, 200)}" is not a valid URL` });
    return;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    ctx.addIssue({ code: 'custom', message: `${schemes}, not ${url.protocol.replace(':', '')}` });
  }
  if (url.username || url.password) {
    ctx.addIssue({ code: 'custom', message: 'must not contain credentials; use a static header instead' });
  }
}

export const webhookHeadersSchema = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  for (const [key, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(key)) {
      ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is not a valid header name` });
    } else if (RESERVED_HEADERS.has(key.toLowerCase())) {
      ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is set by Sluice and cannot be overridden` });
    }
    if (/[\r\n\0]/.test(value)) {
      ctx.addIssue({ code: 'custom', path: [key], message: 'header values may not contain line breaks or NUL' });
    }
  }
});

export const webhookSchema = z.strictObject({
  url: webhookUrlSchema,
  headers: webhookHeadersSchema.default({}),
  /** Extra trusted CA certificate (PEM), for local HTTPS receivers (mkcert and similar). */
  caCert: z
    .string()
    .refine((pem) => pem.includes('-----BEGIN CERTIFICATE-----'), 'must be a PEM certificate')
    .optional(),
});
export type WebhookConfig = z.infer<typeof webhookSchema>;

export const destinationOptionsSchema = z.strictObject({
  /** "seed": the seed's table 2.2 bodies; "full": the whole normalized message plus version 1. */
  bodyShape: z.enum(['seed', 'full']).default('seed'),
  /** Deliveries of this destination in flight at once. */
  concurrency: z.number().int().min(1).max(256).default(32),
});
export type DestinationOptions = z.infer<typeof destinationOptionsSchema>;

export const DESTINATION_KINDS = ['webhooks', 'tracking-api'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

/**
 * A Tracking API to forward to (Segment's, a RudderStack data plane, another Sluice): accepted
 * messages go unchanged, in batches, to `<url>/v1/batch` (or to `url` itself when it ends so).
 */
export const trackingApiSchema = z.strictObject({
  url: httpUrlSchema,
  /** Sent as Basic auth (`writeKey:`), as Segment's libraries do. */
  writeKey: z.string().min(1, 'must not be empty').max(1024).regex(/^[^\s:]+$/, 'may not contain spaces or ":"'),
  /** Messages per request, at most (each request also stays under 500 KB). */
  batchSize: z.number().int().min(1).max(500).default(100),
  /** How long a partial batch waits for more messages, in ms (0: send at once). */
  flushMs: z.number().int().min(0).max(60_000).default(1_000),
  /** Gzip the request body (Content-Encoding: gzip). */
  gzip: z.boolean().default(false),
  /** Extra trusted CA (PEM), for an API on local HTTPS. */
  caCert: z.string().refine((pem) => pem.includes('-----BEGIN CERTIFICATE-----'), 'must be a PEM certificate').optional(),
});
export type TrackingApiConfig = z.infer<typeof trackingApiSchema>;

/** How a destination signs its requests: the seed's X-Signature, Standard Webhooks' headers, or both at once. */
export const SIGNING_SCHEMES = ['segment', 'standard', 'both'] as const;
export type SigningScheme = (typeof SIGNING_SCHEMES)[number];

/** Standard Webhooks' secret form: `whsec_` and the key in base64; the spec recommends 24 to 64 bytes. */
export const standardSecretSchema = z.string().superRefine((value, ctx) => {
  const match = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value);
  let bytes = -1;
  if (match && match[1]!.length % 4 === 0) {
    try {
      bytes = atob(match[1]!).length;
    } catch {
      bytes = -1;
    }
  }
  if (bytes < 24 || bytes > 64) {
    ctx.addIssue({ code: 'custom', message: 'must be "whsec_" followed by a 24- to 64-byte key in base64 (the Standard Webhooks form)' });
  }
});

/** The destination's fields; destinationSchema adds the checks across them. */
export const destinationFieldsSchema = z.strictObject({
  name,
  enabled: z.boolean().default(true),
  /** Names of the sources whose messages this destination receives. */
  sources: z.array(name).default([]),
  /** What the destination is: webhooks (absent: the seed's), or a Tracking API messages are forwarded to unchanged. */
  kind: z.enum(DESTINATION_KINDS).optional(),
  /** Where a `tracking-api` destination forwards: the API and its write key. */
  trackingApi: trackingApiSchema.optional(),
  /** At least one for a webhooks destination (see checkDestination); none for a tracking-api one. */
  webhooks: z.array(webhookSchema).max(MAX_WEBHOOKS, `at most ${MAX_WEBHOOKS} webhooks per destination`).default([]),
  /** The seed's X-Signature secret (HMAC-SHA1 of the body). */
  sharedSecret: z.string().min(1, 'must not be empty; leave it out to send unsigned').max(1024).optional(),
  /** Which signatures requests carry; absent: "segment", the seed's X-Signature with sharedSecret. */
  signing: z.enum(SIGNING_SCHEMES).optional(),
  /** Standard Webhooks secrets: one, or two while rotating (each signs every request). */
  signingSecrets: z.array(standardSecretSchema).min(1, 'needs a secret; leave it out when not signing with Standard Webhooks').max(2, 'at most two secrets (the current one and the next, while rotating)').optional(),
  options: destinationOptionsSchema.default({ bodyShape: 'seed', concurrency: 32 }),
  /** What the destination gets of each message, tested in order before its body is built (shared/destination-filters.ts). */
  filters: destinationFiltersSchema.optional(),
  /** The user's function that reshapes, drops or fans out each message before its body is built. */
  transform: destinationTransformSchema.optional(),
});

/** What a destination's kind and signing scheme need of its other fields. */
export function checkDestination(
  destination: {
    kind?: DestinationKind | undefined;
    trackingApi?: unknown;
    webhooks: unknown[];
    signing?: SigningScheme | undefined;
    sharedSecret?: string | undefined;
    signingSecrets?: string[] | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  if (destination.kind === 'tracking-api') {
    if (destination.trackingApi === undefined) {
      ctx.addIssue({ code: 'custom', path: ['trackingApi'], message: 'a tracking-api destination needs trackingApi: { "url", "writeKey" }' });
    }
    if (destination.webhooks.length > 0) {
      ctx.addIssue({ code: 'custom', path: ['webhooks'], message: 'a tracking-api destination forwards to trackingApi.url; leave webhooks out' });
    }
    for (const field of ['signing', 'sharedSecret', 'signingSecrets'] as const) {
      if (destination[field] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [field], message: 'a tracking-api destination is not signed: the API reads its write key (trackingApi.writeKey)' });
      }
    }
    return;
  }
  if (destination.webhooks.length === 0) ctx.addIssue({ code: 'custom', path: ['webhooks'], message: 'needs at least one webhook' });
  if (destination.trackingApi !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['trackingApi'], message: 'only for "kind": "tracking-api"' });
  }
  if (destination.signing !== undefined && destination.signing !== 'segment' && !destination.signingSecrets?.length) {
    ctx.addIssue({ code: 'custom', path: ['signingSecrets'], message: `signing "${destination.signing}" needs a Standard Webhooks secret (whsec_…)` });
  }
  if (destination.signing === 'both' && destination.sharedSecret === undefined) {
    ctx.addIssue({ code: 'custom', path: ['sharedSecret'], message: 'signing "both" needs a shared secret for X-Signature too' });
  }
}

export const destinationSchema = destinationFieldsSchema.superRefine(checkDestination);
export type DestinationConfig = z.infer<typeof destinationSchema>;

export const configFileSchema = z
  .strictObject({
    sources: z.array(sourceSchema).default([]),
    destinations: z.array(destinationSchema).default([]),
    /** Audiences and computed traits (shared/audiences.ts), created or updated by name on start. */
    audiences: z.array(audienceConfigSchema).optional(),
    /** Tracking plans that check the sources' messages (shared/tracking-plan.ts). */
    trackingPlans: z.array(trackingPlanConfigSchema).max(50, 'at most 50 tracking plans').optional(),
    /** How much the store keeps (shared/storage.ts); wins over what Settings saved, at each start. */
    retention: retentionSchema.optional(),
  })
  .superRefine((config, ctx) => {
    const seen = new Map<string, number>();
    const keys = new Map<string, number>();
    config.sources.forEach((source, i) => {
      if (seen.has(source.name)) {
        ctx.addIssue({ code: 'custom', path: ['sources', i, 'name'], message: `duplicate source name "${source.name}"` });
      }
      if (keys.has(source.writeKey)) {
        ctx.addIssue({ code: 'custom', path: ['sources', i, 'writeKey'], message: 'duplicate write key' });
      }
      seen.set(source.name, i);
      keys.set(source.writeKey, i);
    });
    const destinations = new Set<string>();
    config.destinations.forEach((destination, i) => {
      if (destinations.has(destination.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['destinations', i, 'name'],
          message: `duplicate destination name "${destination.name}"`,
        });
      }
      destinations.add(destination.name);
      destination.sources.forEach((sourceName, j) => {
        if (!seen.has(sourceName)) {
          ctx.addIssue({
            code: 'custom',
            path: ['destinations', i, 'sources', j],
            message: `unknown source "${sourceName}"; declare it under "sources"`,
          });
        }
      });
    });
    const audiences = new Set<string>();
    /** "source\u0000property" → the audience that sends it: two would overwrite each other's trait. */
    const properties = new Map<string, number>();
    (config.audiences ?? []).forEach((audience, i) => {
      if (audiences.has(audience.name)) {
        ctx.addIssue({ code: 'custom', path: ['audiences', i, 'name'], message: `duplicate audience name "${audience.name}"` });
      }
      audiences.add(audience.name);
      const property = `${audience.source}\u0000${propertyName(audience.name)}`;
      const other = properties.get(property);
      if (other !== undefined && config.audiences![other]!.name !== audience.name) {
        ctx.addIssue({
          code: 'custom',
          path: ['audiences', i, 'name'],
          message: `"${audience.name}" sends the trait ${propertyName(audience.name)}, as "${config.audiences![other]!.name}" does for the same source; choose a name that gives another trait`,
        });
      }
      properties.set(property, i);
      if (!seen.has(audience.source)) {
        ctx.addIssue({ code: 'custom', path: ['audiences', i, 'source'], message: `unknown source "${audience.source}"; declare it under "sources"` });
      }
      audience.destinations?.forEach((destination, j) => {
        if (!destinations.has(destination)) {
          ctx.addIssue({
            code: 'custom',
            path: ['audiences', i, 'destinations', j],
            message: `unknown destination "${destination}"; declare it under "destinations"`,
          });
        }
      });
    });
    const plans = new Set<string>();
    (config.trackingPlans ?? []).forEach((plan, i) => {
      if (plans.has(plan.name)) {
        ctx.addIssue({ code: 'custom', path: ['trackingPlans', i, 'name'], message: `duplicate tracking plan name "${plan.name}"` });
      }
      plans.add(plan.name);
      if (plan.forwardViolationsTo !== undefined && !destinations.has(plan.forwardViolationsTo)) {
        ctx.addIssue({
          code: 'custom',
          path: ['trackingPlans', i, 'forwardViolationsTo'],
          message: `unknown destination "${plan.forwardViolationsTo}"; declare it under "destinations"`,
        });
      }
    });
  });
export type ConfigFile = z.infer<typeof configFileSchema>;

/** "destinations[0].webhooks[1].url" — how a person reads a path into a JSON document. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || '(root)';
}

/** One line per problem, each naming the field. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
}
