#define _GNU_SOURCE

#include "refused_set.h"

#include <stdlib.h>
#include <string.h>

static size_t
bucket_of(const struct refused_set *set, dev_t device, ino_t inode)
{
	uint64_t key = (uint64_t)inode * UINT64_C(0x9e3779b97f4a7c15) ^
	               (uint64_t)device * UINT64_C(0xc2b2ae3d27d4eb4f);

	return (size_t)(key ^ key >> 29) & (set->bucket_count - 1);
}

static void
entry_free(struct refused_file *file)
{
	free(file->name);
	free(file->written_name);
	free(file);
}

struct refused_file *
refused_set_find(const struct refused_set *set, const struct stat *status)
{
	struct refused_file *file;

	if (set->bucket_count == 0)
		return NULL;
	file = set->buckets[bucket_of(set, status->st_dev, status->st_ino)];
	for (; file != NULL; file = file->next) {
		if (file->device == status->st_dev &&
		    file->inode == status->st_ino)
			return file;
	}
	return NULL;
}

bool
refused_file_current(const struct refused_file *file, const struct stat *status)
{
	return file->size == status->st_size &&
	       file->modified.tv_sec == status->st_mtim.tv_sec &&
	       file->modified.tv_nsec == status->st_mtim.tv_nsec;
}

/* Doubles the buckets when the set holds as many entries as buckets. */
static int
grow(struct refused_set *set)
{
	size_t count = set->bucket_count ? set->bucket_count * 2 : 64;
	struct refused_file **buckets = calloc(count, sizeof(*buckets));
	struct refused_set grown = {buckets, count, set->count};

	if (buckets == NULL)
		return -1;
	for (size_t b = 0; b < set->bucket_count; b++) {
		struct refused_file *file = set->buckets[b], *next;
		for (; file != NULL; file = next) {
			size_t to =
			    bucket_of(&grown, file->device, file->inode);
			next = file->next;
			file->next = buckets[to];
			buckets[to] = file;
		}
	}
	free(set->buckets);
	*set = grown;
	return 0;
}

struct refused_file *
refused_set_add(struct refused_set *set, const struct stat *status)
{
	struct refused_file *file;
	size_t bucket;

	if (set->count >= set->bucket_count && grow(set) != 0)
		return NULL;
	file = calloc(1, sizeof(*file));
	if (file == NULL)
		return NULL;
	file->device = status->st_dev;
	file->inode = status->st_ino;
	file->size = status->st_size;
	file->modified = status->st_mtim;
	file->uid = status->st_uid;
	file->seen = true;
	bucket = bucket_of(set, file->device, file->inode);
	file->next = set->buckets[bucket];
	set->buckets[bucket] = file;
	set->count++;
	return file;
}

void
refused_set_remove(struct refused_set *set, struct refused_file *file)
{
	struct refused_file **link =
	    &set->buckets[bucket_of(set, file->device, file->inode)];

	for (; *link != NULL; link = &(*link)->next) {
		if (*link == file) {
			*link = file->next;
			set->count--;
			entry_free(file);
			return;
		}
	}
}

void
refused_set_sweep(struct refused_set *set,
    bool (*visit)(struct refused_file *file, void *argument), void *argument)
{
	for (size_t b = 0; b < set->bucket_count; b++) {
		struct refused_file **link = &set->buckets[b];
		while (*link != NULL) {
			struct refused_file *file = *link;
			if (!visit(file, argument)) {
				link = &file->next;
				continue;
			}
			*link = file->next;
			set->count--;
			entry_free(file);
		}
	}
}

void
refused_set_clear(struct refused_set *set)
{
	for (size_t b = 0; b < set->bucket_count; b++) {
		struct refused_file *file = set->buckets[b], *next;
		for (; file != NULL; file = next) {
			next = file->next;
			entry_free(file);
		}
	}
	free(set->buckets);
	memset(set, 0, sizeof(*set));
}
