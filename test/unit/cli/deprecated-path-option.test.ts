// `kubeconfig -o PATH` and `etcd snapshot save --to PATH` still work, with a warning: --file is the spelling now.
import { describe, expect, it } from 'vitest';
import { runCli } from './support/run-cli.js';

describe('deprecated path options', () => {
  it('kubeconfig -o PATH warns that -o as a path is deprecated', async () => {
    const r = await runCli(['kubeconfig', '-i', '/nonexistent/inventory.yaml', '-o', 'admin.conf']);
    expect(r.err).toContain('kcluster: warning: -o as a path is deprecated: use --file');
    expect(r.code).toBe(2);
  });
  it('kubeconfig --file PATH does not warn', async () => {
    const r = await runCli(['kubeconfig', '-i', '/nonexistent/inventory.yaml', '--file', 'admin.conf']);
    expect(r.err).not.toContain('deprecated');
  });
  it('etcd snapshot save --to PATH warns that --to as a path is deprecated', async () => {
    const r = await runCli(['etcd', 'snapshot', 'save', '-i', '/nonexistent/inventory.yaml', '--to', 'etcd.db']);
    expect(r.err).toContain('kcluster: warning: --to as a path is deprecated: use --file');
    expect(r.code).toBe(2);
  });
  it('etcd snapshot save --file PATH does not warn', async () => {
    const r = await runCli(['etcd', 'snapshot', 'save', '-i', '/nonexistent/inventory.yaml', '--file', 'etcd.db']);
    expect(r.err).not.toContain('deprecated');
  });
});
