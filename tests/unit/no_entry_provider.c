/* A shared object that is not a provider: it has no dci_provider_entry. */
int no_entry_provider_function(void);

int
no_entry_provider_function(void)
{
	return 42;
}
