import { it } from 'vitest';
import { formatDiagnostic, loadInventory } from '../../../src/inventory/load-inventory.js';
import { renderEffectiveConfig } from '../../../src/inventory/effective-config.js';
it('probe', async () => {
  for (const f of ['valid-ha', 'many-errors', 'yaml-syntax', 'even-etcd']) {
    const r = await loadInventory(`test/fixtures/inventory/${f}.yaml`, { env: {}, homeDir: '/nonexistent' });
    console.log(`--- ${f}\n` + [...(r.ok ? [] : r.errors), ...r.warnings].map(formatDiagnostic).join('\n'));
    if (r.ok && f === 'valid-ha') console.log(renderEffectiveConfig(r.inventory, 'yaml'));
  }
});
