import type { IncomingMessage, ServerResponse } from 'node:http';
import { IngestError } from './ingest-error.ts';

/**
 * Whether a request with this Origin header may send with the key of a source that accepts `allowed`
 * (its allowedOrigins; null: any). A request without an Origin header is not a browser's: always.
 */
export function originAllowed(allowed: readonly string[] | null | undefined, origin: string | undefined): boolean {
  if (origin === undefined || !allowed) return true;
  const asSent = origin.trim().toLowerCase();
  return allowed.some((entry) => entry === '*' || entry === asSent);
}

/** The refusal of a browser page whose origin the source does not list: nothing of the request is stored. */
export function originRefused(origin: string): IngestError {
  return new IngestError(
    403,
    'origin_not_allowed',
    `a page from ${origin.slice(0, 200)} may not send with this write key: the source's "allowedOrigins" does not list that origin`,
  );
}

/**
 * CORS for browser clients (analytics.js): the page's origin may read the answer, with its Authorization
 * header. Answers are readable by any origin, a refusal included, so a page refused by a source's
 * allowedOrigins sees why; what a source accepts is decided per request (originAllowed).
 */
export function setCorsHeaders(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
  res.setHeader('Vary', 'Origin');
}

/**
 * A preflight names no write key, so it is let through for an origin some source accepts
 * (`anySourceAllows`); for one no source accepts it is answered 403 without CORS headers, and the
 * browser does not send the request.
 */
export function answerPreflight(req: IncomingMessage, res: ServerResponse, anySourceAllows: (origin: string | undefined) => boolean): void {
  if (!anySourceAllows(req.headers.origin)) {
    const body = JSON.stringify({ success: false, error: { code: 'origin_not_allowed', message: `no source accepts pages from ${String(req.headers.origin).slice(0, 200)}` } });
    res.writeHead(403, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), Vary: 'Origin' });
    res.end(body);
    return;
  }
  setCorsHeaders(req, res);
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  res.setHeader(
    'Access-Control-Allow-Headers',
    req.headers['access-control-request-headers'] ?? 'Content-Type, Authorization, Content-Encoding',
  );
  res.setHeader('Access-Control-Max-Age', '600');
  // Chrome's Private Network Access: a public page may reach this loopback endpoint.
  if (req.headers['access-control-request-private-network'] === 'true') {
    res.setHeader('Access-Control-Allow-Private-Network', 'true');
  }
  res.writeHead(204).end();
}

/**
 * What `GET /v1/projects/:writeKey/settings` answers, so `@segment/analytics-next` loaded with
 * `cdnURL` pointing here sends to this endpoint: Segment.io as the only integration, with the write
 * key, this host (as the browser reached it) and plain http; telemetry sampling off.
 */
export function projectSettings(writeKey: string, hostHeader: string): object {
  return {
    integrations: {
      'Segment.io': {
        apiKey: writeKey,
        apiHost: `${hostHeader}/v1`,
        protocol: 'http',
        unbundledIntegrations: [],
        addBundledMetadata: true,
        maybeBundledConfigIds: {},
        versionSettings: { componentTypes: [] },
      },
    },
    plan: {
      track: { __default: { enabled: true, integrations: {} } },
      identify: { __default: { enabled: true } },
      group: { __default: { enabled: true } },
    },
    edgeFunction: {},
    analyticsNextEnabled: true,
    middlewareSettings: {},
    enabledMiddleware: {},
    metrics: { sampleRate: 0 },
    legacyVideoPluginsEnabled: false,
    remotePlugins: [],
  };
}

/**
 * What `GET /sourceConfig` answers, so RudderStack's browser SDK (`@rudderstack/analytics-js` 3.x)
 * loaded with `configUrl` pointing here sends to its data plane URL: the shape its config manager
 * checks (`source` with an `id`, a `config` object and a `destinations` array; read from
 * dist/npm/modern/esm/index.mjs of 3.34, isValidSourceConfig and processConfig), no device-mode
 * destinations (nothing is loaded from RudderStack's CDN), and error reporting and metrics off, so
 * the SDK sends nothing to RudderStack's own services.
 */
export function rudderSourceConfig(source: { id: number; name: string; writeKey: string }): object {
  return {
    isHosted: false,
    source: {
      id: `sluice-source-${source.id}`,
      name: source.name,
      writeKey: source.writeKey,
      workspaceId: 'sluice',
      enabled: true,
      config: { statsCollection: { errors: { enabled: false }, metrics: { enabled: false } } },
      destinations: [],
    },
  };
}
