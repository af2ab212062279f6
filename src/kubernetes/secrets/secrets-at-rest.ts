// A fact, read on a control plane straight from etcd: how each Secret is stored (which key
// encrypted it, or plain text). The API server only shows decrypted Secrets, so this is the one
// place that tells whether encryption at rest is real; it also drives the rewrite that encrypts
// Secrets stored before encryption was on, or with a key that is being retired.
import type { Fact } from '../../orchestrator/engine/fact.js';
import { sh } from '../../orchestrator/ssh/quote.js';
import { ETCDCTL } from '../etcd/etcdctl.js';

export type SecretsAtRest =
  | {
      readonly known: true;
      readonly total: number;
      /** Secrets per provider:key that encrypted them; "(plain text)" for those stored unencrypted. */
      readonly byKey: Readonly<Record<string, number>>;
    }
  /** etcd cannot be read (not installed yet, not running): the detail says why. */
  | { readonly known: false; readonly detail: string };

export const PLAIN_TEXT = '(plain text)';
const PREFIX = /^k8s:enc:([a-z0-9]+):v1:([A-Za-z0-9-]+):/;

export function parseSecretsAtRest(stdout: string, exitCode: number): SecretsAtRest {
  if (exitCode !== 0) return { known: false, detail: stdout.trim().split('\n').slice(-2).join(' ').slice(0, 300) || `etcdctl exited ${exitCode}` };
  const parsed = JSON.parse(stdout) as { kvs?: { value?: string }[] };
  const byKey: Record<string, number> = {};
  for (const kv of parsed.kvs ?? []) {
    // Only the prefix matters: 80 bytes of base64 decode to 60 bytes.
    const head = Buffer.from((kv.value ?? '').slice(0, 80), 'base64').toString('latin1');
    const match = PREFIX.exec(head);
    const key = match ? `${match[1]}:${match[2]}` : PLAIN_TEXT;
    byKey[key] = (byKey[key] ?? 0) + 1;
  }
  return { known: true, total: parsed.kvs?.length ?? 0, byKey };
}

export const secretsAtRest: Fact<SecretsAtRest> = {
  key: 'etcd:secrets-at-rest',
  become: true,
  script: sh`out=$(${ETCDCTL} get /registry/secrets/ --prefix -w json 2>&1) || { printf '%s\n' "$out" | tail -n 3; exit 3; }; printf '%s\n' "$out"`,
  parse: parseSecretsAtRest,
};
