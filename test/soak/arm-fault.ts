// A planned fault made ready for one command: when it lands (its share of the command's expected
// duration) and what it does then: SIGINT or SIGKILL to the kcluster process, or a host fault to
// the host it picks among the command's hosts. `healed` is what the soak awaits before it
// resumes: at once for a signal, the host answering over SSH again for a host fault.
import type { ChildProcess } from 'node:child_process';
import type { Topology } from './cluster-model.js';
import { faultHost, type PlannedFault } from './faults.js';
import { cutLink, killSshd, powerCycle, type HostFaultDone } from './host-faults.js';
import type { FaultToDeliver } from './kcluster-run.js';

export interface ArmedFault {
  readonly toDeliver: FaultToDeliver;
  readonly healed: () => Promise<void>;
}

export function armFault(fault: PlannedFault, expectedMs: number, hosts: readonly number[], topology: Topology): ArmedFault {
  let healed: Promise<void> = Promise.resolve();
  const onHost = async (done: Promise<HostFaultDone>): Promise<string> => {
    const { what, healed: whenHealed } = await done;
    healed = whenHealed;
    return what;
  };
  const deliver = async (child: ChildProcess): Promise<string> => {
    const host = faultHost(fault, hosts);
    switch (fault.kind) {
      case 'SIGINT':
      case 'SIGKILL':
        child.kill(fault.kind);
        return fault.kind;
      case 'link-cut':
        return onHost(cutLink(host, fault.downSeconds));
      case 'sshd-kill':
        return onHost(killSshd(host));
      case 'power-cycle':
        return onHost(powerCycle(host, topology));
    }
  };
  return { toDeliver: { atMs: Math.round(fault.at * expectedMs), deliver }, healed: () => healed };
}
