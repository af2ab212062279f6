// AWS Signature Version 4 for S3 requests (header-based, signed payload): what every
// S3-compatible server checks. Written here on node:crypto rather than taken from an SDK: a state
// store needs a few calls, and the code that signs requests carrying the cluster's CA keys should
// be small enough to read.
import { createHash, createHmac } from 'node:crypto';

export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** With temporary credentials (STS). */
  readonly sessionToken?: string;
}

export interface RequestToSign {
  readonly method: string;
  readonly url: URL;
  /** Headers to send and sign (names in any case); host and the x-amz ones are added. */
  readonly headers: Readonly<Record<string, string>>;
  /** Hex sha256 of the body (of nothing, for a request without one). */
  readonly payloadSha256: string;
}

export const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

export const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();

/** RFC 3986 encoding as SigV4 wants it: every byte but A-Z a-z 0-9 - _ . ~ as %XX (upper case). */
export function uriEncode(value: string, keepSlash = false): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The path as S3 signs it: each segment encoded once (the URL's own percent-escapes decoded
 * first). Servers sign the path as it came on the wire, so the client sends exactly this form
 * (its URLs are built with uriEncode): a ':' or '+' left bare would be signed as %3A or %2B.
 */
function canonicalUri(url: URL): string {
  return uriEncode(decodeURIComponent(url.pathname), true) || '/';
}

function canonicalQuery(url: URL): string {
  return [...url.searchParams.entries()]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** "20261128T101500Z" */
export const amzDate = (now: Date): string =>
  now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

/**
 * The headers to send: the request's own, plus host, x-amz-date, x-amz-content-sha256, the
 * session token when there is one, and the Authorization that signs them all.
 */
export function signRequest(request: RequestToSign, credentials: SigningCredentials, region: string, now: Date, service = 's3'): Record<string, string> {
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  headers['host'] = request.url.host;
  headers['x-amz-date'] = date;
  headers['x-amz-content-sha256'] = request.payloadSha256;
  if (credentials.sessionToken !== undefined) headers['x-amz-security-token'] = credentials.sessionToken;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers[n]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method,
    canonicalUri(request.url),
    canonicalQuery(request.url),
    canonicalHeaders,
    signedHeaders,
    request.payloadSha256,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), service), 'aws4_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  headers['authorization'] = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
