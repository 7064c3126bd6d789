#include "model/snapshot_data.h"

#include <stdlib.h>

#include "model/large_block.h"

void
dci_snapshot_columns_free(struct dci_snapshot_column *columns, size_t count)
{
	if (columns == NULL)
		return;
	for (size_t d = 0; d < count; d++)
		free(columns[d].positions);
	free(columns);
}

void
dci_snapshot_free(struct dci_snapshot *snapshot)
{
	if (snapshot == NULL)
		return;
	dci_label_arena_free(&snapshot->labels);
	dci_large_block_free(snapshot->ids, snapshot->ids_bytes);
	dci_large_block_free(snapshot->instances, snapshot->instances_bytes);
	dci_large_block_free(snapshot->values, snapshot->values_bytes);
	dci_large_block_free(snapshot->present, snapshot->present_bytes);
	free(snapshot->parents);
	dci_snapshot_columns_free(snapshot->columns, snapshot->column_count);
	free(snapshot);
}
