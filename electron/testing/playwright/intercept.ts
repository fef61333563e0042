/**
 * sluice.intercept(page): routes what an app's production analytics snippet asks of Segment's and
 * RudderStack's hosts to a Sluice relay, inside the browser (Playwright's routing), so that the page
 * keeps its snippet, its hosts and its write key unchanged. What is routed, read from
 * @segment/analytics-next 1.84 (src/browser/standalone.ts, src/lib/parse-cdn.ts, src/browser/index.ts)
 * and @rudderstack/analytics-js 3.34 (dist/npm/modern):
 *
 *   Segment's CDN   /analytics.js/v1/<key>/analytics.min.js  the standalone bundle of the installed
 *                   @segment/analytics-next (dist/umd/standalone.js), else the real CDN answers
 *                   /analytics-next/bundles/<chunk>.js        its lazily loaded chunks, from the same folder
 *                   /v1/projects/<key>/settings               Sluice's settings, pointing the library at
 *                                                             the first Tracking API host below
 *   Tracking API    /v1/*  (api.segment.io)                   Sluice's ingestion endpoint (other paths of the
 *                                                             host, e.g. an app's own as its proxy: the network)
 *   RudderStack     /sourceConfig (api.rudderstack.com)       Sluice's source config
 *                   the data plane (*.dataplane.rudderstack.com, or the hosts given)   Sluice's ingestion endpoint
 *
 * Anything else on those hosts (RudderStack's CDN script and plugins, Segment's destination bundles)
 * is left to the network. A write key no source of the relay has is sent to Sluice as the relay's
 * first source's key (sluice.writeKey), so the production key needs no configuration.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BrowserContext, Page, Route } from '@playwright/test';
import { basicAuth, basicAuthUser } from '../../core/ingest/basic-auth.ts';

/** The hosts routed to Sluice. A name may start with `*.` (any subdomain). Each list replaces its default. */
export interface InterceptHosts {
  /** Segment's CDN: analytics.js, its chunks, the settings. Default ['cdn.segment.com']. */
  segmentCdn?: string[];
  /** Segment's Tracking API; the first is the one the settings name. Default ['api.segment.io']. */
  segmentApi?: string[];
  /** RudderStack's control plane (/sourceConfig). Default ['api.rudderstack.com']. */
  rudderConfig?: string[];
  /** RudderStack's data planes. Default ['*.dataplane.rudderstack.com']. */
  rudderDataPlane?: string[];
}

export interface InterceptOptions {
  hosts?: InterceptHosts;
  /**
   * What answers the snippet's analytics.js: 'installed' (default) serves the standalone bundle of the
   * @segment/analytics-next installed in the project (and its chunks), and lets the real CDN answer when
   * none is; 'network' always lets the CDN answer; a path serves that file (its folder holds the chunks).
   */
  analyticsJs?: 'installed' | 'network' | string;
}

/** The relay's side of the routing: where Sluice listens and the key an unknown one becomes. */
export interface InterceptTarget {
  readonly ingestUrl: string;
  readonly writeKey: string;
}

const DEFAULT_HOSTS: Required<InterceptHosts> = {
  segmentCdn: ['cdn.segment.com'],
  segmentApi: ['api.segment.io'],
  rudderConfig: ['api.rudderstack.com'],
  rudderDataPlane: ['*.dataplane.rudderstack.com'],
};

/** Routes `target`'s (a page's or a whole context's) requests to the relay's hosts; resolves once the routes are set. */
export async function intercept(relay: InterceptTarget, target: Page | BrowserContext, options: InterceptOptions = {}): Promise<void> {
  const hosts = { ...DEFAULT_HOSTS, ...options.hosts };
  for (const [name, list] of Object.entries(hosts)) {
    if (!Array.isArray(list) || list.some((host) => typeof host !== 'string' || !/^(\*\.)?[a-z0-9.-]+(:\d+)?$/i.test(host))) {
      throw new TypeError(`sluice.intercept: hosts.${name} must be a list of host names (e.g. "cdn.example.com" or "*.example.com"), got ${JSON.stringify(list)}`);
    }
  }
  const script = analyticsJsSource(options.analyticsJs ?? 'installed');
  const keys = new KeyMap(relay);
  const matches = (list: string[], url: URL) => list.some((host) => hostMatches(host, url.host));
  const routed = (url: URL) =>
    matches(hosts.segmentCdn, url) || matches(hosts.segmentApi, url) || matches(hosts.rudderConfig, url) || matches(hosts.rudderDataPlane, url);

  await target.route(routed, async (route) => {
    const url = new URL(route.request().url());
    try {
      if (matches(hosts.segmentCdn, url)) return await segmentCdn(route, url);
      if (matches(hosts.rudderConfig, url) && /^\/sourceConfig\/?$/.test(url.pathname)) return await rudderConfig(route, url);
      // A Segment API host may be the app's own (a first-party proxy): only its Tracking API paths are Sluice's.
      if ((matches(hosts.segmentApi, url) && url.pathname.startsWith('/v1/')) || matches(hosts.rudderDataPlane, url)) return await trackingApi(route, url);
      return await route.fallback();
    } catch (error) {
      // The page closing while a request is answered: nothing to answer any more.
      if (/closed|disposed/i.test(String((error as Error).message))) return;
      throw error;
    }
  });

  async function segmentCdn(route: Route, url: URL): Promise<void> {
    const settings = /^\/v1\/projects\/([^/]+)\/settings\/?$/.exec(url.pathname);
    if (settings) {
      const key = await keys.of(decodeURIComponent(settings[1]!));
      const answer = await route.fetch({ url: `${relay.ingestUrl}/v1/projects/${encodeURIComponent(key)}/settings`, maxRedirects: 0 });
      if (answer.status() !== 200 || hosts.segmentApi.length === 0) return await route.fulfill({ response: answer });
      // Sluice names its own address; the page keeps sending to the production host, which is routed back here.
      const body = (await answer.json()) as { integrations?: Record<string, Record<string, unknown>> };
      const segmentIo = body.integrations?.['Segment.io'];
      const apiHost = hosts.segmentApi[0]!;
      if (segmentIo && !apiHost.startsWith('*.')) Object.assign(segmentIo, { apiHost: `${apiHost}/v1`, protocol: 'https' });
      return await route.fulfill({ response: answer, json: body });
    }
    const chunk = script && /^\/analytics-next\/bundles\/([\w.-]+\.js(?:\.map)?)$/.exec(url.pathname)?.[1];
    const file = !script
      ? undefined
      : /^\/analytics\.js\/v1\/[^/]+\/analytics(\.min)?\.js$/.test(url.pathname)
        ? script.file
        : chunk && path.join(script.chunks, chunk);
    if (file && fs.existsSync(file)) {
      return await route.fulfill({
        status: 200,
        contentType: file.endsWith('.map') ? 'application/json' : 'text/javascript; charset=utf-8',
        headers: { 'access-control-allow-origin': '*' },
        body: fs.readFileSync(file),
      });
    }
    return await route.fallback();
  }

  async function rudderConfig(route: Route, url: URL): Promise<void> {
    const search = new URLSearchParams(url.search);
    const given = search.get('writeKey') ?? basicAuthUser(route.request().headers().authorization);
    if (given) search.set('writeKey', await keys.of(given));
    const headers = { ...route.request().headers() };
    if (given && headers.authorization) headers.authorization = basicAuth(search.get('writeKey')!);
    await route.fulfill({ response: await route.fetch({ url: `${relay.ingestUrl}/sourceConfig/?${search}`, headers, maxRedirects: 0 }) });
  }

  async function trackingApi(route: Route, url: URL): Promise<void> {
    const request = route.request();
    const headers = { ...request.headers() };
    delete headers.host;
    const user = basicAuthUser(headers.authorization);
    if (user !== undefined) headers.authorization = basicAuth(await keys.of(user));
    let postData = request.postDataBuffer() ?? undefined;
    // analytics.js names its key in the body (text/plain JSON); a gzipped body is passed as it is.
    if (postData && postData[0] !== 0x1f) postData = await keys.inBody(postData);
    const answer = await route.fetch({ url: `${relay.ingestUrl}${url.pathname}${url.search}`, headers, ...(postData ? { postData } : {}), maxRedirects: 0 });
    await route.fulfill({ response: answer });
  }
}

/** `*.example.com` matches its subdomains; a host without a port matches any port. */
function hostMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase();
  const h = p.includes(':') ? host.toLowerCase() : host.toLowerCase().replace(/:\d+$/, '');
  return p.startsWith('*.') ? h.endsWith(p.slice(1)) && h.length > p.length - 1 : h === p;
}

/**
 * The analytics.js to serve and the folder of its chunks: the installed @segment/analytics-next's
 * dist/umd/standalone.js (looked up from the project's folder, then from Sluice's), a given file, or
 * none (the network answers).
 */
function analyticsJsSource(choice: string): { file: string; chunks: string } | undefined {
  if (choice === 'network') return undefined;
  if (choice !== 'installed') {
    const file = path.resolve(choice);
    if (!fs.existsSync(file)) throw new Error(`sluice.intercept: analyticsJs ${file} does not exist; give the path of analytics.js (dist/umd/standalone.js of @segment/analytics-next), 'installed' or 'network'`);
    return { file, chunks: path.dirname(file) };
  }
  for (const from of [path.join(process.cwd(), 'package.json'), import.meta.filename]) {
    try {
      const manifest = createRequire(from).resolve('@segment/analytics-next/package.json');
      const folder = path.join(path.dirname(manifest), 'dist/umd');
      if (fs.existsSync(path.join(folder, 'standalone.js'))) return { file: path.join(folder, 'standalone.js'), chunks: folder };
    } catch {
      // not installed where this looks
    }
  }
  return undefined;
}

/** Write keys as Sluice knows them: a key no source has becomes the relay's first source's. */
class KeyMap {
  readonly #relay: InterceptTarget;
  readonly #known = new Map<string, Promise<string>>();
  constructor(relay: InterceptTarget) {
    this.#relay = relay;
  }

  of(key: string): Promise<string> {
    let mapped = this.#known.get(key);
    if (!mapped) {
      // Sluice's settings answer 200 for a key one of its sources has, 404 for any other.
      mapped = fetch(`${this.#relay.ingestUrl}/v1/projects/${encodeURIComponent(key)}/settings`).then(
        async (answer) => {
          await answer.body?.cancel();
          return answer.status === 200 ? key : this.#relay.writeKey;
        },
      );
      this.#known.set(key, mapped);
      mapped.catch(() => this.#known.delete(key));
    }
    return mapped;
  }

  /** A JSON body naming a write key (`writeKey` at its top) with the key Sluice knows it by; anything else as it is. */
  async inBody(body: Buffer): Promise<Buffer> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return body;
    }
    if (!parsed || typeof parsed !== 'object' || typeof (parsed as { writeKey?: unknown }).writeKey !== 'string') return body;
    const given = (parsed as { writeKey: string }).writeKey;
    const key = await this.of(given);
    return key === given ? body : Buffer.from(JSON.stringify({ ...parsed, writeKey: key }));
  }
}
