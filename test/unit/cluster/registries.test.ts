// cluster.registries: what containerd, Docker Engine and the kubelet are given, credentials
// from the controller's environment only, and bad input refused at file:line:col.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../../src/kubernetes/inventory/load-inventory.js';
import type { Inventory } from '../../../src/orchestrator/inventory/model.js';
import { containerdHostsToml, dockerRegistrySettings, kubeletRegistryCredentials, registryAuthFrom } from '../../../src/kubernetes/cluster/registries.js';
import { registryAuthOrInputError } from '../../../playbooks/cluster-inputs.js';
import { loadInventoryText, parseInventoryText } from '../support/inventory-text.js';

const root = mkdtempSync(join(tmpdir(), 'kc-registries-'));
const parsed = (text: string) => parseInventoryText(root, text);
const load = (text: string): Inventory => loadInventoryText(root, text);
const hosts = 'hosts:\n  - { name: cp1, address: 10.0.0.1, roles: [control-plane] }\n';

const registries =
  'cluster:\n  registries:\n' +
  '    docker.io:\n      mirrors: [https://mirror.corp.example, "http://10.0.0.5:5000"]\n' +
  '    registry.corp.example:5000:\n      usernameEnv: REG_USER\n      passwordEnv: REG_PASS\n' +
  '    plain.example:\n      server: http://10.0.0.6:5000\n';

describe('cluster.registries', () => {
  const inventory = load(registries + hosts);

  it('defaults the server to https://NAME (Docker Hub: its API host) and keeps the mirrors in order', () => {
    expect(inventory.cluster.registries).toEqual({
      'docker.io': { server: 'https://registry-1.docker.io', mirrors: ['https://mirror.corp.example', 'http://10.0.0.5:5000'] },
      'registry.corp.example:5000': { server: 'https://registry.corp.example:5000', mirrors: [], usernameEnv: 'REG_USER', passwordEnv: 'REG_PASS' },
      'plain.example': { server: 'http://10.0.0.6:5000', mirrors: [] },
    });
  });

  it('reads credentials from the environment as a Basic authorization, and names a missing variable at its place', () => {
    expect(registryAuthFrom(inventory.cluster.registries, { REG_USER: 'robot', REG_PASS: 's3cret' })).toEqual({
      'registry.corp.example:5000': `Basic ${Buffer.from('robot:s3cret').toString('base64')}`,
    });
    expect(() => registryAuthOrInputError(inventory, { REG_USER: 'robot' })).toThrow(
      `${inventory.file}:7:20: cluster.registries.registry.corp.example:5000.passwordEnv: the environment variable REG_PASS is not set (or empty) on the controller: export it before running kcluster`,
    );
  });

  it('gives containerd the mirrors first, then the server, with the authorization on each', () => {
    const auth = 'Basic cm9ib3Q6czNjcmV0';
    const toml = containerdHostsToml({ server: 'https://r.example', mirrors: ['http://10.0.0.5:5000', 'https://m.example'] }, auth, '# header');
    expect(toml).toBe(
      '# header\nserver = "https://r.example"\n\n[header]\n  Authorization = "Basic cm9ib3Q6czNjcmV0"\n\n' +
        '[host."http://10.0.0.5:5000"]\n  capabilities = ["pull", "resolve"]\n  [host."http://10.0.0.5:5000".header]\n    Authorization = "Basic cm9ib3Q6czNjcmV0"\n\n' +
        '[host."https://m.example"]\n  capabilities = ["pull", "resolve"]\n  [host."https://m.example".header]\n    Authorization = "Basic cm9ib3Q6czNjcmV0"\n',
    );
    expect(containerdHostsToml({ server: 'http://10.0.0.6:5000', mirrors: [] }, undefined, '# h')).toBe('# h\nserver = "http://10.0.0.6:5000"\n');
  });

  it('gives Docker Engine the docker.io mirrors and every plain-HTTP endpoint, and the kubelet the credentials file', () => {
    expect(dockerRegistrySettings(inventory.cluster.registries)).toEqual({
      mirrors: ['https://mirror.corp.example', 'http://10.0.0.5:5000'],
      insecure: ['10.0.0.5:5000', '10.0.0.6:5000'],
    });
    expect(JSON.parse(kubeletRegistryCredentials({ 'docker.io': 'Basic YTpi', 'r.example': 'Basic Yzpk' }))).toEqual({
      auths: { 'https://index.docker.io/v1/': { auth: 'YTpi' }, 'r.example': { auth: 'Yzpk' } },
    });
  });

  it('warns about plain HTTP at each place, and refuses half a credential pair and credentials in a URL', () => {
    const ok = parsed(registries + hosts);
    expect(ok.result.ok).toBe(true);
    const warnings = ok.result.ok ? ok.result.warnings.map(formatDiagnostic) : [];
    expect(warnings).toEqual([
      expect.stringMatching(
        /:4:46: warning: cluster\.registries\.docker\.io\.mirrors\[1\]: http:\/\/10\.0\.0\.5:5000 is plain HTTP: images travel unencrypted/,
      ),
      expect.stringMatching(/:9:15: warning: cluster\.registries\.plain\.example\.server: http:\/\/10\.0\.0\.6:5000 is plain HTTP/),
    ]);
    const bad = parsed(`cluster:\n  registries:\n    r.example:\n      usernameEnv: U\n      mirrors: ["https://user:pw@m.example"]\n${hosts}`);
    expect(bad.result.ok).toBe(false);
    expect(bad.result.ok ? [] : bad.result.errors.map(formatDiagnostic)).toEqual([
      expect.stringMatching(/:4:7: cluster\.registries\.r\.example: usernameEnv without passwordEnv: set both/),
      expect.stringMatching(/:5:17: cluster\.registries\.r\.example\.mirrors\[0\]: .*an http:\/\/ or https:\/\/ URL without credentials/),
    ]);
  });

  it('refuses mirrors of another registry than docker.io with Docker Engine', () => {
    const docker = parsed(`cluster:\n  containerRuntime: docker\n  registries:\n    r.example:\n      mirrors: [https://m.example]\n${hosts}`);
    expect(docker.result.ok ? [] : docker.result.errors.map(formatDiagnostic)).toEqual([
      expect.stringMatching(/:5:16: cluster\.registries\.r\.example\.mirrors: Docker Engine takes mirrors only for docker\.io/),
    ]);
  });
});
