#include "model/label_arena.h"

#include "model/large_block.h"

/* Below this a chunk is not worth its header and its allocation. */
#define LABEL_ARENA_CHUNK_MINIMUM ((size_t)4096)

struct dci_label_arena_chunk {
	struct dci_label_arena_chunk *older;
	size_t size; /* of the whole block, this header included */
	size_t used; /* bytes of `text` kept */
	char text[];
};

void
dci_label_arena_init(struct dci_label_arena *arena, size_t expected_bytes)
{
	*arena = (struct dci_label_arena){.first_chunk_bytes = expected_bytes};
}

static size_t
chunk_capacity(const struct dci_label_arena_chunk *chunk)
{
	return chunk->size - sizeof(*chunk);
}

char *
dci_label_arena_room(struct dci_label_arena *arena, size_t size)
{
	struct dci_label_arena_chunk *chunk = arena->chunk;
	size_t capacity;

	if (chunk != NULL && chunk_capacity(chunk) - chunk->used >= size)
		return chunk->text + chunk->used;
	/* The first chunk as large as the previous snapshot's labels and the
	 * room asked (the last label needs all of it); each later one twice
	 * its predecessor, so that a growing class takes few chunks. */
	capacity = chunk != NULL ? 2 * chunk_capacity(chunk)
	                         : arena->first_chunk_bytes + size;
	if (capacity < size)
		capacity = size;
	if (capacity < LABEL_ARENA_CHUNK_MINIMUM)
		capacity = LABEL_ARENA_CHUNK_MINIMUM;
	chunk = dci_large_block_alloc(sizeof(*chunk) + capacity);
	if (chunk == NULL)
		return NULL;
	chunk->older = arena->chunk;
	chunk->size = sizeof(*chunk) + capacity;
	chunk->used = 0;
	arena->chunk = chunk;
	return chunk->text;
}

void
dci_label_arena_keep(struct dci_label_arena *arena, size_t size)
{
	arena->chunk->used += size;
	arena->bytes += size;
}

void
dci_label_arena_free(struct dci_label_arena *arena)
{
	struct dci_label_arena_chunk *chunk = arena->chunk;

	while (chunk != NULL) {
		struct dci_label_arena_chunk *older = chunk->older;

		dci_large_block_free(chunk, chunk->size);
		chunk = older;
	}
	dci_label_arena_init(arena, 0);
}
