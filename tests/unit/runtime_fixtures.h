/*
 * Shared fixtures for the unit tests of the runtime (loader, host,
 * isolation): a plug-in made from a configuration text without loading a
 * module, and a capture of the warnings the log writes.
 *
 * Header-only; every function is static inline so that a test file which
 * does not use one gets no unused-function warning.
 */
#ifndef DCISTAT_TESTS_UNIT_RUNTIME_FIXTURES_H
#define DCISTAT_TESTS_UNIT_RUNTIME_FIXTURES_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "config/config.h"
#include "model/registry.h"
#include "runtime/loader.h"

/*
 * The plug-in of the first provider of configuration `text`, not started
 * (no module is opened), with a new registry; *config and *registry are
 * the caller's to free after dci_plugin_close.
 */
static inline struct dci_plugin *
rx_plugin_new(const char *text, struct dci_config **config,
    struct dci_registry **registry)
{
	struct dci_plugin *plugin;
	char error[512];

	ck_assert_msg(dci_config_parse(text, strlen(text), "t.yaml", config,
	                  error, sizeof(error)) == 0,
	    "config: %s", error);
	*registry = dci_registry_new();
	ck_assert_ptr_nonnull(*registry);
	plugin = dci_plugin_new(*config, 0, "/", *registry, -1);
	ck_assert_ptr_nonnull(plugin);
	return plugin;
}

/* The first messages logged while rx_log_capture is the sink, and how
 * many were logged in all; reset rx_logged_count before the step. */
__attribute__((unused)) static char rx_logged[8][1024];
__attribute__((unused)) static size_t rx_logged_count;

static inline void
rx_log_capture(int level, const char *message)
{
	(void)level;
	if (rx_logged_count < sizeof(rx_logged) / sizeof(rx_logged[0]))
		snprintf(rx_logged[rx_logged_count], sizeof(rx_logged[0]), "%s",
		    message);
	rx_logged_count++;
}

#endif
