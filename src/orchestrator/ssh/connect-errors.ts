// Why a connection attempt failed, in plain words, and whether retrying could help.
import type { SshEndpoint } from '../inventory/model.js';

/** Errors that retrying cannot fix: wrong credentials, bad settings, a cancelled run. */
export class FinalConnectError extends Error {
  override readonly name = 'FinalConnectError';
}

type Ssh2Error = Error & { code?: string; level?: string };

/** The authentication methods configured for an endpoint, as a person would list them. */
export function authMethods(endpoint: SshEndpoint): string {
  const methods = [
    endpoint.keyFile ? `key ${endpoint.keyFile}` : '',
    endpoint.agent ? 'ssh-agent' : '',
    endpoint.passwordEnv ? `password from $${endpoint.passwordEnv}` : '',
  ];
  return methods.filter(Boolean).join(', ') || 'none (set keyFile, agent or passwordEnv)';
}

export function isAuthFailure(error: Ssh2Error): boolean {
  return error.level === 'client-authentication';
}

export function describeConnectError(error: Ssh2Error, endpoint: SshEndpoint): string {
  const where = `${endpoint.address}:${endpoint.port}`;
  if (isAuthFailure(error)) return `authentication failed for user ${endpoint.user} at ${where} (tried: ${authMethods(endpoint)})`;
  if (error.level === 'client-timeout' || /timed out/i.test(error.message))
    return `timed out connecting to ${where} (no SSH greeting in time; is the address right and port ${endpoint.port} open?)`;
  switch (error.code) {
    case 'ECONNREFUSED':
      return `connection refused by ${where} (is sshd running and listening on port ${endpoint.port}?)`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `no route to ${endpoint.address} (is the host up and on a reachable network?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve the name ${endpoint.address}`;
    case 'ETIMEDOUT':
      return `timed out connecting to ${where}`;
    case 'ECONNRESET':
      return `${where} closed the connection during the handshake`;
    default:
      return `${where}: ${error.message}`;
  }
}
