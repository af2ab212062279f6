// The few XML answers of S3 the state store reads (a listing, versioning, an error), read by
// element name: S3's answers are flat and fixed, and a general XML parser would be the largest
// dependency of the store for three shapes.

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function xmlText(raw: string): string {
  return raw.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? whole;
  });
}

/** The text of each `<name>` element directly in `xml` (no nesting of the same name in S3's answers). */
export function elements(xml: string, name: string): string[] {
  const out: string[] = [];
  const pattern = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>|<${name}(?:\\s[^>]*)?/>`, 'g');
  for (const m of xml.matchAll(pattern)) out.push(m[1] ?? '');
  return out;
}

export const element = (xml: string, name: string): string | undefined => {
  const found = elements(xml, name);
  return found.length > 0 ? xmlText(found[0]!) : undefined;
};

export interface ListedObject {
  readonly key: string;
  readonly etag: string;
  readonly size: number;
  readonly lastModified: Date;
}

export interface ListPage {
  readonly objects: ListedObject[];
  /** Set when the listing goes on: the token for the next page. */
  readonly next?: string;
}

/** A ListObjectsV2 answer. */
export function parseListPage(xml: string): ListPage {
  const objects = elements(xml, 'Contents').map((c) => ({
    key: element(c, 'Key') ?? '',
    etag: element(c, 'ETag') ?? '',
    size: Number(element(c, 'Size') ?? '0'),
    lastModified: new Date(element(c, 'LastModified') ?? 0),
  }));
  const truncated = element(xml, 'IsTruncated') === 'true';
  const next = element(xml, 'NextContinuationToken');
  if (truncated && next === undefined) throw new Error('S3 listing: truncated without a continuation token');
  return { objects, ...(truncated ? { next: next! } : {}) };
}

/** GetBucketVersioning: Enabled, Suspended, or off (never set). */
export function parseVersioning(xml: string): 'enabled' | 'suspended' | 'off' {
  const status = element(xml, 'Status');
  return status === 'Enabled' ? 'enabled' : status === 'Suspended' ? 'suspended' : 'off';
}

/** An S3 error body: its code and message, when it has them. */
export function parseError(xml: string): { code?: string; message?: string } {
  const code = element(xml, 'Code');
  const message = element(xml, 'Message');
  return { ...(code !== undefined ? { code } : {}), ...(message !== undefined ? { message } : {}) };
}
