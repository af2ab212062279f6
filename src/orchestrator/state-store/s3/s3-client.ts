// An S3 client for the state store: GET, HEAD, PUT (only if absent, or only if unchanged),
// DELETE, ListObjectsV2 and the bucket's versioning, signed with SigV4 over Node's fetch. A
// transient failure (a reset, a timeout, a 5xx, a throttle) is tried again a bounded number of
// times; a conditional PUT whose answer was lost and that then meets its own object counts as
// done, so a retry never turns a write that landed into "someone else won".
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { signRequest, sha256Hex, uriEncode, EMPTY_SHA256, type SigningCredentials } from './sigv4.js';
import { parseError, parseListPage, parseVersioning, type ListedObject } from './s3-xml.js';

export interface S3Location {
  /** http(s)://host:port of the server. */
  readonly endpoint: string;
  readonly bucket: string;
  readonly region: string;
  /** Bucket in the path (most S3-compatible servers) instead of in the host name. */
  readonly pathStyle: boolean;
}

export interface S3ClientOptions {
  readonly fetch?: typeof fetch;
  readonly now?: () => Date;
  /** One request's limit (default 30 s). */
  readonly timeoutMs?: number;
  /** Tries of a request that failed transiently (default 4). */
  readonly attempts?: number;
  /** Check that a body's MD5 is its ETag (default true; off for stores whose ETags are not MD5s). */
  readonly checkMd5Etags?: boolean;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** An answer of the server that is not what was asked; `status` 0 when none came. */
export class S3Error extends Error {
  override readonly name: string = 'S3Error';
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** A conditional PUT refused: the object exists (If-None-Match) or changed (If-Match). */
export class PreconditionFailed extends S3Error {
  override readonly name = 'PreconditionFailed';
}

/** A file sent as a request's body: its sha256 (signed) and size, known before it is sent. */
interface FileBody {
  readonly file: string;
  readonly sha256: string;
  readonly bytes: number;
}

/** An object whose body is not what its ETag says, read after read. */
export class ContentMismatch extends S3Error {
  override readonly name = 'ContentMismatch';
}

export interface StoredObject {
  readonly body: Buffer;
  readonly etag: string;
  readonly lastModified?: Date;
  /** The server's clock when it answered (lease expiry is judged on it, not on ours). */
  readonly serverDate?: Date;
}

export interface PutCondition {
  /** Only if no object has the key. */
  readonly ifAbsent?: boolean;
  /** Only if the object still has this ETag. */
  readonly ifMatch?: string;
}

const TRANSIENT_STATUS = new Set([429, 500, 502, 503, 504]);
const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const md5Hex = (body: Buffer): string => createHash('md5').update(body).digest('hex');
const unquote = (etag: string | null): string => (etag ?? '').replace(/^"|"$/g, '');

export class S3Client {
  private readonly fetch: typeof fetch;
  private readonly now: () => Date;
  private readonly timeoutMs: number;
  private readonly attempts: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly checkMd5Etags: boolean;

  constructor(
    readonly location: S3Location,
    private readonly credentials: SigningCredentials,
    options: S3ClientOptions = {},
  ) {
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? (() => new Date());
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.attempts = options.attempts ?? 4;
    this.sleep = options.sleep ?? realSleep;
    this.checkMd5Etags = options.checkMd5Etags ?? true;
  }

  /** s3://bucket/key, for messages. */
  describe(key: string): string {
    return `s3://${this.location.bucket}/${key}`;
  }

  /** The object's URL, every part encoded as SigV4 signs it (so the wire and the signature agree). */
  private url(key: string, query: Readonly<Record<string, string>> = {}): URL {
    const url = new URL(this.location.endpoint);
    const bucket = uriEncode(this.location.bucket);
    if (this.location.pathStyle) url.pathname = key === '' ? `/${bucket}` : `/${bucket}/${uriEncode(key, true)}`;
    else {
      url.hostname = `${this.location.bucket}.${url.hostname}`;
      url.pathname = `/${uriEncode(key, true)}`;
    }
    url.search = Object.entries(query)
      .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
      .join('&');
    return url;
  }

  /** One signed request, tried again while it fails transiently. */
  private async send(method: string, url: URL, what: string, body?: Buffer | FileBody, headers: Record<string, string> = {}): Promise<Response> {
    let lastProblem = '';
    const payloadSha256 = body === undefined ? EMPTY_SHA256 : Buffer.isBuffer(body) ? sha256Hex(body) : body.sha256;
    for (let attempt = 1; attempt <= this.attempts; attempt++) {
      const signed = signRequest({ method, url, headers, payloadSha256 }, this.credentials, this.location.region, this.now());
      delete signed['host'];
      try {
        // A file goes as a stream, opened again on each try; a large one gets the time it needs.
        const fileBody = body !== undefined && !Buffer.isBuffer(body) ? body : undefined;
        const answer = await this.fetch(url, {
          method,
          headers: signed,
          ...(fileBody !== undefined
            ? { body: Readable.toWeb(createReadStream(fileBody.file)) as ReadableStream<Uint8Array>, duplex: 'half' }
            : body !== undefined
              ? { body: body as Buffer }
              : {}),
          signal: AbortSignal.timeout(this.timeoutMs + (fileBody !== undefined ? Math.ceil(fileBody.bytes / 1_000_000) * 1_000 : 0)),
        } as RequestInit);
        if (!TRANSIENT_STATUS.has(answer.status)) return answer;
        lastProblem = `HTTP ${answer.status}`;
        await answer.arrayBuffer().catch(() => undefined);
      } catch (error) {
        lastProblem = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message;
      }
      if (attempt < this.attempts) await this.sleep(Math.min(500 * 2 ** (attempt - 1), 4_000));
    }
    throw new S3Error(
      `${method} ${what}: no answer after ${this.attempts} tries (${lastProblem}): check that the store at ${this.location.endpoint} is reachable`,
      0,
      undefined,
    );
  }

  private async failure(answer: Response, method: string, what: string): Promise<S3Error> {
    const text = await answer.text().catch(() => '');
    const { code, message } = parseError(text);
    const detail = `${method} ${what}: HTTP ${answer.status}${code !== undefined ? ` ${code}` : ''}${message !== undefined ? `: ${message}` : ''}`;
    const hint =
      answer.status === 403
        ? ': check the store credentials (they sign every request) and that they may use this bucket'
        : answer.status === 404 && code === 'NoSuchBucket'
          ? `: create the bucket ${this.location.bucket} first`
          : '';
    return answer.status === 412 ? new PreconditionFailed(detail, 412, code) : new S3Error(`${detail}${hint}`, answer.status, code);
  }

  /**
   * The object, or undefined when there is none. A body whose MD5 is not its ETag (where ETags
   * are MD5s, as for every object the store writes in one PUT) is a read torn by a write that
   * came at the same moment: some servers publish an object's data and its ETag apart. It is
   * read again; a lease or a generation is never judged on a torn read.
   */
  async get(key: string, versionId?: string): Promise<StoredObject | undefined> {
    for (let read = 1; ; read++) {
      const got = await this.getOnce(key, versionId);
      if (got === undefined || !this.checkMd5Etags || !/^[0-9a-f]{32}$/.test(got.etag) || md5Hex(got.body) === got.etag) return got;
      if (read >= this.attempts)
        throw new ContentMismatch(
          `GET ${this.describe(key)}: ${read} reads gave a body whose MD5 is not its ETag ${got.etag}: the object is damaged in the store or being written, or this store's ETags are not MD5s (server-side encryption with KMS keys: then turn the MD5 check off)`,
          200,
          undefined,
        );
      await this.sleep(50 * read);
    }
  }

  private async getOnce(key: string, versionId?: string): Promise<StoredObject | undefined> {
    const answer = await this.send('GET', this.url(key, versionId !== undefined ? { versionId } : {}), this.describe(key));
    if (answer.status === 404) {
      await answer.arrayBuffer();
      return undefined;
    }
    if (!answer.ok) throw await this.failure(answer, 'GET', this.describe(key));
    const body = Buffer.from(await answer.arrayBuffer());
    const lastModified = answer.headers.get('last-modified');
    const date = answer.headers.get('date');
    return {
      body,
      etag: unquote(answer.headers.get('etag')),
      ...(lastModified !== null ? { lastModified: new Date(lastModified) } : {}),
      ...(date !== null ? { serverDate: new Date(date) } : {}),
    };
  }

  /** Its ETag and size, or undefined when there is none. */
  async head(key: string): Promise<{ etag: string; size: number } | undefined> {
    const answer = await this.send('HEAD', this.url(key), this.describe(key));
    if (answer.status === 404) return undefined;
    if (!answer.ok) throw new S3Error(`HEAD ${this.describe(key)}: HTTP ${answer.status}`, answer.status, undefined);
    return { etag: unquote(answer.headers.get('etag')), size: Number(answer.headers.get('content-length') ?? '0') };
  }

  /** Writes the object (conditionally when asked); its new ETag. PreconditionFailed when the condition does not hold. */
  async put(key: string, body: Buffer, condition: PutCondition = {}): Promise<{ etag: string }> {
    const headers: Record<string, string> = { 'content-length': String(body.length), 'content-type': 'application/octet-stream' };
    if (condition.ifAbsent) headers['if-none-match'] = '*';
    if (condition.ifMatch !== undefined) headers['if-match'] = `"${condition.ifMatch}"`;
    const answer = await this.send('PUT', this.url(key), this.describe(key), body, headers);
    if (answer.ok) {
      await answer.arrayBuffer();
      return { etag: unquote(answer.headers.get('etag')) || md5Hex(body) };
    }
    const error = await this.failure(answer, 'PUT', this.describe(key));
    // A write whose answer was lost and was sent again meets itself: the object is ours.
    if (error instanceof PreconditionFailed && (condition.ifAbsent || condition.ifMatch !== undefined)) {
      const now = await this.head(key);
      if (now !== undefined && now.etag === md5Hex(body) && condition.ifAbsent) return { etag: now.etag };
    }
    throw error;
  }

  /** Writes a file as the object, streamed (up to 5 GB, S3's limit for one PUT); `sha256` and `bytes` are the file's. */
  async putFile(key: string, file: string, sha256: string, bytes: number): Promise<{ etag: string }> {
    const answer = await this.send(
      'PUT',
      this.url(key),
      this.describe(key),
      { file, sha256, bytes },
      { 'content-length': String(bytes), 'content-type': 'application/octet-stream' },
    );
    if (!answer.ok) throw await this.failure(answer, 'PUT', this.describe(key));
    await answer.arrayBuffer();
    return { etag: unquote(answer.headers.get('etag')) };
  }

  /** Streams the object into `file` (through `file`.tmp); false when there is no such object. */
  async getFile(key: string, file: string): Promise<boolean> {
    const answer = await this.send('GET', this.url(key), this.describe(key));
    if (answer.status === 404) {
      await answer.arrayBuffer();
      return false;
    }
    if (!answer.ok || answer.body === null) throw await this.failure(answer, 'GET', this.describe(key));
    try {
      await pipeline(Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream<Uint8Array>), createWriteStream(`${file}.tmp`, { mode: 0o600 }));
    } catch (error) {
      await rm(`${file}.tmp`, { force: true });
      throw new S3Error(`GET ${this.describe(key)}: the download broke off (${(error as Error).message}): run the command again`, 0, undefined);
    }
    await rename(`${file}.tmp`, file);
    return true;
  }

  async delete(key: string): Promise<void> {
    const answer = await this.send('DELETE', this.url(key), this.describe(key));
    if (!answer.ok && answer.status !== 404) throw await this.failure(answer, 'DELETE', this.describe(key));
    await answer.arrayBuffer().catch(() => undefined);
  }

  /** Every object under `prefix`, in key order, page after page. */
  async *list(prefix: string, startAfter?: string): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      const query: Record<string, string> = { 'list-type': '2', prefix };
      if (token !== undefined) query['continuation-token'] = token;
      else if (startAfter !== undefined) query['start-after'] = startAfter;
      const url = this.url('', query);
      const answer = await this.send('GET', url, `${this.describe(prefix)}*`);
      if (!answer.ok) throw await this.failure(answer, 'LIST', `${this.describe(prefix)}*`);
      const page = parseListPage(await answer.text());
      yield* page.objects;
      token = page.next;
    } while (token !== undefined);
  }

  /** The objects under `prefix` whose key ends with `suffix`, in key order. */
  async listEndingWith(prefix: string, suffix: string): Promise<ListedObject[]> {
    const found: ListedObject[] = [];
    for await (const o of this.list(prefix)) if (o.key.endsWith(suffix)) found.push(o);
    return found;
  }

  /** Makes the bucket (an answer that it is already ours counts as done). */
  async createBucket(): Promise<void> {
    const answer = await this.send('PUT', this.url(''), this.describe(''));
    if (answer.ok) return void (await answer.arrayBuffer());
    const error = await this.failure(answer, 'PUT', `${this.describe('')} (create the bucket)`);
    if (error.code !== 'BucketAlreadyOwnedByYou') throw error;
  }

  /** Turns on keeping old versions of every object. */
  async enableVersioning(): Promise<void> {
    const body = Buffer.from('<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>');
    const answer = await this.send('PUT', this.url('', { versioning: '' }), `${this.describe('')} (versioning)`, body, {
      'content-length': String(body.length),
    });
    if (!answer.ok) throw await this.failure(answer, 'PUT', `${this.describe('')} (versioning)`);
    await answer.arrayBuffer();
  }

  /** Whether the bucket keeps old versions of objects. */
  async versioning(): Promise<'enabled' | 'suspended' | 'off'> {
    const answer = await this.send('GET', this.url('', { versioning: '' }), `${this.describe('')} (versioning)`);
    if (!answer.ok) throw await this.failure(answer, 'GET', `${this.describe('')} (versioning)`);
    return parseVersioning(await answer.text());
  }
}
