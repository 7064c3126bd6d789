#define _GNU_SOURCE
#include "model/large_block.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef MAP_POPULATE
#define LARGE_BLOCK_POPULATE MAP_POPULATE
#else
#define LARGE_BLOCK_POPULATE 0
#endif

static int
mapped(size_t size)
{
	return dci_large_block_zeroed(size);
}

void *
dci_large_block_alloc(size_t size)
{
	void *block;

	if (!mapped(size))
		return malloc(size > 0 ? size : 1);
	/* Populated at once: every block is filled right after (a builder
	 * grows to the size the class had), and one call costs less than a
	 * page fault per page. Small pages: transparent huge ones were
	 * tried and made a refresh dearer in the daemon when it is not
	 * pinned to one CPU (bench/scale, 2026-11-26: the figures are in
	 * bench/README.md's history, git log -p bench/README.md). */
	block = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | LARGE_BLOCK_POPULATE, -1, 0);
	return block != MAP_FAILED ? block : NULL;
}

void *
dci_large_block_resize(void *block, size_t old_size, size_t new_size)
{
	void *resized;

	if (block == NULL)
		return dci_large_block_alloc(new_size);
	if (!mapped(old_size) && !mapped(new_size))
		return realloc(block, new_size > 0 ? new_size : 1);
#ifdef MREMAP_MAYMOVE
	if (mapped(old_size) && mapped(new_size)) {
		resized = mremap(block, old_size, new_size, MREMAP_MAYMOVE);
		return resized != MAP_FAILED ? resized : NULL;
	}
#endif
	resized = dci_large_block_alloc(new_size);
	if (resized == NULL)
		return NULL;
	memcpy(resized, block, old_size < new_size ? old_size : new_size);
	dci_large_block_free(block, old_size);
	return resized;
}

void
dci_large_block_free(void *block, size_t size)
{
	if (block == NULL)
		return;
	if (mapped(size))
		munmap(block, size);
	else
		free(block);
}
