// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_webconfig.c - tsa-exporter's --web.config.file: web_config_read()
 * of the input written to a file (in a directory of its own, where the
 * relative cert_file and key_file it may name are looked for: c.pem and
 * k.pem are there, small PEM-looking files).
 */
#include "fuzz.h"
#include "webconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char pem[] = "-----BEGIN CERTIFICATE-----\nAA==\n"
		"-----END CERTIFICATE-----\n";
	struct web_config wc = { 0 };
	char path[4200], err[512];
	static int ready;

	if (!ready) {
		fuzz_file("c.pem", pem, sizeof(pem) - 1, path, sizeof(path));
		fuzz_file("k.pem", pem, sizeof(pem) - 1, path, sizeof(path));
		ready = 1;
	}
	fuzz_file("web.yml", data, size, path, sizeof(path));
	err[0] = '\0';
	if (web_config_read(path, &wc, err, sizeof(err)) &&
	    (!err[0] || strchr(err, '\n')))
		abort();	/* a refusal is one line, with its reason */
	web_config_free(&wc);
	return 0;
}
