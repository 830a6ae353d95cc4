// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_calibration.c - /proc/tsa/calibration as the reports read it:
 * tsa_calib_state() (it takes the module's directory: the input is
 * written to calibration in one of this process's own).
 */
#include "fuzz.h"
#include "calib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[4200], out[12];

	fuzz_file("calibration", data, size, path, sizeof(path));
	memset(out, 'x', sizeof(out));
	tsa_calib_state(fuzz_dir(), out, sizeof(out));
	if (!memchr(out, '\0', sizeof(out)))
		abort();	/* the state is cut to its buffer */
	return 0;
}
