// The relay's HTTP API (electron/host/http-api.ts, docs/http-api.openapi.json) as `sluice mcp`'s tools
// call it: a JSON request with the token, and the answer, or a RelayError carrying the relay's own
// sentence (its `{"error": {"code", "message"}}`), or one saying that no relay answers and what to do.

/** A request the relay refused or could not be made; `message` is the sentence an agent is shown. */
export class RelayError extends Error {
  /** The relay's error code (`timeout`, `not_found`, `invalid_query`, …), or `unreachable`. */
  readonly code: string;
  /** The rest of the relay's answer (a wait's `matched`), when there is one. */
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.details = details;
  }
}

export type Query = Record<string, string | number | boolean | undefined>;

/** Where the API is and its token; throws a RelayError (`unreachable`) saying why when it cannot be known. */
export interface RelayAddress {
  /** The API's base URL (http://127.0.0.1:8788/api/v1). */
  base: string;
  token: string;
}

export class RelayApi {
  /** Read again for each request: a relay started, or restarted on another port, after `sluice mcp` is found. */
  readonly #locate: () => RelayAddress;
  /** What to do when no relay answers (start one; which folder or URL was tried). */
  readonly #hint: string;

  constructor(locate: () => RelayAddress, hint: string) {
    this.#locate = locate;
    this.#hint = hint;
  }

  /**
   * Opens the way to the relay before the first tool call: a GET /info whose answer (or failure: no
   * relay yet) is dropped. The first request of a process loads fetch's HTTP client and connects, which
   * took 90–210 ms here; made inside a call, a wait's timeout ran that much late.
   */
  warm(): void {
    this.get('/info').catch(() => {});
  }

  get<T>(path: string, query: Query = {}, signal?: AbortSignal): Promise<T> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    return this.#request<T>(path, params, { method: 'GET' }, signal);
  }

  post<T>(path: string, body: unknown = {}, signal?: AbortSignal): Promise<T> {
    return this.#request<T>(path, new URLSearchParams(), { method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } }, signal);
  }

  async #request<T>(path: string, params: URLSearchParams, init: RequestInit, signal: AbortSignal | undefined): Promise<T> {
    const { base, token } = this.#locate();
    const url = new URL(`${base.replace(/\/+$/, '')}${path}`);
    url.search = params.toString();
    let res: Response;
    try {
      res = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
    } catch (error) {
      if (signal?.aborted) throw new RelayError('cancelled', 'the request was cancelled');
      const cause = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
      throw new RelayError('unreachable', `no Sluice relay answers at ${base} (${cause}); ${this.#hint}`);
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RelayError('bad_answer', `${url.pathname} answered ${res.status} with something other than JSON: is ${base} a Sluice relay's HTTP API?`);
    }
    if (res.ok) return body as T;
    const { error, ...rest } = (body ?? {}) as { error?: { code?: string; message?: string } };
    throw new RelayError(error?.code ?? `http_${res.status}`, error?.message ?? `${url.pathname} answered ${res.status}`, rest);
  }
}
