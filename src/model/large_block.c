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

/* A mapping of `size` bytes backed by transparent huge pages where the
 * kernel has them: one page of 2 MiB is allocated, charged and later
 * unmapped in one step instead of 512 (the zeroing stays: a snapshot is
 * new memory, the last one being still served while it is built). The
 * advice must come before the pages exist, so the block is populated
 * after it rather than by MAP_POPULATE. Without the advice (THP off, an
 * old kernel) it is an ordinary mapping; without MADV_POPULATE_WRITE
 * (before Linux 5.14) its pages come one fault at a time. */
static void *
huge_block_alloc(size_t size)
{
	void *block = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (block == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(block, size, MADV_HUGEPAGE);
#endif
#ifdef MADV_POPULATE_WRITE
	(void)madvise(block, size, MADV_POPULATE_WRITE);
#endif
	return block;
}

void *
dci_large_block_alloc(size_t size)
{
	void *block;

	if (!mapped(size))
		return malloc(size > 0 ? size : 1);
	if (size >= DCI_LARGE_BLOCK_HUGE)
		return huge_block_alloc(size);
	/* Populated at once: every block is filled right after (a builder
	 * grows to the size the class had), and one call costs less than a
	 * page fault per page. */
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
		if (resized == MAP_FAILED)
			return NULL;
#ifdef MADV_HUGEPAGE
		/* Pages added later (faults) may then be huge ones. */
		if (old_size < DCI_LARGE_BLOCK_HUGE &&
		    new_size >= DCI_LARGE_BLOCK_HUGE)
			(void)madvise(resized, new_size, MADV_HUGEPAGE);
#endif
		return resized;
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
