/*
 * Large blocks: arrays of a snapshot (model/snapshot.c) that are mapped on
 * their own when they are large, so that freeing one gives its pages back
 * to the system at once.
 *
 * Why not plain malloc: a class's next snapshot is built beside the one
 * served and the previous one is freed afterwards, so its arrays are a
 * hole below the top of malloc's heap (a refresh thread's arena, usually).
 * glibc returns heap memory from the top only, and after freeing one large
 * mapped block it raises its mmap threshold to that block's size, so every
 * later snapshot of the class lands in the heap. Left to malloc, a large
 * class kept two snapshots resident between refreshes instead of one.
 *
 * The caller keeps each block's size and gives it back on resize and free:
 * a block below DCI_LARGE_BLOCK_MAPPED bytes is malloc's, one at or above
 * it a mapping of its own.
 */
#ifndef DCISTAT_MODEL_LARGE_BLOCK_H
#define DCISTAT_MODEL_LARGE_BLOCK_H

#include <stddef.h>

/* glibc's own mmap threshold before it starts raising it. */
#define DCI_LARGE_BLOCK_MAPPED ((size_t)128 * 1024)

/* A block of `size` bytes (not zeroed), or NULL. */
void *dci_large_block_alloc(size_t size);
/* The block resized from `old_size` to `new_size` bytes, its first
 * min(old_size, new_size) bytes kept; NULL (and `block` untouched) when
 * out of memory. A NULL block is allocated. */
void *dci_large_block_resize(void *block, size_t old_size, size_t new_size);
/* Whether a block of `size` bytes comes zeroed: a mapping, whose bytes
 * not yet written (since it was allocated, or beyond the old size after a
 * resize) read as zero. */
static inline int
dci_large_block_zeroed(size_t size)
{
	return size >= DCI_LARGE_BLOCK_MAPPED;
}
/* Frees a block of `size` bytes (as allocated or last resized); NULL is
 * nothing. */
void dci_large_block_free(void *block, size_t size);

#endif
