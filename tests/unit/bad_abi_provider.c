/* A provider built for another ABI version: the loader must refuse it. */
#include <dcistat/provider.h>

static int
bad_abi_init(struct dci_host *host, void **context)
{
	(void)host;
	(void)context;
	return -1;
}

static int
bad_abi_refresh(struct dci_host *host, void *context)
{
	(void)host;
	(void)context;
	return -1;
}

DCI_PROVIDER_DEFINE = {
    .abi_version = DCI_PROVIDER_ABI_VERSION + 41,
    .name = "bad_abi",
    .init = bad_abi_init,
    .refresh = bad_abi_refresh,
};
