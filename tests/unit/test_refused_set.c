/*
 * Unit tests for the suppliers provider's refused set
 * (src/providers/suppliers/refused_set.c: indexed by inode, a changed file
 * no longer current, entries removed and swept) and its owner check
 * (segment_owner.c: a segment's process must exist, run as the file's
 * owner, have the recorded start time and not be a zombie).
 */
#define _GNU_SOURCE
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "providers/suppliers/refused_set.h"
#include "providers/suppliers/segment_owner.h"

#define FILES 10000u

static struct stat
file_status(ino_t inode, off_t size)
{
	struct stat status;

	memset(&status, 0, sizeof(status));
	status.st_dev = 8;
	status.st_ino = inode;
	status.st_size = size;
	status.st_mtim.tv_sec = 1000;
	status.st_uid = (uid_t)(inode % 3);
	return status;
}

START_TEST(refused_set_finds_every_file_and_notices_changes)
{
	struct refused_set set = {0};

	for (ino_t i = 1; i <= FILES; i++) {
		struct stat status = file_status(i, 100);
		ck_assert_ptr_null(refused_set_find(&set, &status));
		ck_assert_ptr_nonnull(refused_set_add(&set, &status));
	}
	ck_assert_uint_eq(set.count, FILES);
	ck_assert_uint_ge(set.bucket_count, FILES);
	for (ino_t i = 1; i <= FILES; i++) {
		struct stat status = file_status(i, 100);
		struct refused_file *found = refused_set_find(&set, &status);
		ck_assert_ptr_nonnull(found);
		ck_assert_uint_eq(found->inode, i);
		ck_assert_uint_eq(found->uid, i % 3);
		ck_assert(refused_file_current(found, &status));
	}
	{
		struct stat grown = file_status(7, 101);
		struct stat touched = file_status(8, 100);
		touched.st_mtim.tv_nsec = 1;
		ck_assert(!refused_file_current(
		    refused_set_find(&set, &grown), &grown));
		ck_assert(!refused_file_current(
		    refused_set_find(&set, &touched), &touched));
		refused_set_remove(&set, refused_set_find(&set, &grown));
		ck_assert_ptr_null(refused_set_find(&set, &grown));
		ck_assert_uint_eq(set.count, FILES - 1);
	}
	refused_set_clear(&set);
	ck_assert_uint_eq(set.count, 0);
}
END_TEST

static bool
odd_inode(struct refused_file *file, void *argument)
{
	(*(size_t *)argument)++;
	return file->inode % 2 == 1;
}

START_TEST(refused_set_sweep_removes_what_visit_says)
{
	struct refused_set set = {0};
	size_t visited = 0;

	for (ino_t i = 1; i <= 1000; i++) {
		struct stat status = file_status(i, 10);
		struct refused_file *file = refused_set_add(&set, &status);
		ck_assert_ptr_nonnull(file);
		file->name = strdup("x.dciseg"); /* freed with the entry */
	}
	refused_set_sweep(&set, odd_inode, &visited);
	ck_assert_uint_eq(visited, 1000);
	ck_assert_uint_eq(set.count, 500);
	for (ino_t i = 1; i <= 1000; i++) {
		struct stat status = file_status(i, 10);
		ck_assert(
		    (refused_set_find(&set, &status) != NULL) == (i % 2 == 0));
	}
	refused_set_clear(&set);
}
END_TEST

/* Field 22 of /proc/PID/stat. */
static uint64_t
start_of(pid_t pid)
{
	char path[64], text[1024];
	unsigned long long start = 0;
	const char *field;
	FILE *file;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	file = fopen(path, "r");
	ck_assert_ptr_nonnull(file);
	ck_assert_ptr_nonnull(fgets(text, sizeof(text), file));
	fclose(file);
	field = strrchr(text, ')');
	for (int i = 0; i < 20 && field != NULL; i++)
		field = strchr(field + 1, ' ');
	ck_assert_ptr_nonnull(field);
	ck_assert_int_eq(sscanf(field + 1, "%llu", &start), 1);
	return start;
}

START_TEST(owner_counts_only_as_the_files_owner_with_its_start)
{
	uint32_t self = (uint32_t)getpid();
	uint64_t start = start_of(getpid());
	char why[256];

	ck_assert(segment_owner_check(self, start, getuid(), why, sizeof(why)));
	ck_assert(!segment_owner_check(self, 0, getuid(), why, sizeof(why)));
	ck_assert_ptr_nonnull(
	    strstr(why, "it records no start time for its process"));
	ck_assert(
	    !segment_owner_check(self, start + 1, getuid(), why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "is gone (that pid now belongs"));
	ck_assert(!segment_owner_check(
	    self, start, getuid() + 4242, why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "not as the file's owner"));
	ck_assert(!segment_owner_check(0, start, getuid(), why, sizeof(why)));
	ck_assert(!segment_owner_check(
	    (uint32_t)INT32_MAX + 1u, start, getuid(), why, sizeof(why)));
	ck_assert(segment_owner_exists(self));
	ck_assert(!segment_owner_exists(0));
}
END_TEST

START_TEST(owner_gone_when_a_zombie)
{
	char why[256], expected[128];
	uint64_t start;
	pid_t child = fork();

	ck_assert_int_ge(child, 0);
	if (child == 0) {
		pause();
		_exit(0);
	}
	start = start_of(child);
	ck_assert(segment_owner_check(
	    (uint32_t)child, start, getuid(), why, sizeof(why)));
	kill(child, SIGKILL);
	/* Not reaped: a zombie, its pid and start time unchanged. */
	for (int i = 0; i < 200; i++) {
		siginfo_t info = {0};
		if (waitid(P_PID, (id_t)child, &info, WEXITED | WNOWAIT) == 0 &&
		    info.si_pid == child)
			break;
		usleep(10000);
	}
	ck_assert(segment_owner_exists((uint32_t)child));
	ck_assert(!segment_owner_check(
	    (uint32_t)child, start, getuid(), why, sizeof(why)));
	snprintf(expected, sizeof(expected),
	    "its process %ld exited (its parent has not reaped it yet)",
	    (long)child);
	ck_assert_str_eq(why, expected);
	waitpid(child, NULL, 0);
	ck_assert(!segment_owner_check(
	    (uint32_t)child, start, getuid(), why, sizeof(why)));
}
END_TEST

static Suite *
refused_set_suite(void)
{
	Suite *suite = suite_create("refused_set");
	TCase *set = tcase_create("refused set");
	TCase *owner = tcase_create("owner");

	tcase_add_test(set, refused_set_finds_every_file_and_notices_changes);
	tcase_add_test(set, refused_set_sweep_removes_what_visit_says);
	suite_add_tcase(suite, set);
	tcase_add_test(
	    owner, owner_counts_only_as_the_files_owner_with_its_start);
	tcase_add_test(owner, owner_gone_when_a_zombie);
	suite_add_tcase(suite, owner);
	return suite;
}

int
main(void)
{
	SRunner *runner = srunner_create(refused_set_suite());
	int failed;

	srunner_set_fork_status(runner, CK_NOFORK);
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
