// Opens the one SSH connection per host of a run: authentication, host key verification,
// connect timeout and keepalive, bounded retries with backoff (on connect only), jump hosts
// (a forwarded channel through the bastion's own, shared connection), and the become probe.
import { readFileSync } from 'node:fs';
import ssh2, { type ConnectConfig } from 'ssh2';
import type { Duplex } from 'node:stream';
import type { HostSettings, Inventory, SshEndpoint } from '../inventory/model.js';
import { UnreachableError, type Connection } from './connection.js';
import { SUDO_PROBE, wrapBecome, type BecomeMode } from './become.js';
import { sh } from './quote.js';
import { HostKeyMismatchError, type HostKeyPolicy, type HostKeyTarget } from './host-key-policy.js';
import { SshConnection } from './ssh-connection.js';

export interface SshConnectorOptions {
  readonly inventory: Inventory;
  readonly env: NodeJS.ProcessEnv;
  readonly hostKeys: HostKeyPolicy;
  readonly promptPassphrase?: (keyFile: string) => Promise<string>;
  readonly log?: (line: string) => void;
}

export interface SshConnector {
  connect(host: HostSettings, signal?: AbortSignal): Promise<Connection>;
  closeAll(): Promise<void>;
}

/** Errors that retrying cannot fix: wrong credentials, a changed host key, bad settings. */
class FinalConnectError extends Error {}

function describe(error: Error & { code?: string; level?: string }, endpoint: SshEndpoint): string {
  if (error.level === 'client-authentication') {
    return `authentication failed for user ${endpoint.user} (tried: ${[endpoint.keyFile ? `key ${endpoint.keyFile}` : '', endpoint.agent ? 'ssh-agent' : '', endpoint.passwordEnv ? 'password' : ''].filter(Boolean).join(', ') || 'nothing'})`;
  }
  if (error.level === 'client-timeout' || /timed out/i.test(error.message)) return `timed out connecting to ${endpoint.address}:${endpoint.port}`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `connection refused by ${endpoint.address}:${endpoint.port} (is sshd running?)`;
    case 'EHOSTUNREACH':
      return `no route to ${endpoint.address}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve ${endpoint.address}`;
    case 'ETIMEDOUT':
      return `timed out connecting to ${endpoint.address}:${endpoint.port}`;
    default:
      return error.message;
  }
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });

export function createSshConnector(options: SshConnectorOptions): SshConnector {
  const open: SshConnection[] = [];
  const bastions = new Map<string, Promise<ssh2.Client>>();
  const passphrases = new Map<string, Promise<string | undefined>>();
  const log = options.log ?? (() => {});
  const timeouts = options.inventory.ssh;

  async function passphraseFor(endpoint: SshEndpoint): Promise<string | undefined> {
    if (!endpoint.keyFile) return undefined;
    if (endpoint.keyPassphraseEnv) {
      const value = options.env[endpoint.keyPassphraseEnv];
      if (value === undefined) throw new FinalConnectError(`the key passphrase variable ${endpoint.keyPassphraseEnv} is not set`);
      return value;
    }
    const keyFile = endpoint.keyFile;
    // parseKey without a passphrase fails only for encrypted keys (or garbage, reported later).
    const parsed = ssh2.utils.parseKey(readFileSync(keyFile));
    const encrypted = parsed instanceof Error && /passphrase/i.test(parsed.message);
    if (!encrypted) return undefined;
    if (!options.promptPassphrase) {
      throw new FinalConnectError(`the key ${keyFile} is encrypted: set keyPassphraseEnv in the inventory, or run on a terminal to be asked`);
    }
    let pending = passphrases.get(keyFile);
    if (!pending) {
      pending = options.promptPassphrase(keyFile);
      passphrases.set(keyFile, pending);
    }
    return pending;
  }

  async function config(endpoint: SshEndpoint, target: HostKeyTarget, mismatch: { error?: HostKeyMismatchError }): Promise<ConnectConfig> {
    let privateKey: Buffer | undefined;
    if (endpoint.keyFile) {
      try {
        privateKey = readFileSync(endpoint.keyFile);
      } catch (error) {
        throw new FinalConnectError(`cannot read the key file ${endpoint.keyFile}: ${(error as Error).message}`);
      }
    }
    const passphrase = await passphraseFor(endpoint);
    if (privateKey) {
      // A wrong passphrase or an unreadable key will not get better by retrying.
      const parsed = ssh2.utils.parseKey(privateKey, passphrase);
      if (parsed instanceof Error) throw new FinalConnectError(`cannot use the key ${endpoint.keyFile}: ${parsed.message}`);
    }
    const password = endpoint.passwordEnv ? options.env[endpoint.passwordEnv] : undefined;
    if (endpoint.passwordEnv && password === undefined) throw new FinalConnectError(`the password variable ${endpoint.passwordEnv} is not set`);
    const agent = endpoint.agent ? options.env['SSH_AUTH_SOCK'] : undefined;
    if (endpoint.agent && !agent) throw new FinalConnectError('agent: true but SSH_AUTH_SOCK is not set (start ssh-agent, or use keyFile)');
    return {
      host: endpoint.address,
      port: endpoint.port,
      username: endpoint.user,
      readyTimeout: timeouts.connectTimeoutMs,
      keepaliveInterval: timeouts.keepaliveIntervalMs,
      keepaliveCountMax: 3,
      ...(privateKey ? { privateKey } : {}),
      ...(passphrase !== undefined ? { passphrase } : {}),
      ...(password !== undefined ? { password } : {}),
      ...(agent ? { agent } : {}),
      hostVerifier: (key: Buffer) => {
        const verdict = options.hostKeys.check(target, key);
        if (verdict.ok) {
          if (verdict.source === 'pinned-now') log(`${target.name}: trusted on first use, pinned ${verdict.fingerprint}`);
          return true;
        }
        mismatch.error = verdict.error;
        return false;
      },
    };
  }

  function connectOnce(endpoint: SshEndpoint, target: HostKeyTarget, sock?: Duplex): Promise<ssh2.Client> {
    const mismatch: { error?: HostKeyMismatchError } = {};
    return config(endpoint, target, mismatch).then(
      (cfg) =>
        new Promise<ssh2.Client>((resolve, reject) => {
          const client = new ssh2.Client();
          client.once('ready', () => resolve(client));
          client.once('error', (error: Error & { code?: string; level?: string }) => {
            client.end();
            if (mismatch.error) reject(new FinalConnectError(mismatch.error.message));
            else if (error.level === 'client-authentication') reject(new FinalConnectError(describe(error, endpoint)));
            else reject(new Error(describe(error, endpoint)));
          });
          client.connect(sock ? { ...cfg, sock } : cfg);
        }),
    );
  }

  async function withRetries<T>(name: string, attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const retries = timeouts.connectRetries;
    for (let i = 0; ; i++) {
      try {
        return await attempt();
      } catch (error) {
        if (error instanceof FinalConnectError) throw new UnreachableError(name, error.message);
        if (i >= retries || signal?.aborted) {
          throw new UnreachableError(name, `${(error as Error).message} (after ${i + 1} attempt${i === 0 ? '' : 's'})`);
        }
        const delay = Math.min(500 * 2 ** i, 5_000);
        log(`${name}: connect failed (${(error as Error).message}); retry ${i + 1}/${retries} in ${delay} ms`);
        await sleep(delay, signal);
      }
    }
  }

  function bastionClient(bastion: NonNullable<HostSettings['bastion']>, signal?: AbortSignal): Promise<ssh2.Client> {
    const key = `${bastion.user}@${bastion.address}:${bastion.port}`;
    let pending = bastions.get(key);
    if (!pending) {
      pending = withRetries(`${bastion.name} (bastion)`, () => connectOnce(bastion, { name: bastion.name, address: bastion.address, port: bastion.port }), signal);
      bastions.set(key, pending);
      pending.catch(() => bastions.delete(key));
    }
    return pending;
  }

  function forward(jump: ssh2.Client, endpoint: SshEndpoint): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      jump.forwardOut('127.0.0.1', 0, endpoint.address, endpoint.port, (error, stream) => {
        if (error) reject(new Error(`the bastion could not reach ${endpoint.address}:${endpoint.port}: ${error.message}`));
        else resolve(stream);
      });
    });
  }

  async function detectBecome(connection: SshConnection, host: HostSettings): Promise<BecomeMode> {
    if (!host.become.enabled) return { kind: 'none' };
    const probe = await connection.exec(SUDO_PROBE, { label: 'become probe' });
    if (probe.code === 0) return { kind: 'sudo-nopasswd' };
    const variable = host.become.passwordEnv;
    if (!variable) {
      throw new UnreachableError(host.name, `sudo needs a password for ${host.ssh.user}: set become.passwordEnv to the NAME of a variable holding it, or allow passwordless sudo`);
    }
    const password = options.env[variable];
    if (password === undefined) throw new UnreachableError(host.name, `the sudo password variable ${variable} is not set`);
    const mode: BecomeMode = { kind: 'sudo-password', password };
    // Check the password once now, so a wrong one fails here with a clear message.
    const check = await connection.exec(wrapBecome(mode, sh`true`).command, { stdin: `${password}\n`, label: 'become password check' });
    if (check.code !== 0) {
      throw new Error(`${host.name}: sudo rejected the password in ${variable} for user ${host.ssh.user}: ${check.stderr.trim().split('\n').pop() ?? ''}`);
    }
    return mode;
  }

  return {
    async connect(host, signal) {
      const target = { name: host.name, address: host.ssh.address, port: host.ssh.port };
      const client = await withRetries(
        host.name,
        async () => {
          const sock = host.bastion ? await forward(await bastionClient(host.bastion, signal), host.ssh) : undefined;
          return connectOnce(host.ssh, target, sock);
        },
        signal,
      );
      const connection = new SshConnection(host.name, client, () => {
        const i = open.indexOf(connection);
        if (i >= 0) open.splice(i, 1);
      });
      open.push(connection);
      try {
        connection.setBecomeMode(await detectBecome(connection, host));
      } catch (error) {
        await connection.close();
        throw error;
      }
      return connection;
    },
    async closeAll() {
      await Promise.all([...open].map((c) => c.close()));
      const clients = await Promise.allSettled([...bastions.values()]);
      for (const c of clients) if (c.status === 'fulfilled') c.value.end();
      bastions.clear();
    },
  };
}
