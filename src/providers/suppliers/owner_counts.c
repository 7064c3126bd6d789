#include "owner_counts.h"

#include <stdlib.h>
#include <string.h>

struct owner_count *
owner_counts_get(struct owner_counts *counts, uid_t uid)
{
	struct owner_count *grown;

	for (size_t i = 0; i < counts->count; i++) {
		if (counts->items[i].uid == uid)
			return &counts->items[i];
	}
	grown = realloc(counts->items, (counts->count + 1) * sizeof(*grown));
	if (grown == NULL)
		return NULL;
	counts->items = grown;
	memset(&grown[counts->count], 0, sizeof(*grown));
	grown[counts->count].uid = uid;
	return &grown[counts->count++];
}

void
owner_counts_clear(struct owner_counts *counts)
{
	free(counts->items);
	counts->items = NULL;
	counts->count = 0;
}
