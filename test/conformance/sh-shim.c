/*
 * /bin/sh of kcluster's e2e test images (build-test-images.sh): busybox ash, as in upstream's
 * busybox image, except when the environment holds a variable whose name is not a shell
 * identifier (data-1, p-data-1): then bash.
 *
 * Why: busybox ash up to 1.35 (Debian 12's busybox-static) drops such variables before it runs a
 * command; ash of 1.36 and later passes them on, and the Conformance specs "ConfigMap should be
 * consumable via the environment" and "Secrets should be consumable as environment variable
 * names with various prefixes" run `sh -c env` with them and expect to see them. Bash passes them
 * on too, but its messages differ from ash's, which other specs compare byte for byte ("Kubelet
 * ... read only busybox container": "/bin/sh: can't create /file: Read-only file system").
 * Drop this shim once Debian's busybox-static is 1.36 or later.
 *
 * argv is passed as it is: busybox picks its applet from argv[0] ("sh", "/bin/sh").
 */
#include <string.h>
#include <unistd.h>

extern char **environ;

static int is_name_char(char c, int first) {
	return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (!first && c >= '0' && c <= '9');
}

/* "NAME=value" with NAME a shell identifier (or no '=' at all: not a variable). */
static int shell_variable(const char *entry) {
	const char *p;
	if (strchr(entry, '=') == NULL)
		return 1;
	for (p = entry; *p != '='; p++)
		if (!is_name_char(*p, p == entry))
			return 0;
	return p != entry;
}

int main(int argc, char **argv) {
	char **e;
	(void)argc;
	for (e = environ; e != NULL && *e != NULL; e++) {
		if (!shell_variable(*e)) {
			execv("/bin/bash-static", argv);
			break;
		}
	}
	execv("/bin/busybox", argv);
	return 127;
}
