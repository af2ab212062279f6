// Opens the one SSH connection per host of a run: authentication, host key verification,
// connect timeout and keepalive, bounded retries with backoff (on connect only), jump hosts
// (a forwarded channel through the bastion's own connection, shared by every host behind it),
// and the become probe.
import ssh2, { type ConnectConfig } from 'ssh2';
import type { Duplex } from 'node:stream';
import type { HostSettings, Inventory, SshEndpoint } from '../inventory/model.js';
import { UnreachableError, type Connection } from './connection.js';
import { authConfig } from './auth-config.js';
import { describeConnectError, FinalConnectError, isAuthFailure } from './connect-errors.js';
import { detectBecome } from './detect-become.js';
import { hostKeyAlgorithms } from './host-key-algorithms.js';
import { HostKeyMismatchError, type HostKeyPolicy, type HostKeyTarget } from './host-key-policy.js';
import { SshConnection } from './ssh-connection.js';
import { endClient } from './end-client.js';

export interface SshConnectorOptions {
  readonly inventory: Inventory;
  readonly env: NodeJS.ProcessEnv;
  readonly hostKeys: HostKeyPolicy;
  readonly promptPassphrase?: (keyFile: string) => Promise<string>;
  readonly log?: (line: string) => void;
}

export interface SshConnector {
  connect(host: HostSettings, signal?: AbortSignal): Promise<Connection>;
  /** The host key a host presents, fetched without logging in (for `kcluster trust`). */
  scanHostKey(host: HostSettings, signal?: AbortSignal): Promise<Buffer>;
  closeAll(): Promise<void>;
}

type Bastion = NonNullable<HostSettings['bastion']>;
type Ssh2Error = Error & { code?: string; level?: string };

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** The inventory's keepaliveCountMax (OpenSSH's meaning) as ssh2's option (one fewer). */
export function keepaliveCountForSsh2(countMax: number): number {
  return Math.max(0, countMax - 1);
}

const targetOf = (name: string, endpoint: SshEndpoint): HostKeyTarget => ({ name, address: endpoint.address, port: endpoint.port });

/** Text of an UnreachableError without its "<host>: unreachable: " prefix. */
const reasonOf = (error: Error, host: string): string => error.message.replace(`${host}: unreachable: `, '');

export function createSshConnector(options: SshConnectorOptions): SshConnector {
  const open = new Set<SshConnection>();
  const bastions = new Map<string, Promise<ssh2.Client>>();
  const passphrases = new Map<string, Promise<string>>();
  const log = options.log ?? (() => {});
  const settings = options.inventory.ssh;

  function baseConfig(endpoint: SshEndpoint, target: HostKeyTarget, sock: Duplex | undefined): ConnectConfig {
    const algorithms = hostKeyAlgorithms(options.hostKeys.knownKeyTypes(target));
    return {
      host: endpoint.address,
      port: endpoint.port,
      username: endpoint.user,
      readyTimeout: settings.connectTimeoutMs,
      keepaliveInterval: settings.keepaliveIntervalMs,
      // ssh2 gives up on the (countMax + 1)th unanswered keepalive; OpenSSH's ServerAliveCountMax,
      // which the inventory setting follows, on the countMax-th: the link is declared lost after
      // interval x count of silence (5 s x 3 = 15 s by default).
      keepaliveCountMax: keepaliveCountForSsh2(settings.keepaliveCountMax),
      ...(algorithms ? { algorithms: { serverHostKey: algorithms as ssh2.ServerHostKeyAlgorithm[] } } : {}),
      ...(sock ? { sock } : {}),
    };
  }

  /** One handshake; `verify` sees the host key and may refuse it (its error wins). */
  function handshake(config: ConnectConfig, endpoint: SshEndpoint, verify: (key: Buffer) => Error | undefined, signal?: AbortSignal): Promise<ssh2.Client> {
    return new Promise<ssh2.Client>((resolve, reject) => {
      const client = new ssh2.Client();
      let refusal: Error | undefined;
      let settled = false;
      const onAbort = (): void => {
        if (settled) return;
        settled = true;
        refusal = new FinalConnectError('cancelled');
        client.end();
        reject(refusal);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      client.once('ready', () => {
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        resolve(client);
      });
      // Stays attached for the client's life: a later socket error (reset, keepalive timeout)
      // must not crash the run; 'close' follows and the connection reports it on next use.
      client.on('error', (error: Ssh2Error) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        client.end();
        if (refusal) reject(refusal);
        else if (isAuthFailure(error)) reject(new FinalConnectError(describeConnectError(error, endpoint)));
        else reject(new Error(describeConnectError(error, endpoint)));
      });
      // A peer that hangs up without a word (e.g. a forwarded stream closing) still settles.
      client.once('close', () => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        reject(refusal ?? new Error(`${endpoint.address}:${endpoint.port} closed the connection during the handshake`));
      });
      client.connect({
        ...config,
        hostVerifier: (key: Buffer) => {
          refusal = verify(key);
          return refusal === undefined;
        },
      });
      // Every command is a few small packets each way: with Nagle's algorithm on, each one waits
      // for the server's delayed ACK, tens of ms per command (figures:
      // bench/results/2026-11-28-figures-from-code-comments.md).
      client.setNoDelay(true);
    });
  }

  async function login(endpoint: SshEndpoint, target: HostKeyTarget, sock: Duplex | undefined, signal?: AbortSignal): Promise<ssh2.Client> {
    const auth = await authConfig(endpoint, {
      env: options.env,
      passphrases,
      ...(options.promptPassphrase ? { promptPassphrase: options.promptPassphrase } : {}),
    });
    return handshake(
      { ...baseConfig(endpoint, target, sock), ...auth },
      endpoint,
      (key) => {
        const verdict = options.hostKeys.check(target, key);
        if (!verdict.ok) return verdict.error;
        if (verdict.source === 'pinned-now') log(`${target.name}: trusted on first use, pinned ${verdict.fingerprint} in ${options.hostKeys.options.pinFile}`);
        return undefined;
      },
      signal,
    );
  }

  async function withRetries<T>(name: string, attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const retries = settings.connectRetries;
    for (let i = 0; ; i++) {
      try {
        return await attempt();
      } catch (error) {
        if (error instanceof UnreachableError) throw error;
        const reason = (error as Error).message;
        if (error instanceof FinalConnectError) throw new UnreachableError(name, reason);
        if (i >= retries || signal?.aborted) throw new UnreachableError(name, `${reason} (gave up after ${i + 1} attempt${i === 0 ? '' : 's'})`);
        const delay = Math.min(500 * 2 ** i, 8_000);
        log(`${name}: connect failed (${reason}); retry ${i + 1}/${retries} in ${delay} ms`);
        await sleep(delay, signal);
      }
    }
  }

  function bastionClient(bastion: Bastion, signal?: AbortSignal): Promise<ssh2.Client> {
    const key = `${bastion.user}@${bastion.address}:${bastion.port}`;
    let pending = bastions.get(key);
    if (!pending) {
      const connecting = withRetries(bastion.name, () => login(bastion, targetOf(bastion.name, bastion), undefined, signal), signal);
      pending = connecting;
      bastions.set(key, connecting);
      // A failed or dropped bastion is forgotten, so the next host through it tries afresh.
      connecting.then(
        (client) => client.once('close', () => bastions.get(key) === connecting && bastions.delete(key)),
        () => bastions.get(key) === connecting && bastions.delete(key),
      );
    }
    return pending;
  }

  /** A TCP stream to the target, opened by the bastion (direct-tcpip). */
  async function throughBastion(host: HostSettings, bastion: Bastion, signal?: AbortSignal): Promise<Duplex> {
    let jump: ssh2.Client;
    try {
      jump = await bastionClient(bastion, signal);
    } catch (error) {
      throw new FinalConnectError(`through the bastion ${bastion.name}: ${reasonOf(error as Error, bastion.name)}`);
    }
    return new Promise((resolve, reject) => {
      try {
        jump.forwardOut('127.0.0.1', 0, host.ssh.address, host.ssh.port, (error, stream) => {
          if (error) reject(new Error(`the bastion ${bastion.name} could not reach ${host.ssh.address}:${host.ssh.port}: ${error.message}`));
          else resolve(stream);
        });
      } catch (error) {
        reject(new Error(`the connection to the bastion ${bastion.name} is gone: ${(error as Error).message}`));
      }
    });
  }

  return {
    async connect(host, signal) {
      const target = targetOf(host.name, host.ssh);
      const client = await withRetries(
        host.name,
        async () => login(host.ssh, target, host.bastion ? await throughBastion(host, host.bastion, signal) : undefined, signal),
        signal,
      );
      const connection: SshConnection = new SshConnection(host.name, client, {
        onClose: () => open.delete(connection),
        keepalive: { intervalMs: settings.keepaliveIntervalMs, countMax: settings.keepaliveCountMax },
        commandIdleTimeoutMs: settings.commandIdleTimeoutMs,
      });
      open.add(connection);
      try {
        connection.setBecomeMode(await detectBecome(connection, host, options.env));
        // After become is known: the guard must be able to end root's commands too.
        connection.startGuard();
      } catch (error) {
        await connection.close();
        throw error;
      }
      return connection;
    },

    scanHostKey(host, signal) {
      const target = targetOf(host.name, host.ssh);
      return withRetries(
        host.name,
        async () => {
          const sock = host.bastion ? await throughBastion(host, host.bastion, signal) : undefined;
          let presented: Buffer | undefined;
          // Refusing every key ends the handshake before any credential is sent.
          const stop = new FinalConnectError('host key fetched');
          try {
            const client = await handshake(
              baseConfig(host.ssh, target, sock),
              host.ssh,
              (key) => {
                presented = key;
                return stop;
              },
              signal,
            );
            client.end();
          } catch (error) {
            if (error !== stop || presented === undefined) throw error;
          }
          if (presented === undefined) throw new FinalConnectError('the host presented no host key');
          return presented;
        },
        signal,
      );
    },

    async closeAll() {
      // The hosts first, each until its server closed it, then the bastions they tunnel through.
      await Promise.all([...open].map((c) => c.close()));
      const clients = await Promise.allSettled([...bastions.values()]);
      bastions.clear();
      await Promise.all(clients.map((c) => (c.status === 'fulfilled' ? endClient(c.value, false) : undefined)));
    },
  };
}

export { HostKeyMismatchError };
