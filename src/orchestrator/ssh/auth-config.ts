// The authentication part of an ssh2 connect config: private key (with its passphrase from
// the environment or a prompt), ssh-agent, login password from the environment. Secrets are
// read from variables NAMED in the inventory and never appear in messages.
import ssh2, { type ConnectConfig } from 'ssh2';
import type { SshEndpoint } from '../inventory/model.js';
import { FinalConnectError } from './connect-errors.js';
import { MAX_KEY_FILE_BYTES, readBoundedFileSync } from '../util/bounded-file.js';

export type AuthConfig = Pick<ConnectConfig, 'privateKey' | 'passphrase' | 'password' | 'agent'>;

export interface AuthSources {
  readonly env: NodeJS.ProcessEnv;
  readonly promptPassphrase?: (keyFile: string) => Promise<string>;
  /** One prompt per key file for the whole run, shared by every host using it. */
  readonly passphrases: Map<string, Promise<string>>;
}

function readKey(keyFile: string): Buffer {
  try {
    return readBoundedFileSync(keyFile, MAX_KEY_FILE_BYTES, 'a private key file');
  } catch (error) {
    throw new FinalConnectError(`cannot read the key file ${keyFile}: ${(error as Error).message}`);
  }
}

async function passphraseFor(keyFile: string, key: Buffer, endpoint: SshEndpoint, sources: AuthSources): Promise<string | undefined> {
  if (endpoint.keyPassphraseEnv) {
    const value = sources.env[endpoint.keyPassphraseEnv];
    if (value === undefined) throw new FinalConnectError(`the key ${keyFile} needs its passphrase in $${endpoint.keyPassphraseEnv}, which is not set`);
    return value;
  }
  // Parsing without a passphrase fails only for encrypted keys (garbage is reported later).
  const parsed = ssh2.utils.parseKey(key);
  if (!(parsed instanceof Error && /passphrase/i.test(parsed.message))) return undefined;
  if (!sources.promptPassphrase) {
    throw new FinalConnectError(
      `the key ${keyFile} is encrypted: set ssh.keyPassphraseEnv in the inventory to the NAME of a variable holding its passphrase, or run kcluster on a terminal to be asked`,
    );
  }
  let pending = sources.passphrases.get(keyFile);
  if (!pending) {
    pending = sources.promptPassphrase(keyFile);
    sources.passphrases.set(keyFile, pending);
  }
  return pending;
}

export async function authConfig(endpoint: SshEndpoint, sources: AuthSources): Promise<AuthConfig> {
  const config: { -readonly [K in keyof AuthConfig]: AuthConfig[K] } = {};
  if (endpoint.keyFile) {
    const key = readKey(endpoint.keyFile);
    const passphrase = await passphraseFor(endpoint.keyFile, key, endpoint, sources);
    // A wrong passphrase or an unusable key will not get better by retrying.
    const parsed = ssh2.utils.parseKey(key, passphrase);
    if (parsed instanceof Error) {
      const reason = /passphrase|decrypt|bad decrypt/i.test(parsed.message) ? 'wrong passphrase' : parsed.message;
      throw new FinalConnectError(`cannot use the key ${endpoint.keyFile}: ${reason}`);
    }
    config.privateKey = key;
    if (passphrase !== undefined) config.passphrase = passphrase;
  }
  if (endpoint.passwordEnv) {
    const password = sources.env[endpoint.passwordEnv];
    if (password === undefined) throw new FinalConnectError(`the login password variable $${endpoint.passwordEnv} is not set`);
    config.password = password;
  }
  const agent = endpoint.agent ? sources.env['SSH_AUTH_SOCK'] : undefined;
  if (agent) config.agent = agent;
  if (config.privateKey === undefined && config.password === undefined && config.agent === undefined) {
    throw new FinalConnectError(
      endpoint.agent
        ? 'agent: true, but SSH_AUTH_SOCK is not set (start ssh-agent and add your key, or set ssh.keyFile)'
        : 'no way to log in: set ssh.keyFile, ssh.agent: true or ssh.passwordEnv in the inventory',
    );
  }
  return config;
}
