/* The host side of the provider ABI: the operations table every provider
 * calls through (struct dci_host_operations in provider.h). */
#ifndef DCISTAT_HOST_H
#define DCISTAT_HOST_H

#include <dcistat/provider.h>
#include <stdbool.h>

extern const struct dci_host_operations dci_host_operations;

struct dci_plugin;
/* Aborts every batch the provider left open (a provider bug: logged). */
void dci_host_abort_open_batches(struct dci_plugin *plugin);

#endif
