// Types of registry.mjs for the TypeScript tests that use it.
export interface OciLayout {
  readonly digest: string;
  readonly mediaType: string;
  blob(digest: string): Buffer;
  /** Removes the folder the archive was unpacked into. */
  remove(): void;
}
export interface RegistryCounts {
  manifests: number;
  blobs: number;
  unauthorized: number;
  notFound: number;
}
export interface Registry {
  readonly url: string;
  readonly served: RegistryCounts;
  close(): Promise<void>;
}
export function openLayout(archive: string): OciLayout;
export function startRegistry(options: {
  host: string;
  port?: number;
  /** The layout serving REPOSITORY's manifest REFERENCE (a tag or digest), or its blobs when REFERENCE is undefined. */
  layoutFor(repository: string, reference: string | undefined): (Pick<OciLayout, 'blob'> & Partial<Omit<OciLayout, 'remove'>>) | undefined;
  credentials?: { user: string; password: string };
}): Promise<Registry>;
