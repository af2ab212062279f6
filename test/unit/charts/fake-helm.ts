// A fake helm for the charts unit tests: `show chart` prints the Chart.yaml of a chart folder,
// `template` renders a ConfigMap from the values files it is given (and fails like Helm's
// `required` when no image is set), `upgrade` and `uninstall` succeed. It records every call
// with the values files' text and mode as they were when it ran.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { HelmRunner } from '../../../src/kubernetes/charts/helm-runner.js';

export interface FakeHelmCall {
  readonly args: readonly string[];
  /** Each --values file: its text and mode when helm ran. */
  readonly values: readonly { readonly path: string; readonly text: string; readonly mode: number }[];
}

export function fakeHelm(calls: FakeHelmCall[] = []): HelmRunner {
  return async (args) => {
    const values = args.flatMap((a, i) => (args[i - 1] === '--values' ? [{ path: a, text: readFileSync(a, 'utf8'), mode: statSync(a).mode & 0o777 }] : []));
    calls.push({ args, values });
    if (args[0] === 'show') {
      try {
        return { stdout: readFileSync(join(args[2]!, 'Chart.yaml'), 'utf8'), stderr: '', code: 0 };
      } catch {
        return { stdout: '', stderr: 'Error: Chart.yaml file is missing\n', code: 1 };
      }
    }
    if (args[0] === 'template') {
      const merged = Object.assign({}, ...values.map((v) => JSON.parse(v.text) as object)) as { image?: string; greeting?: string; password?: string };
      if (!merged.image)
        return {
          stdout: '',
          stderr: 'Error: execution error at (test/templates/deployment.yaml:29:20): set image\n\nUse --debug flag to render out invalid YAML\n',
          code: 1,
        };
      const secret =
        merged.password === undefined ? '' : `---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: ${args[1]}\nstringData:\n  password: ${merged.password}\n`;
      return {
        stdout: `---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${args[1]}\ndata:\n  greeting: ${merged.greeting ?? 'hello'}\n  image: ${merged.image}\n${secret}`,
        stderr: '',
        code: 0,
      };
    }
    return { stdout: '', stderr: '', code: 0 };
  };
}
