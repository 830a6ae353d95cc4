/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exporter/webconfig.h - the web configuration file of Prometheus's
 * exporters (exporter-toolkit's --web.config.file), the part tsa-exporter
 * does: TLS with a certificate and key, and basic auth with bcrypt hashes.
 *
 *	tls_server_config:
 *	  cert_file: server.crt
 *	  key_file: server.key
 *	basic_auth_users:
 *	  alice: $2y$10$...
 *
 * Relative paths are the file's directory's. Any other setting is refused
 * rather than ignored: a security setting must not go quietly unapplied.
 */
#ifndef EXPORTER_WEBCONFIG_H
#define EXPORTER_WEBCONFIG_H

#include <stddef.h>

struct web_user {
	char *name, *hash;
};

struct web_config {
	char *cert_pem, *key_pem;	/* NULL: plain HTTP */
	struct web_user *users;		/* none: no authentication */
	size_t nusers;
};

/* Read @path into @wc; 0, or -1 with why in @err. */
int web_config_read(const char *path, struct web_config *wc, char *err,
		    size_t errlen);
/* Does @user with @password match one of @wc's users? */
int web_config_check(const struct web_config *wc, const char *user,
		     const char *password);
void web_config_free(struct web_config *wc);

#endif /* EXPORTER_WEBCONFIG_H */
