import { ArchiveError } from '../errors.js';
import { readFileSync } from 'node:fs';
import { Agent, interceptors, request, type Dispatcher } from 'undici';
import { sharedPacer, type Pacer } from './pacer.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

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
  contentType?: string;
  body: AsyncIterable<Buffer>;
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
 * retried a few times, paced, before the error is thrown.
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
    return this.withRetries(url, signal, (attempt) => this.open(url, signal, attempt));
  }

  /** A whole (small) text document, or undefined on 404/410. A body cut short is retried too. */
  async text(url: string, signal?: AbortSignal): Promise<string | undefined> {
    return this.withRetries(url, signal, async (attempt) => {
      const response = await this.open(url, signal, attempt);
      if (!response) return undefined;
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const chunk of response.body) {
        length += chunk.length;
        if (length > MAX_TEXT_BYTES) throw new ArchiveError(`${url} is larger than ${MAX_TEXT_BYTES} bytes; it is not the document expected.`, 'permanent');
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    });
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

  private async withRetries<R>(url: string, signal: AbortSignal | undefined, attempt: (n: number) => Promise<R>): Promise<R> {
    for (let n = 0; ; n++) {
      try {
        return await attempt(n);
      } catch (error) {
        if (signal?.aborted) throw error;
        const retryable =
          error instanceof ArchiveError &&
          (error.kind === 'transient' || (error.kind === 'rate_limited' && (error.retryAfterMs ?? 0) <= this.pacer.maxIntervalMs));
        if (!retryable || n >= this.retries) throw error;
      }
    }
  }

  private async open(url: string, signal: AbortSignal | undefined, attempt: number): Promise<HttpBody | undefined> {
    const host = new URL(url).host;
    await this.pacer.wait(host, signal);
    let response: Dispatcher.ResponseData;
    try {
      response = await request(url, {
        method: 'GET',
        dispatcher: this.dispatcher,
        headers: { 'user-agent': this.userAgent, accept: '*/*' },
        signal,
        headersTimeout: this.headersTimeoutMs,
        bodyTimeout: this.bodyTimeoutMs,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      this.pacer.strain(host);
      throw new ArchiveError(`GET ${url} failed: ${describe(error)}${attempt ? ` (attempt ${attempt + 1})` : ''}`, 'transient');
    }
    const { statusCode, headers } = response;
    if (statusCode >= 200 && statusCode < 300) {
      this.pacer.ease(host);
      return { url, contentType: header(headers, 'content-type'), body: this.checkedBody(url, host, response, signal) };
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

  /** The body, with a read error or a length short of Content-Length turned into a transient ArchiveError. */
  private async *checkedBody(url: string, host: string, response: Dispatcher.ResponseData, signal?: AbortSignal): AsyncGenerator<Buffer> {
    const declared = header(response.headers, 'content-length');
    const encoded = header(response.headers, 'content-encoding');
    let received = 0;
    try {
      for await (const chunk of response.body) {
        received += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
    } catch (error) {
      // Stopped by the user, not by the archive: no strain, no transient failure.
      if (signal?.aborted) throw error;
      this.pacer.strain(host);
      if (error instanceof ArchiveError) throw error;
      throw new ArchiveError(`The body of ${url} was cut short after ${received} bytes: ${describe(error)}`, 'transient');
    } finally {
      // A consumer that stops early must not leave the socket half read.
      if (!response.body.destroyed) response.body.destroy();
    }
    if (declared !== undefined && !encoded && Number(declared) !== received) {
      this.pacer.strain(host);
      throw new ArchiveError(`The body of ${url} was cut short: ${received} of ${declared} bytes.`, 'transient');
    }
  }
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
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
