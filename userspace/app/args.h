/* SPDX-License-Identifier: GPL-2.0 */
/*
 * app/args.h - the command line into struct options.
 */
#ifndef APP_ARGS_H
#define APP_ARGS_H

#include "options.h"

/*
 * Parse @argv into @o, with $TSA_PROC_DIR and $TSA_PROCFS; -h and
 * --version print and exit 0, a usage error prints why and the usage
 * and exits 2.
 */
void parse_args(struct options *o, int argc, char **argv);

#endif /* APP_ARGS_H */
