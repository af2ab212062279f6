// File plans are pure: the host's file state (a fact value) and the desired content in, the
// expected Change out: kind, summary and unified diff.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFileState, type FileState } from '../../../src/orchestrator/facts/file-state.js';
import { planManagedFile, templateFile } from '../../../src/orchestrator/tasks/template-file.js';
import { createTemplateRenderer } from '../../../src/orchestrator/templates/render.js';
import { hostContext } from './support/host-context.js';

const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
const motd = { path: '/etc/motd', mode: 0o644 };
const existing = (content: string, extra: Partial<FileState> = {}): FileState => ({
  exists: true,
  type: 'file',
  mode: '0644',
  owner: 'root',
  group: 'root',
  size: Buffer.byteLength(content),
  sha256: sha(content),
  content,
  ...extra,
});
const diffOf = (change: { kind: string; diff?: string }): string => ('diff' in change ? (change.diff ?? '') : '');

describe('planManagedFile', () => {
  it('creates a missing file, with a diff from /dev/null', () => {
    const change = planManagedFile(motd, { exists: false }, Buffer.from('hello\n'));
    expect(change).toMatchObject({ kind: 'create', summary: 'create /etc/motd (mode 0644, root:root)', payload: { content: Buffer.from('hello\n') } });
    expect(diffOf(change)).toMatch(/^={67}\n--- \/dev\/null\n\+\+\+ b\/etc\/motd\n@@ -0,0 \+1,1 @@\n\+hello\n$/);
  });

  it('changes nothing when content, mode and owner match, and says why', () => {
    expect(planManagedFile(motd, existing('hello\n'), Buffer.from('hello\n'))).toEqual({
      kind: 'none',
      reason: '/etc/motd already has this content, mode 0644 and owner root:root',
    });
  });

  it('shows a unified diff a/ -> b/ of a content change', () => {
    const change = planManagedFile(motd, existing('one\nbye\nthree\n'), Buffer.from('one\nhello\nthree\n'));
    expect(change).toMatchObject({ kind: 'update', summary: 'update /etc/motd (content)' });
    expect(diffOf(change)).toContain('--- a/etc/motd\n+++ b/etc/motd\n@@ -1,3 +1,3 @@\n one\n-bye\n+hello\n three\n');
  });

  it('a mode-only difference is an update that says so, without a diff', () => {
    expect(planManagedFile(motd, existing('hello\n', { mode: '0600' }), Buffer.from('hello\n'))).toEqual({
      kind: 'update',
      summary: 'update /etc/motd (mode 0600 -> 0644; content unchanged)',
      payload: { content: Buffer.from('hello\n') },
    });
  });

  it('reports an owner drift together with a content change', () => {
    const change = planManagedFile({ ...motd, owner: 'www', group: 'www' }, existing('a\n', { owner: 'root' }), Buffer.from('b\n'));
    expect(change).toMatchObject({ kind: 'update', summary: 'update /etc/motd (content, owner root:root -> www:www)' });
  });

  it('has no diff when the host file is binary or was too big to fetch', () => {
    const binary = existing('', { sha256: sha(Buffer.from([0, 1])), size: 2 });
    const { content: _omitted, ...withoutContent } = binary;
    const change = planManagedFile(motd, withoutContent, Buffer.from('text\n'));
    expect(change).toEqual({
      kind: 'update',
      summary: 'update /etc/motd (content (binary or too large to diff))',
      payload: { content: Buffer.from('text\n') },
    });
  });

  it('compares the bytes a read brought, and still reports their sha256', () => {
    const read = (bytes: Buffer): FileState => parseFileState(`regular file|644|root|root|${bytes.length}\ncontent\n${bytes.toString('base64')}\n`);
    const host = read(Buffer.from('hello\n'));
    expect(host.sha256).toBe(sha('hello\n'));
    expect(planManagedFile(motd, host, Buffer.from('hello\n')).kind).toBe('none');
    expect(planManagedFile(motd, host, Buffer.from('hellO\n')).kind).toBe('update');
    // U+FFFD written out on the host, and a desired byte (0xff) that only decodes to U+FFFD:
    // the same text, other bytes.
    const replacement = read(Buffer.from('\uFFFD', 'utf8'));
    expect(Buffer.from([0xff]).toString('utf8')).toBe(replacement.content);
    expect(planManagedFile(motd, replacement, Buffer.from([0xff])).kind).toBe('update');
    expect(planManagedFile(motd, replacement, Buffer.from('\uFFFD', 'utf8')).kind).toBe('none');
  });

  it('never shows a secret in a diff: marked secret, a PEM private key, a kubeconfig client key or token, old or new', () => {
    const key = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n';
    const kubeconfig = 'users:\n- name: admin\n  user:\n    client-certificate-data: QUJD\n    client-key-data: c2VjcmV0\n';
    const created = planManagedFile({ path: '/etc/k.key', mode: 0o600 }, { exists: false }, Buffer.from(key));
    expect(created).toMatchObject({ kind: 'create', summary: `create /etc/k.key (mode 0600, root:root; ${key.length} bytes, secret: content not shown)` });
    expect(created).not.toHaveProperty('diff');
    const rotated = planManagedFile(
      { path: '/etc/admin.conf', mode: 0o600 },
      existing(kubeconfig, { mode: '0600' }),
      Buffer.from(kubeconfig.replace('c2VjcmV0', 'bmV3')),
    );
    expect(rotated).toMatchObject({ kind: 'update', summary: 'update /etc/admin.conf (content (secret: not shown))' });
    expect(rotated).not.toHaveProperty('diff');
    // The old content gives it away even when the new one does not.
    expect(planManagedFile(motd, existing(key), Buffer.from('plain\n'))).not.toHaveProperty('diff');
    expect(planManagedFile(motd, existing('user:\n  token: abc.def\n'), Buffer.from('plain\n'))).not.toHaveProperty('diff');
    const marked = planManagedFile({ ...motd, secret: true }, existing('a\n'), Buffer.from('b\n'));
    expect(marked).not.toHaveProperty('diff');
    expect(JSON.stringify([created, rotated, marked])).not.toMatch(/PRIVATE KEY|c2VjcmV0|bmV3/);
    expect(planManagedFile(motd, existing('a\n'), Buffer.from('b\n'))).toHaveProperty('diff');
  });

  it('replaces a directory in the way', () => {
    expect(planManagedFile(motd, { exists: true, type: 'directory', mode: '0755', owner: 'root', group: 'root', size: 4096 }, Buffer.from('x'))).toMatchObject({
      kind: 'update',
      summary: 'replace the directory at /etc/motd with a file (mode 0644, root:root)',
    });
  });
});

describe('templateFile task', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-tpl-'));
  const renderer = createTemplateRenderer();

  it('renders a .hbs file with per-host data, then plans against the file fact', () => {
    const template = join(dir, 'motd.hbs');
    writeFileSync(template, '{{> managed-header comment="#"}}\n{{motd}} on {{host}}\n');
    const task = templateFile({
      path: '/etc/motd',
      template,
      mode: 0o644,
      renderer,
      data: (ctx) => ({ motd: ctx.vars['motd'], host: ctx.host.name }),
      notify: ['restart x'],
    });
    const ctx = hostContext('node-2');
    const facts = task.facts(ctx);
    expect(facts.file.key).toBe('file:/etc/motd');
    expect(task.notify).toEqual(['restart x']);
    expect(task.invalidates).toEqual(['file:/etc/motd', 'file:/etc/motd#*']);
    const change = task.plan({ file: existing('old\n') }, ctx);
    expect(change.kind).toBe('update');
    expect(diffOf(change)).toContain('-old\n+# Managed by kcluster');
    expect(diffOf(change)).toContain("+it's $(not run) on node-2\n");
  });

  it('inline content with fixed data; a converged file plans none', () => {
    const task = templateFile({ path: '/etc/x.conf', content: 'a={{a}}\n', data: { a: 1 }, mode: 0o600, renderer });
    const ctx = hostContext('node-1');
    expect(task.plan({ file: existing('a=1\n', { mode: '0600' }) }, ctx)).toEqual({
      kind: 'none',
      reason: '/etc/x.conf already has this content, mode 0600 and owner root:root',
    });
  });

  it('a missing variable fails the plan, naming the template and the variable', () => {
    const task = templateFile({ path: '/etc/x.conf', content: 'a={{nope}}\n', mode: 0o644, renderer });
    expect(() => task.plan({ file: { exists: false } }, hostContext('node-1'))).toThrow('template for /etc/x.conf: missing variable "nope" (line 1, column 5)');
  });

  it('a missing template file fails when the task is built, not on the host', () => {
    expect(() => templateFile({ path: '/etc/x', template: join(dir, 'absent.hbs'), mode: 0o644, renderer })).toThrow(/absent\.hbs: cannot read it \(ENOENT\)/);
  });
});
