import type { IncomingMessage, ServerResponse } from 'node:http';

/** CORS for browser clients (analytics.js): any origin may post, with its Authorization header. */
export function setCorsHeaders(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
  res.setHeader('Vary', 'Origin');
}

export function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
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
