#include "base/option_store.h"

bool
option_store_apply(const struct option_store *entries, size_t count, int option,
    const char *argument)
{
	for (size_t i = 0; i < count; i++) {
		if (entries[i].option != option)
			continue;
		if (entries[i].text != NULL)
			*entries[i].text = argument;
		else
			*entries[i].flag = true;
		return true;
	}
	return false;
}
