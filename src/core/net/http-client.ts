import { ArchiveError } from '../errors.js';
import { Agent, interceptors, request, type Dispatcher } from 'undici';
import { LISTMINER_VERSION as VERSION } from '../listminer-version.js';
import { BodySpool } from './body-spool.js';
import { sharedPacer, type Pacer } from './pacer.js';

/** `listminer/0.1.0`, plus ` (+mailto:you@example.org)` so an archive's operator can reach whoever runs it. */
export function userAgent(contactEmail?: string): string {
  return contactEmail ? `listminer/${VERSION} (+mailto:${contactEmail})` : `listminer/${VERSION}`;
}

export interface HttpClientOptions {
  userAgent?: string;
  contactEmail?: string;
  pacer?: Pacer;
  /** Attempts after the first for a 429, a 5xx or a transport error, each paced. Default 2. */
  retries?: number;
  /** How long to wait for response headers. Default 60 s. */
  headersTimeoutMs?: number;
  /** How long the body may stall between bytes. Default 120 s. */
  bodyTimeoutMs?: number;
  dispatcher?: Dispatcher;
}

/** A response body, streamed: errors while reading it are ArchiveErrors of kind 'transient'. */
export interface HttpBody {
  url: string;
  status: number;
  headers: ResponseHeaders;
  contentType?: string;
  body: AsyncIterable<Buffer>;
}

export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** How an API asks for a document: its own request headers, and how it says "slow down". */
export interface DocumentRequest {
  signal?: AbortSignal;
  /** Sent along with the client's User-Agent; may replace its Accept. */
  headers?: Record<string, string>;
  /**
   * Reads a refusal the server means as a rate limit that is not a plain 429
   * with Retry-After (GitHub answers 403 with `x-ratelimit-remaining: 0`):
   * how long to wait in ms, or undefined when the answer is no rate limit.
   */
  rateLimitWait?: (status: number, headers: ResponseHeaders, now: number) => number | undefined;
  /**
   * The longest the pacer may hold this request for its host (after a long
   * Retry-After) before it fails as rate-limited instead. Default: the
   * pacer's ceiling, so an archive's list is set aside for a later run rather
   * than held for an hour; an API whose limits must be waited out gives Infinity.
   */
  longestWaitMs?: number;
}

/** A whole text document with its status and headers. */
export interface HttpDocument {
  url: string;
  status: number;
  headers: ResponseHeaders;
  text: string;
}

interface OpenRequest extends DocumentRequest {
  /** Return a 4xx (but a rate limit) for the caller to read instead of treating it as an archive would. */
  clientErrorsAreAnswers?: boolean;
}

/** Text documents (catalogues, index pages) are small; anything larger than this is refused. */
const MAX_TEXT_BYTES = 32 * 1024 * 1024;

let defaultDispatcher: Dispatcher | undefined;

function sharedDispatcher(): Dispatcher {
  defaultDispatcher ??= new Agent({ keepAliveTimeout: 10_000 }).compose(interceptors.redirect({ maxRedirections: 5 }));
  return defaultDispatcher;
}

/**
 * GET over undici with the pacer in front of every request. A 404 is an
 * empty answer (`undefined`), not an error; 429 is `rate_limited` with the
 * Retry-After; 5xx, transport errors, timeouts and bodies cut short are
 * `transient`; other 4xx are `permanent`. 429/5xx/transport failures are
 * retried a few times, paced, before the error is thrown. `document` serves
 * APIs (GitHub's): their request headers, their rate-limit answers, and
 * their 4xx answers returned to be read rather than thrown.
 */
export class HttpClient {
  readonly pacer: Pacer;
  private readonly userAgent: string;
  private readonly retries: number;
  private readonly headersTimeoutMs: number;
  private readonly bodyTimeoutMs: number;
  private readonly dispatcher: Dispatcher;

  constructor(options: HttpClientOptions = {}) {
    this.pacer = options.pacer ?? sharedPacer;
    this.userAgent = options.userAgent ?? userAgent(options.contactEmail);
    this.retries = options.retries ?? 2;
    this.headersTimeoutMs = options.headersTimeoutMs ?? 60_000;
    this.bodyTimeoutMs = options.bodyTimeoutMs ?? 120_000;
    this.dispatcher = options.dispatcher ?? sharedDispatcher();
  }

  /** The response body as a stream, or undefined when the server has nothing there (404/410). */
  async stream(url: string, signal?: AbortSignal): Promise<HttpBody | undefined> {
    return this.withRetries(url, signal, (attempt) => this.open(url, attempt, { signal }));
  }

  /** A whole (small) text document, or undefined on 404/410. A body cut short is retried too. */
  async text(url: string, signal?: AbortSignal): Promise<string | undefined> {
    return this.withRetries(url, signal, async (attempt) => {
      const response = await this.open(url, attempt, { signal });
      return response && readText(response);
    });
  }

  /**
   * A whole (small) text document with its status and headers, for APIs
   * that page by header and answer errors in JSON: a 4xx other than a rate
   * limit is returned for the caller to read, not thrown. 5xx, transport
   * errors and rate limits are paced, retried and thrown as for archives.
   */
  async document(url: string, request: DocumentRequest = {}): Promise<HttpDocument> {
    return this.withRetries(url, request.signal, async (attempt) => {
      const response = (await this.open(url, attempt, { ...request, clientErrorsAreAnswers: true }))!;
      return { url, status: response.status, headers: response.headers, text: await readText(response) };
    });
  }

  /**
   * The body of an API's answer as a stream (an archive download too large
   * for a document), with the API's request headers; a 4xx other than a rate
   * limit is returned for the caller to read, as `document` does.
   */
  async streamDocument(url: string, request: DocumentRequest = {}): Promise<HttpBody> {
    return this.withRetries(
      url,
      request.signal,
      async (attempt) => (await this.open(url, attempt, { ...request, clientErrorsAreAnswers: true }))!,
    );
  }

  /** A JSON document, or undefined on 404/410. */
  async json<T>(url: string, signal?: AbortSignal): Promise<T | undefined> {
    const text = await this.text(url, signal);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ArchiveError(`${url} did not return JSON.`, 'permanent');
    }
  }

  private async withRetries<R>(
    url: string,
    signal: AbortSignal | undefined,
    attempt: (n: number) => Promise<R>,
  ): Promise<R> {
    for (let n = 0; ; n++) {
      try {
        return await attempt(n);
      } catch (error) {
        if (signal?.aborted) throw error;
        const retryable =
          error instanceof ArchiveError &&
          (error.kind === 'transient' ||
            (error.kind === 'rate_limited' && (error.retryAfterMs ?? 0) <= this.pacer.maxIntervalMs));
        if (!retryable || n >= this.retries || error instanceof NoSuchHostError) throw error;
      }
    }
  }

  private async open(url: string, attempt: number, options: OpenRequest): Promise<HttpBody | undefined> {
    const { signal } = options;
    const host = new URL(url).host;
    await this.pacer.wait(host, signal, options.longestWaitMs ?? this.pacer.maxIntervalMs);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: 'GET',
        dispatcher: this.dispatcher,
        headers: { 'user-agent': this.userAgent, accept: '*/*', ...options.headers },
        signal,
        headersTimeout: this.headersTimeoutMs,
        bodyTimeout: this.bodyTimeoutMs,
        // undici 7 must never pause its parser for a slow reader (see BodySpool): the body never counts as full.
        highWaterMark: Number.MAX_SAFE_INTEGER,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      this.pacer.strain(host);
      const unresolved = hostNotFound(error);
      const hint = unresolved
        ? `Check the host name ${new URL(url).hostname} (the list's or system's base URL) and this machine's network and DNS.`
        : undefined;
      const why = unresolved
        ? `the host name ${new URL(url).hostname} could not be resolved (${unresolved}); check the name and the network`
        : describe(error);
      const message = `GET ${url} failed: ${why}${attempt ? ` (attempt ${attempt + 1})` : ''}`;
      if (unresolved === 'ENOTFOUND' || unresolved === 'EAI_NONAME') throw new NoSuchHostError(message, hint!);
      throw new ArchiveError(message, 'transient', undefined, hint);
    }
    const { statusCode, headers } = response;
    if (statusCode >= 200 && statusCode < 300) {
      this.pacer.ease(host);
      return {
        url,
        status: statusCode,
        headers,
        contentType: header(headers, 'content-type'),
        body: this.checkedBody(url, host, response, signal),
      };
    }
    const limitWaitMs = options.rateLimitWait?.(statusCode, headers, this.pacer.clock.now());
    if (limitWaitMs !== undefined) {
      await response.body.dump().catch(() => undefined);
      this.pacer.strain(host, limitWaitMs);
      throw new ArchiveError(
        `${host} is rate-limiting listminer (${statusCode} for ${url}).`,
        'rate_limited',
        limitWaitMs,
      );
    }
    if (options.clientErrorsAreAnswers && statusCode >= 400 && statusCode < 500 && statusCode !== 429) {
      this.pacer.ease(host);
      return {
        url,
        status: statusCode,
        headers,
        contentType: header(headers, 'content-type'),
        body: this.checkedBody(url, host, response, signal),
      };
    }
    await response.body.dump().catch(() => undefined);
    if (statusCode === 404 || statusCode === 410) {
      this.pacer.ease(host);
      return undefined;
    }
    if (statusCode === 429) {
      const retryAfterMs = parseRetryAfter(header(headers, 'retry-after'), this.pacer.clock.now());
      this.pacer.strain(host, retryAfterMs);
      throw new ArchiveError(`${host} is rate-limiting listminer (429 for ${url}).`, 'rate_limited', retryAfterMs);
    }
    if (statusCode >= 500) {
      this.pacer.strain(host);
      throw new ArchiveError(`${host} answered ${statusCode} for ${url}.`, 'transient');
    }
    throw new ArchiveError(`${host} answered ${statusCode} for ${url}.`, 'permanent');
  }

  /**
   * The body, drained from the connection at once into a spool and read from
   * it, with a read error or a length short of Content-Length turned into a
   * transient ArchiveError.
   */
  private checkedBody(
    url: string,
    host: string,
    response: Dispatcher.ResponseData,
    signal?: AbortSignal,
  ): AsyncGenerator<Buffer> {
    return this.readSpooled(url, host, response, new BodySpool(response.body), signal);
  }

  private async *readSpooled(
    url: string,
    host: string,
    response: Dispatcher.ResponseData,
    spool: BodySpool,
    signal?: AbortSignal,
  ): AsyncGenerator<Buffer> {
    const declared = header(response.headers, 'content-length');
    const encoded = header(response.headers, 'content-encoding');
    let received = 0;
    try {
      for await (const chunk of spool.read()) {
        received += chunk.length;
        yield chunk;
      }
    } catch (error) {
      // Stopped by the user, not by the archive: no strain, no transient failure.
      if (signal?.aborted) throw error;
      this.pacer.strain(host);
      if (error instanceof ArchiveError) throw error;
      throw new ArchiveError(
        `The body of ${url} was cut short after ${received} bytes: ${describe(error)}`,
        'transient',
      );
    } finally {
      // A consumer that stops early must not leave the socket half read.
      spool.close();
    }
    if (declared !== undefined && !encoded && Number(declared) !== received) {
      this.pacer.strain(host);
      throw new ArchiveError(`The body of ${url} was cut short: ${received} of ${declared} bytes.`, 'transient');
    }
  }
}

/** A response body read whole, refused when it is larger than a document can be. */
async function readText(response: HttpBody): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of response.body) {
    length += chunk.length;
    if (length > MAX_TEXT_BYTES)
      throw new ArchiveError(
        `${response.url} is larger than ${MAX_TEXT_BYTES} bytes; it is not the document expected.`,
        'permanent',
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A response header's (first) value. */
export function header(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Retry-After as seconds or as an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The resolver answered that the host name does not exist. It stays
 * transient for fetch (a list's host may come back; a typo is fixed by the
 * user), but the request is not retried: resolvers cache a "no such name",
 * so asking again within seconds gets the same answer, and `lists discover`
 * with a mistyped host would only wait longer to say so. EAI_AGAIN (no answer
 * from DNS) is retried as any transport error.
 */
class NoSuchHostError extends ArchiveError {
  constructor(message: string, hint: string) {
    super(message, 'transient', undefined, hint);
  }
}

/** The DNS error code when a request failed because its host name did not resolve (ENOTFOUND: no such name; EAI_AGAIN: no answer from DNS). */
function hostNotFound(error: unknown): string | undefined {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: string }).code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return code;
  }
  return undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: string }).code;
    return code ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

/** The client a source uses for a list: the shared pacer, the configured contact in the User-Agent. */
export function createHttpClient(context: { contactEmail?: string }, options: HttpClientOptions = {}): HttpClient {
  return new HttpClient({ contactEmail: context.contactEmail, ...options });
}
