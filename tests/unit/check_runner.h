/*
 * The main() of a unit test program: run its suite with check and turn
 * the result into the exit status automake's test driver reads.
 */
#ifndef DCISTAT_TESTS_UNIT_CHECK_RUNNER_H
#define DCISTAT_TESTS_UNIT_CHECK_RUNNER_H

#include <check.h>
#include <stdlib.h>

/* Runs every test of `suite` (and frees it): EXIT_FAILURE when any test
 * failed, else EXIT_SUCCESS. */
static inline int
unit_run_suite(Suite *suite)
{
	SRunner *runner = srunner_create(suite);
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
