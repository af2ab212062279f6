// A read-only container registry for the end-to-end tests (test-only, not part of kcluster):
// test/conformance/registry.mjs serving one image from an OCI layout archive of the bundle
// under any repository and tag, on the lab bridge's address, behind HTTP Basic authentication;
// its counts show that a node pulled through it.
import { openLayout, startRegistry, type Registry } from '../../conformance/registry.mjs';

export type TestRegistry = Registry;

export async function startTestRegistry(archive: string, host: string, user: string, password: string): Promise<TestRegistry> {
  const layout = openLayout(archive);
  const registry = await startRegistry({ host, layoutFor: () => layout, credentials: { user, password } });
  return { ...registry, close: async () => (await registry.close(), layout.remove()) };
}
