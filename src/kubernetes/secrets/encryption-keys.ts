// The keys that encrypt Secrets at rest, kept on the controller in <stateDir>/encryption/keys.json
// (0600, folder 0700), generated there once and reused on every run: the API servers get an
// EncryptionConfiguration rendered from them (secretbox, the first key writes, every key reads,
// `identity` last so that data written before encryption stays readable until it is rewritten).
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { PkiFiles } from '../pki/pki-files.js';

export interface EncryptionKey {
  /** Unique, also part of every value it encrypted in etcd (k8s:enc:secretbox:v1:NAME:). */
  readonly name: string;
  /** 32 random bytes, base64. */
  readonly secret: string;
}

export interface EncryptionKeys {
  /** The first key encrypts; all of them decrypt. */
  readonly keys: readonly EncryptionKey[];
  /**
   * A rotation under way (`kcluster secrets rotate-key` did not finish): the name of the new key.
   * The file then holds the old key first and the new one: every key any API server may be using.
   */
  readonly rotatingTo?: string;
}

export const ENCRYPTION_CONFIG_PATH = '/etc/kubernetes/encryption/config.yaml';
const FILE = 'keys.json';

export const newEncryptionKey = (date: Date): EncryptionKey => ({
  name: `key-${date.toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}`,
  secret: randomBytes(32).toString('base64'),
});

function parseKeys(text: string, where: string): EncryptionKeys {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${where}: not valid JSON (${(error as Error).message}): restore it from your backup of the state folder; without it the Secrets in etcd cannot be read`,
      { cause: error },
    );
  }
  const keys = (parsed as { keys?: unknown }).keys;
  const valid =
    Array.isArray(keys) &&
    keys.length > 0 &&
    keys.every(
      (k) => typeof k?.name === 'string' && /^[a-zA-Z0-9-]+$/.test(k.name) && typeof k?.secret === 'string' && Buffer.from(k.secret, 'base64').length === 32,
    );
  if (!valid) throw new Error(`${where}: expected { "keys": [{ "name", "secret": 32 bytes base64 }, ...] }: restore it from your backup of the state folder`);
  const rotatingTo = (parsed as { rotatingTo?: unknown }).rotatingTo;
  if (rotatingTo !== undefined && !(keys as EncryptionKey[]).some((k) => k.name === rotatingTo))
    throw new Error(`${where}: rotatingTo names no key of the file: restore it from your backup of the state folder`);
  return { keys: (keys as EncryptionKey[]).map((k) => ({ name: k.name, secret: k.secret })), ...(typeof rotatingTo === 'string' ? { rotatingTo } : {}) };
}

export class EncryptionKeyStore {
  private readonly files: PkiFiles;
  /** `inMemory`: a --check run's store, which makes a first key without writing it. */
  constructor(stateDir: string, options: { readonly inMemory?: boolean } = {}) {
    this.files = new PkiFiles(join(stateDir, 'encryption'), options);
  }

  get path(): string {
    return this.files.path(FILE);
  }

  async read(): Promise<EncryptionKeys | undefined> {
    const text = await this.files.read(FILE);
    return text === undefined ? undefined : parseKeys(text, this.path);
  }

  async write(keys: EncryptionKeys): Promise<void> {
    await this.files.write(FILE, `${JSON.stringify(keys, null, 2)}\n`, 0o600);
  }

  /** The keys, with a first one generated when the cluster has none yet. */
  async ensure(now = new Date()): Promise<EncryptionKeys> {
    const existing = await this.read();
    if (existing) return existing;
    const created = { keys: [newEncryptionKey(now)] };
    await this.write(created);
    return created;
  }
}

/** The API server's EncryptionConfiguration for these keys. */
export function renderEncryptionConfig(keys: EncryptionKeys): string {
  const lines = keys.keys.flatMap((k) => [`              - name: ${k.name}`, `                secret: ${k.secret}`]);
  return [
    '# Written by kcluster from <stateDir>/encryption/keys.json: Secrets are encrypted at rest with',
    '# the first key; every key decrypts; identity reads what was stored before encryption.',
    'apiVersion: apiserver.config.k8s.io/v1',
    'kind: EncryptionConfiguration',
    'resources:',
    '  - resources:',
    '      - secrets',
    '    providers:',
    '      - secretbox:',
    '          keys:',
    ...lines,
    '      - identity: {}',
    '',
  ].join('\n');
}

/** The prefix etcd values written with this key start with. */
export const encryptedPrefix = (key: EncryptionKey): string => `k8s:enc:secretbox:v1:${key.name}:`;
