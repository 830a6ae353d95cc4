/* SPDX-License-Identifier: GPL-2.0 */
/* The one place the version is written; the Makefile and dkms.conf read it. */
#ifndef TSA_VERSION_H
#define TSA_VERSION_H
#define TSA_VERSION "0.1.0"
#endif
