// The template renderer: strict variables, shared partials, one compile per template, and the
// demo role's templates rendered for a host of a real (parsed) inventory.
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTemplateRenderer, TemplateError } from '../../../src/orchestrator/templates/render.js';
import { packageRoot } from '../../../src/orchestrator/util/package-root.js';
import { demoRole, demoTemplateData } from '../../../roles/demo/index.js';
import { hostContext } from '../tasks/support/host-context.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-render-'));
const write = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('createTemplateRenderer', () => {
  const render = createTemplateRenderer();

  it('renders without HTML escaping', () => {
    expect(render(write('plain.hbs', 'a={{a}} b={{b.c}}\n'), { a: '<&"\'>', b: { c: '$(x)' } })).toBe('a=<&"\'> b=$(x)\n');
  });

  it('a missing variable is an error naming the file, the variable and where', () => {
    const file = write('missing.hbs', 'line one\nport={{cluster.port}}\n');
    expect(() => render(file, { cluster: {} })).toThrow(TemplateError);
    expect(() => render(file, { cluster: {} })).toThrow(`template ${file}: missing variable "cluster.port" (line 2, column 8): pass it in the template's data`);
    expect(() => render(write('each.hbs', '{{#each hosts}}{{this.name}}\n{{/each}}'), { hosts: [{ name: 'a' }, {}] })).toThrow('missing variable "this.name"');
  });

  it('a variable missing inside a partial says so', () => {
    expect(() => render(write('header-only.hbs', '{{> managed-header}}\n'), {})).toThrow(
      'missing variable "comment" (used by a partial this template includes',
    );
  });

  it('the shared managed-header partial takes the comment character as a parameter', () => {
    const file = write('header.hbs', '{{> managed-header comment="#"}}\n{{> managed-header comment="//"}}\n');
    const [hash, slashes] = render(file, {}).split('\n');
    expect(hash).toMatch(/^# Managed by kcluster/);
    expect(slashes).toMatch(/^\/\/ Managed by kcluster/);
    expect(hash).toMatch(/do not edit|replaced/);
  });

  it('a syntax error is reported at compile time with the file name', () => {
    const file = write('broken.hbs', '{{#each x}}never closed\n');
    expect(() => render.compile(file)).toThrow(`template ${file}: Parse error`);
  });

  it('compiles each file once: later edits on disk do not change a renderer', () => {
    const file = write('cached.hbs', 'v1 {{x}}');
    expect(render(file, { x: 1 })).toBe('v1 1');
    writeFileSync(file, 'v2 {{x}}');
    expect(render(file, { x: 2 })).toBe('v1 2');
    expect(createTemplateRenderer()(file, { x: 3 })).toBe('v2 3');
  });

  it('registers every .hbs of a partials folder given to it', () => {
    const partials = mkdtempSync(join(tmpdir(), 'kc-partials-'));
    writeFileSync(join(partials, 'greet.hbs'), 'hi {{who}}');
    writeFileSync(join(partials, 'README.md'), 'not a partial');
    const custom = createTemplateRenderer({ partialsDir: partials });
    expect(custom(write('uses.hbs', '{{> greet who="you"}}!'), {})).toBe('hi you!');
  });
});

describe('demo role templates', () => {
  const templateDir = join(packageRoot(), 'roles', 'demo', 'templates');
  const render = createTemplateRenderer();

  it('every template of the role renders with the data the role computes, for each host', () => {
    const files = readdirSync(templateDir).filter((f) => f.endsWith('.hbs'));
    expect(files.sort()).toEqual(['host.conf.hbs', 'hosts.txt.hbs', 'kcluster-demo.service.hbs', 'motd.hbs']);
    for (const host of ['node-1', 'node-2']) {
      const ctx = hostContext(host, demoRole.defaults);
      for (const file of files) expect(render(join(templateDir, file), demoTemplateData(ctx)).length).toBeGreaterThan(0);
    }
  });

  it('host.conf names the host, its roles and a var; hosts.txt lists every inventory host', () => {
    const ctx = hostContext('node-1', demoRole.defaults);
    const data = demoTemplateData(ctx);
    const conf = render(join(templateDir, 'host.conf.hbs'), data);
    expect(conf).toMatch(/^# Managed by kcluster/);
    expect(conf).toContain('name=node-1\nroles=control-plane,etcd\ncluster=lab\ngreeting=hello from kcluster\n');
    expect(render(join(templateDir, 'hosts.txt.hbs'), data).split('\n').slice(1)).toEqual([
      '10.231.0.11 node-1 control-plane,etcd',
      '10.231.0.12 node-2 worker',
      '',
    ]);
  });

  it('motd carries the host var verbatim (no escaping, nothing evaluated)', () => {
    const motd = render(join(templateDir, 'motd.hbs'), demoTemplateData(hostContext('node-2', demoRole.defaults)));
    expect(motd).toBe("it's $(not run)\nnode-2 (worker) of cluster lab\n");
  });
});
