// `kcluster lab up|down|status|deps`: throwaway hosts on this machine (systemd-nspawn containers, or QEMU VMs with --vm).
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { labUp, LabError } from '../../lab/lab-up.js';
import { labDown } from '../../lab/lab-down.js';
import { knownLabs, readLabInfo } from '../../lab/lab-state.js';
import { labStatusOf } from '../../lab/lab-status.js';
import type { VmSuite } from '../../lab/vm-lab.js';
import type { LabSuite } from '../../lab/lab-settings.js';
import { packageRoot } from '../../orchestrator/util/package-root.js';

function fail(cli: CliContext, error: unknown): void {
  if (error instanceof LabError) {
    for (const line of error.message.split('\n')) cli.stderr.write(`kcluster lab: ${line}\n`);
    cli.setExitCode(ExitCode.InvalidInput);
    return;
  }
  cli.stderr.write(`kcluster lab: ${(error as Error).message}\n`);
  cli.setExitCode(ExitCode.HostsFailed);
}

export function registerLabCommand(program: Command, cli: CliContext): void {
  const lab = program.command('lab').description('a lab of real hosts on this Linux machine (systemd-nspawn containers with systemd and sshd)');
  const quietLog = (line: string): void => {
    if (cli.env['KCLUSTER_LAB_VERBOSE']) cli.stderr.write(`  ${line}\n`);
  };

  lab
    .command('up')
    .description('start lab hosts and write an inventory for them (on a lab that is up: start again the hosts that stopped)')
    .option('--name <name>', 'lab name (hosts are <name>1..<name>N)', 'lab')
    .option('--hosts <n>', 'number of hosts', '3')
    .option('--control-planes <n>', 'how many of them are control planes', '1')
    .option('--privileged', 'hosts can run container runtimes and a kubelet')
    .option('--light', 'light hosts for scale tests: network namespace + sshd, no systemd (up to 240)')
    .option('--python', 'add python3 to the hosts (for comparing with Ansible; kcluster needs none)')
    .option('--subnet <cidr>', 'private /24 for the lab bridge', '10.231.0.0/24')
    .option('--bundle <path>', 'artifact bundle the written inventory installs from (see kcluster artifacts verify)')
    .option('--vm', 'virtual machines with a stock Debian kernel (QEMU; KVM where it can run one, else software emulation) instead of containers')
    .option('--suite <name>', 'the Debian release of the hosts, containers or VMs (bookworm or trixie)', 'bookworm')
    .option('--ipv6', 'IPv6 too: the bridge and hosts get unique-local addresses (fd00:231:0::/64 for 10.231.0.0/24), and the inventory is dual-stack')
    .action(
      async (options: {
        name: string;
        hosts: string;
        controlPlanes: string;
        privileged?: boolean;
        light?: boolean;
        python?: boolean;
        subnet: string;
        bundle?: string;
        vm?: boolean;
        suite: string;
        ipv6?: boolean;
      }) => {
        const started = Date.now();
        try {
          const { info, alreadyUp, restarted } = await labUp({
            name: options.name,
            hosts: Number(options.hosts),
            controlPlanes: Number(options.controlPlanes),
            privileged: options.privileged ?? false,
            light: options.light ?? false,
            python: options.python ?? false,
            subnet: options.subnet,
            ...(options.bundle !== undefined ? { bundle: resolve(cli.cwd, options.bundle) } : {}),
            ...(options.vm ? { vm: options.suite as VmSuite } : { suite: options.suite as LabSuite }),
            ...(options.ipv6 ? { ipv6: true } : {}),
            log: options.vm
              ? (line: string) =>
                  line.startsWith('VMs: ') || line.startsWith('vm-up: ') || line.startsWith('vm-base: ') ? cli.stderr.write(`  ${line}\n`) : quietLog(line)
              : quietLog,
          });
          cli.stdout.write(
            [
              alreadyUp
                ? `lab "${info.name}" is already up${restarted ? `; started again: ${restarted.join(', ')}` : ''}`
                : `lab "${info.name}" up: ${info.hosts} hosts in ${((Date.now() - started) / 1000).toFixed(1)} s`,
              ...info.hostList.map(
                (h) =>
                  `  ${h.name.padEnd(10)} ${h.address.padEnd(14)} ${h.ipv6Address !== undefined ? `${h.ipv6Address.padEnd(18)} ` : ''}${h.roles.join(',')}`,
              ),
              `inventory:   ${info.inventoryFile}`,
              `ssh:         ssh -F ${info.sshConfigFile} ${info.hostList[0]?.name ?? ''}`,
              ...(info.accelerator !== undefined ? [`VMs:         ${info.accelerator}`] : []),
              (info.privileged || info.vm !== undefined) && info.bundle !== undefined
                ? `next:        kcluster apply -i ${info.inventoryFile}`
                : `next:        kcluster run demo -i ${info.inventoryFile}`,
              '',
            ].join('\n'),
          );
        } catch (error) {
          fail(cli, error);
        }
      },
    );

  lab
    .command('down')
    .description('stop the lab and remove everything it created (the base image cache stays)')
    .option('--name <name>', 'lab name', 'lab')
    .option('--all', 'every lab on this machine')
    .action(async (options: { name: string; all?: boolean }) => {
      const names = options.all ? knownLabs() : [options.name];
      try {
        for (const name of names) {
          const result = await labDown(name, quietLog);
          cli.stdout.write(
            `lab "${name}" ${result.found ? 'down' : 'was not recorded; cleaned up whatever was left'} in ${(result.durationMs / 1000).toFixed(1)} s\n`,
          );
        }
      } catch (error) {
        fail(cli, error);
      }
    });

  lab
    .command('status')
    .description('labs on this machine and their hosts')
    .option('--name <name>', 'only this lab')
    .addOption(new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text'))
    .action((options: { name?: string; output: 'text' | 'json' }) => {
      const names = options.name ? [options.name] : knownLabs();
      const labs = names
        .map((n) => readLabInfo(n))
        .filter((i) => i !== undefined)
        .map(labStatusOf);
      if (options.output === 'json') {
        cli.stdout.write(`${JSON.stringify(labs, null, 2)}\n`);
        return;
      }
      if (labs.length === 0) cli.stdout.write('no lab is up\n');
      for (const l of labs) {
        cli.stdout.write(`lab "${l.name}" ${l.subnet}${l.privileged ? ' privileged' : ''}  inventory: ${l.inventory}\n`);
        for (const h of l.hosts)
          cli.stdout.write(`  ${h.name.padEnd(10)} ${h.address.padEnd(14)} ${h.roles.join(',').padEnd(14)} ${h.running ? 'running' : 'stopped'}\n`);
      }
    });

  lab
    .command('deps')
    .description('install the Debian/Ubuntu packages the lab needs (systemd-container, debootstrap, OpenSSH, iproute2), without recommends')
    .option('--vm', 'also QEMU, for `kcluster lab up --vm`')
    .option('--vagrant', "also Vagrant with libvirt and QEMU, for the vagrant/ labs (libvirt's NAT network stays off)")
    .action((options: { vm?: boolean; vagrant?: boolean }) => {
      const env = { ...cli.env, WITH_VM: options.vm || options.vagrant ? '1' : '0', WITH_VAGRANT: options.vagrant ? '1' : '0' };
      try {
        execFileSync('bash', [join(packageRoot(), 'src', 'lab', 'scripts', 'install-host-deps.sh')], { stdio: ['ignore', 'inherit', 'inherit'], env });
      } catch {
        cli.setExitCode(ExitCode.HostsFailed);
      }
    });
}
