# The generic workload (bench/generic/workload.mjs), pyinfra's way, on its own paths
# (/etc/pybench, pybench-N.service) so the tools never undo each other's work.
from pyinfra import host
from pyinfra.operations import files, server, systemd

PAYLOAD = "x" * 200
SYSCTLS = [
    ("net.ipv4.conf.all.log_martians", "1"),
    ("net.ipv4.conf.default.log_martians", "1"),
    ("net.ipv4.conf.all.accept_redirects", "0"),
    ("net.ipv4.conf.default.accept_redirects", "0"),
    ("net.ipv4.tcp_syncookies", "1"),
]

files.directory(name="directory", path="/etc/pybench", mode="755")
for i in range(1, 16):
    files.template(
        name=f"config file {i}", src="templates/file.conf.j2", dest=f"/etc/pybench/file-{i:02d}.conf",
        mode="644", item=i, hostname=host.name, payload=PAYLOAD,
    )
for i in range(1, 6):
    files.template(name=f"unit file {i}", src="templates/unit.service.j2", dest=f"/etc/systemd/system/pybench-{i}.service", mode="644", item=i)
server.packages(name="packages present", packages=["coreutils", "procps", "iproute2", "openssh-server", "sudo"], present=True)
for i in range(1, 6):
    systemd.service(name=f"unit {i}", service=f"pybench-{i}.service", running=True, enabled=True, daemon_reload=True)
for n, (key, value) in enumerate(SYSCTLS):
    server.sysctl(name=f"sysctl {key}", key=key, value=value, persist=True, persist_file=f"/etc/sysctl.d/9{n}-pybench.conf")
