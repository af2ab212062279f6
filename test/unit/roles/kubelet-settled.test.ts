// After a restart the kubelet has taken its pods back once it has mounted every volume it wants
// (roles/kubelet/kubelet-settled.ts): read from its volume_manager_total_volumes metric.
import { describe, expect, it } from 'vitest';
import { kubeletVolumesScript, settled, volumeCounts } from '../../../roles/kubelet/kubelet-settled.js';

const metrics = (hostPathActual: number) => `# HELP volume_manager_total_volumes [ALPHA] Number of volumes in Volume Manager
# TYPE volume_manager_total_volumes gauge
volume_manager_total_volumes{plugin_name="kubernetes.io/configmap",state="actual_state_of_world"} 2
volume_manager_total_volumes{plugin_name="kubernetes.io/configmap",state="desired_state_of_world"} 2
volume_manager_total_volumes{plugin_name="kubernetes.io/host-path",state="actual_state_of_world"} ${hostPathActual}
volume_manager_total_volumes{plugin_name="kubernetes.io/host-path",state="desired_state_of_world"} 15
`;

describe('the kubelet settled after a restart', () => {
  it('sums the volumes it wants and has mounted over every plugin', () => {
    expect(volumeCounts(metrics(15))).toEqual({ desired: 17, actual: 17 });
    expect(volumeCounts(metrics(4))).toEqual({ desired: 17, actual: 6 });
  });

  it('is settled only once it wants volumes and has mounted them all', () => {
    expect(settled(volumeCounts(metrics(15)))).toBe(true);
    expect(settled(volumeCounts(metrics(14)))).toBe(false);
    // Right after the restart it wants nothing yet: not settled, and neither is an error text.
    expect(settled(volumeCounts(''))).toBe(false);
    expect(settled(volumeCounts('Error from server (ServiceUnavailable): the server is currently unable to handle the request'))).toBe(false);
  });

  it("reads this node's kubelet through the node proxy, and skips a host with no static pod or no answering API server", () => {
    const text = kubeletVolumesScript('cp1').text;
    expect(text).toMatch(/get --raw \/api\/v1\/nodes\/'?cp1'?\/proxy\/metrics/);
    expect(text).toContain("echo 'skip: no static pod manifest'");
    expect(text).toContain("echo 'skip: the API server does not answer'");
  });
});
