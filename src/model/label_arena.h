/*
 * The instance labels of one snapshot, in a few chunks instead of one
 * allocation each (model/snapshot.c builds them, model/snapshot_data.c
 * frees them with their snapshot). A refresh adds every instance's label
 * again, and one malloc and one free a label were most of what a refresh
 * still allocated per instance.
 *
 * Contract: a label stays where it was put until the arena is freed, and
 * nothing else frees it; whoever holds a label pointer (events, the DCI
 * server, the CLI) holds it no longer than the snapshot that owns the
 * arena, as with the labels allocated one by one before. Chunks are large
 * blocks (model/large_block.h) so that a large snapshot's labels go back
 * to the system with it.
 */
#ifndef DCISTAT_MODEL_LABEL_ARENA_H
#define DCISTAT_MODEL_LABEL_ARENA_H

#include <stddef.h>

struct dci_label_arena_chunk;

struct dci_label_arena {
	struct dci_label_arena_chunk *chunk; /* the newest; NULL: none yet */
	size_t first_chunk_bytes;            /* wanted for the first chunk */
	size_t bytes; /* of the labels kept, their NULs included */
};

/* An empty arena (nothing allocated) whose first chunk holds
 * `expected_bytes` of labels, as a class's previous snapshot had: a
 * refresh mostly rebuilds the same instances. */
void dci_label_arena_init(struct dci_label_arena *arena, size_t expected_bytes);
/* Room for `size` bytes at the end of the arena, or NULL when out of
 * memory. Nothing is kept until dci_label_arena_keep: the caller writes a
 * label of at most `size` bytes there, then keeps what it wrote. */
char *dci_label_arena_room(struct dci_label_arena *arena, size_t size);
/* Keeps the first `size` bytes of the room just given (at most its size):
 * the next room starts after them. */
void dci_label_arena_keep(struct dci_label_arena *arena, size_t size);
/* Frees every chunk and leaves the arena empty; an empty one is nothing. */
void dci_label_arena_free(struct dci_label_arena *arena);

#endif
