// Secrets at rest: the key kept in the state folder (made once, private, reused), the
// EncryptionConfiguration rendered from it, and how etcd's values tell which key wrote them.
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { EncryptionKeyStore, encryptedPrefix, renderEncryptionConfig } from '../../../src/kubernetes/secrets/encryption-keys.js';
import { parseSecretsAtRest, PLAIN_TEXT } from '../../../src/kubernetes/secrets/secrets-at-rest.js';
import { rotationPlan } from '../../../src/kubernetes/secrets/key-rotation.js';
import { formatDiagnostic, parseInventory } from '../../../src/kubernetes/inventory/load-inventory.js';

describe('encryption keys', () => {
  it('are generated once on the controller, private, and reused', async () => {
    const state = mkdtempSync(join(tmpdir(), 'kc-enc-'));
    const store = new EncryptionKeyStore(state);
    const first = await store.ensure(new Date('2026-11-24T10:00:00Z'));
    expect(first.keys).toHaveLength(1);
    expect(first.keys[0]!.name).toBe('key-20261124T100000');
    expect(Buffer.from(first.keys[0]!.secret, 'base64')).toHaveLength(32);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(statSync(join(state, 'encryption')).mode & 0o777).toBe(0o700);
    expect(await new EncryptionKeyStore(state).ensure()).toEqual(first);
  });

  it('refuse a damaged key file instead of making a new key (which would lose every Secret)', async () => {
    const state = mkdtempSync(join(tmpdir(), 'kc-enc-'));
    const store = new EncryptionKeyStore(state);
    await store.ensure();
    writeFileSync(store.path, '{"keys": [{"name": "k", "secret": "short"}]}');
    await expect(store.ensure()).rejects.toThrow(
      `${store.path}: expected { "keys": [{ "name", "secret": 32 bytes base64 }, ...] }: restore it from your backup of the state folder`,
    );
  });

  it('render an EncryptionConfiguration: secretbox with the first key writing, every key reading, identity last', () => {
    const keys = {
      keys: [
        { name: 'key-new', secret: Buffer.alloc(32, 1).toString('base64') },
        { name: 'key-old', secret: Buffer.alloc(32, 2).toString('base64') },
      ],
    };
    const config = parse(renderEncryptionConfig(keys)) as { kind: string; resources: { resources: string[]; providers: Record<string, unknown>[] }[] };
    expect(config.kind).toBe('EncryptionConfiguration');
    expect(config.resources[0]!.resources).toEqual(['secrets']);
    expect(config.resources[0]!.providers).toEqual([{ secretbox: { keys: keys.keys } }, { identity: {} }]);
    expect(encryptedPrefix(keys.keys[0]!)).toBe('k8s:enc:secretbox:v1:key-new:');
  });
});

describe('Secrets at rest, as etcd holds them', () => {
  const value = (text: string): { value: string } => ({ value: Buffer.from(text).toString('base64') });
  it('counts each Secret by the key that encrypted it, or as plain text', () => {
    const stdout = JSON.stringify({
      kvs: [
        value('k8s:enc:secretbox:v1:key-a:\u0001\u0002binary'),
        value('k8s:enc:secretbox:v1:key-a:xyz'),
        value('k8s:enc:secretbox:v1:key-b:x'),
        value('k8s\u0000\n\u000bVersion: v1 Secret plain protobuf'),
      ],
    });
    expect(parseSecretsAtRest(stdout, 0)).toEqual({ known: true, total: 4, byKey: { 'secretbox:key-a': 2, 'secretbox:key-b': 1, [PLAIN_TEXT]: 1 } });
    expect(parseSecretsAtRest('{"header":{}}', 0)).toEqual({ known: true, total: 0, byKey: {} });
  });
  it('says why when etcd cannot be read', () => {
    expect(parseSecretsAtRest('sh: 1: /usr/local/bin/etcdctl: not found\n', 3)).toEqual({ known: false, detail: 'sh: 1: /usr/local/bin/etcdctl: not found' });
  });
});

describe('cluster.audit in the inventory', () => {
  it('refuses a policy file that does not exist, with its file:line:col', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-audit-'));
    const text = 'cluster:\n  audit:\n    policyFile: ./nope.yaml\n    maxAgeDays: 0\nhosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';
    const result = parseInventory(text, join(dir, 'inv.yaml'), { env: { SSH_AUTH_SOCK: '/a' }, homeDir: dir });
    expect(result.ok ? [] : result.errors.map(formatDiagnostic)).toEqual([
      `${join(dir, 'inv.yaml')}:4:17: cluster.audit.maxAgeDays: must be a number of days 1-3650 (got 0)`,
    ]);
    const missing = parseInventory(text.replace('    maxAgeDays: 0\n', ''), join(dir, 'inv.yaml'), { env: { SSH_AUTH_SOCK: '/a' }, homeDir: dir });
    expect(missing.ok ? [] : missing.errors.map(formatDiagnostic)).toEqual([
      `${join(dir, 'inv.yaml')}:3:17: cluster.audit.policyFile: audit policy ${join(dir, 'nope.yaml')} does not exist`,
    ]);
  });
});

describe('key rotation steps', () => {
  const old = { name: 'key-20260101T000000', secret: Buffer.alloc(32, 1).toString('base64') };
  it('a new rotation: the new key readable, then writing, then alone; the state holds both meanwhile', () => {
    const plan = rotationPlan({ keys: [old] }, new Date('2026-11-24T12:00:00Z'));
    expect(plan.to.name).toBe('key-20261124T120000');
    expect(plan.readable.keys.map((k) => k.name)).toEqual([old.name, plan.to.name]);
    expect(plan.writing.keys.map((k) => k.name)).toEqual([plan.to.name, old.name]);
    expect(plan.done.keys.map((k) => k.name)).toEqual([plan.to.name]);
    expect(plan.during).toEqual({ keys: [old, plan.to], rotatingTo: plan.to.name });
  });
  it('resumes a rotation cut short with the same new key', () => {
    const to = { name: 'key-20261124T120000', secret: Buffer.alloc(32, 2).toString('base64') };
    const plan = rotationPlan({ keys: [old, to], rotatingTo: to.name }, new Date('2026-12-01T00:00:00Z'));
    expect([plan.from, plan.to]).toEqual([old, to]);
  });
  it('refuses key files no rotation leaves', () => {
    const other = { name: 'key-x', secret: old.secret };
    expect(() => rotationPlan({ keys: [old, other] }, new Date())).toThrow(
      'the state folder holds 2 encryption keys and no rotation under way: restore keys.json from your backup',
    );
  });
});
