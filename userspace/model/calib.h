/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model/calib.h - what the module says of its calibration
 * (/proc/tsa/calibration's "state" line; tsa(4)).
 */
#ifndef MODEL_CALIB_H
#define MODEL_CALIB_H

#include <stddef.h>

/*
 * @proc_dir's calibration state ("applied", "partial", "none", "off")
 * into @out; "" if the module does not say (older, or not loaded).
 */
void tsa_calib_state(const char *proc_dir, char *out, size_t len);

#endif /* MODEL_CALIB_H */
