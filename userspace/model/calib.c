// SPDX-License-Identifier: GPL-2.0
/*
 * model/calib.c - the module's calibration state, for the reports' note
 * and the exporter's series.
 */
#include <stdio.h>
#include <string.h>

#include "calib.h"

void tsa_calib_state(const char *proc_dir, char *out, size_t len)
{
	char path[4096], line[128];
	FILE *f;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/calibration", proc_dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "state ", 6)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s", line + 6);
			break;
		}
	fclose(f);
}
