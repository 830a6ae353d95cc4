// SPDX-License-Identifier: GPL-2.0
/*
 * lib/procfs.c - what tsa-prstat reads of procfs beside the module's
 * files (lib/procfs.h): the layers above ask here, none opens /proc/PID
 * itself.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"

void cgroup_of(char *out, size_t len, const char *procfs, uint64_t pid)
{
	char path[256], buf[4096], *line, *save = NULL;
	ssize_t n;
	int fd;

	snprintf(out, len, "?");
	snprintf(path, sizeof(path), "%s/%" PRIu64 "/cgroup", procfs, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	/* cgroup v2 is the hierarchy numbered 0 with no controllers. */
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "0::", 3) && line[3]) {
			snprintf(out, len, "%s", line + 3);
			return;
		}
}
