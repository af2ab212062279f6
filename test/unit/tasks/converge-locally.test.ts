// A file task's whole loop on this machine (fake connection: the local /bin/sh stands in for
// SSH): read the fact, plan, apply, read again and plan nothing; then drift and repair.
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ApplyContext } from '../../../src/orchestrator/engine/types.js';
import { isPending } from '../../../src/orchestrator/engine/change.js';
import { Semaphore } from '../../../src/orchestrator/engine/semaphore.js';
import { templateFile } from '../../../src/orchestrator/tasks/template-file.js';
import { createTemplateRenderer } from '../../../src/orchestrator/templates/render.js';
import { LocalShellConnection } from '../../engine/support/local-shell-connection.js';
import { readFactLocally } from '../facts/support/read-fact-locally.js';
import { hostContext } from './support/host-context.js';

const owner = userInfo().username;
const group = execFileSync('id', ['-gn'], { encoding: 'utf8' }).trim();

describe('templateFile converges (fake connection)', () => {
  it('creates, then plans none, then repairs a hand edit and a chmod', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kc-converge-'));
    const path = join(dir, "conf d'ir $(x)", 'app.conf');
    const task = templateFile({
      path,
      content: '{{> managed-header comment="#"}}\nhost={{host}}\n',
      data: (c) => ({ host: c.host.name }),
      mode: 0o640,
      owner,
      group,
      renderer: createTemplateRenderer(),
    });
    const ctx = hostContext('node-1');
    const connection = new LocalShellConnection('node-1');
    const applyCtx: ApplyContext = {
      ...ctx,
      connection,
      signal: new AbortController().signal,
      log: () => undefined,
      progress: () => undefined,
      publish: () => undefined,
      transfers: new Semaphore(1),
    };
    const plan = () => task.plan({ file: readFactLocally(task.facts(ctx).file) }, ctx);

    const first = plan();
    expect(first.kind).toBe('create');
    if (!isPending(first)) throw new Error('expected a change');
    await task.apply(first, applyCtx);
    expect(readFileSync(path, 'utf8')).toMatch(/^# Managed by kcluster.*\nhost=node-1\n$/);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(plan().kind).toBe('none');

    writeFileSync(path, 'host=edited\n');
    const repair = plan();
    expect(repair).toMatchObject({ kind: 'update', summary: `update ${path} (content)` });
    expect('diff' in repair ? repair.diff : '').toContain('-host=edited\n');
    if (!isPending(repair)) throw new Error('expected a change');
    await task.apply(repair, applyCtx);
    expect(plan().kind).toBe('none');

    chmodSync(path, 0o600);
    expect(plan()).toMatchObject({ kind: 'update', summary: `update ${path} (mode 0600 -> 0640; content unchanged)` });
  });
});
