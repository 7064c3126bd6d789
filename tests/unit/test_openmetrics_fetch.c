/*
 * Unit tests for the openmetrics provider's scrapes run at once
 * (src/providers/openmetrics/openmetrics_fetch.c), against loopback
 * listening sockets the test answers itself: a transfer still running at
 * the deadline is reported by none and goes on at the next drive; one that
 * ends is reported with its body; a target's timeout ends a transfer that
 * has no answer, over several drives.
 */
#define _GNU_SOURCE
#include <check.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_runner.h"
#include "providers/common/clock.h"
#include "providers/openmetrics/openmetrics_fetch.h"

/* A loopback TCP socket listening on a port of the kernel's choice: the
 * kernel completes a client's connection before it is accepted, so a
 * transfer to it waits for an answer the test writes when it chooses. */
static int
listener(char *url, size_t url_size)
{
	struct sockaddr_in address = {
	    .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t length = sizeof(address);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(
	    bind(fd, (struct sockaddr *)&address, sizeof(address)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	ck_assert_int_eq(
	    getsockname(fd, (struct sockaddr *)&address, &length), 0);
	snprintf(url, url_size, "http://127.0.0.1:%u/metrics",
	    (unsigned)ntohs(address.sin_port));
	return fd;
}

/* Accepts the waiting connection and answers it whole. */
static void
answer(int listen_fd, const char *body)
{
	char request[4096], head[128];
	int fd = accept(listen_fd, NULL, NULL);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_gt(read(fd, request, sizeof(request)), 0);
	int length = snprintf(head, sizeof(head),
	    "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: "
	    "close\r\n\r\n",
	    strlen(body));
	ck_assert_int_eq(write(fd, head, (size_t)length), length);
	ck_assert_int_eq(write(fd, body, strlen(body)), (ssize_t)strlen(body));
	close(fd);
}

static struct om_target_config
config_of(char *url, unsigned timeout_ms)
{
	struct om_target_config config = {.url = url, .timeout_ms = timeout_ms};
	snprintf(config.name, sizeof(config.name), "t");
	return config;
}

START_TEST(late_transfer_goes_on_at_the_next_drive)
{
	char fast_url[64], slow_url[64], why[256];
	int fast_fd = listener(fast_url, sizeof(fast_url));
	int slow_fd = listener(slow_url, sizeof(slow_url));
	struct om_target_config fast = config_of(fast_url, 5000);
	struct om_target_config slow = config_of(slow_url, 5000);
	struct om_body fast_body = {0}, slow_body = {0};
	struct om_fetch_set *set = om_fetch_set_new(2);
	int status = 1;

	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(om_fetch_start(set, 0, &slow, &slow_body, 1 << 20, why,
	                     sizeof(why)),
	    0);
	ck_assert_int_eq(om_fetch_start(set, 1, &fast, &fast_body, 1 << 20, why,
	                     sizeof(why)),
	    0);
	/* Nobody answered yet: the deadline ends the drive, both run. */
	uint64_t deadline = provider_monotonic_microseconds() + 200000;
	ck_assert_int_eq(
	    om_fetch_next(set, deadline, &status, why, sizeof(why)), -1);
	ck_assert(provider_monotonic_microseconds() >= deadline);
	ck_assert(om_fetch_running(set, 0) && om_fetch_running(set, 1));

	/* The fast one answers: it is reported, the slow one still runs. */
	answer(fast_fd, "fast 1\n");
	deadline = provider_monotonic_microseconds() + 2000000;
	ck_assert_int_eq(
	    om_fetch_next(set, deadline, &status, why, sizeof(why)), 1);
	ck_assert_int_eq(status, 0);
	ck_assert_str_eq(fast_body.bytes, "fast 1\n");
	ck_assert(!om_fetch_running(set, 1));
	ck_assert(om_fetch_running(set, 0));
	deadline = provider_monotonic_microseconds() + 100000;
	ck_assert_int_eq(
	    om_fetch_next(set, deadline, &status, why, sizeof(why)), -1);

	/* The slow one's answer, written between two drives, is read by
	 * the next: its transfer was carried over, not started again. */
	answer(slow_fd, "slow 2\n");
	deadline = provider_monotonic_microseconds() + 2000000;
	ck_assert_int_eq(
	    om_fetch_next(set, deadline, &status, why, sizeof(why)), 0);
	ck_assert_int_eq(status, 0);
	ck_assert_str_eq(slow_body.bytes, "slow 2\n");
	ck_assert_int_eq(
	    om_fetch_next(set, deadline, &status, why, sizeof(why)), -1);

	om_fetch_set_free(set);
	free(fast_body.bytes);
	free(slow_body.bytes);
	close(fast_fd);
	close(slow_fd);
}
END_TEST

START_TEST(timeout_counts_from_the_start_over_drives)
{
	char url[64], why[256];
	int fd = listener(url, sizeof(url));
	struct om_target_config config = config_of(url, 600);
	struct om_body body = {0};
	struct om_fetch_set *set = om_fetch_set_new(1);
	uint64_t started = provider_monotonic_microseconds();
	long slot = -1;
	int status = 0, drives = 0;

	ck_assert_ptr_nonnull(set);
	ck_assert_int_eq(
	    om_fetch_start(set, 0, &config, &body, 1 << 20, why, sizeof(why)),
	    0);
	/* Drives of 100 ms, as refreshes' budgets, with pauses between. */
	while (slot < 0 && drives < 50) {
		uint64_t deadline = provider_monotonic_microseconds() + 100000;
		slot = om_fetch_next(set, deadline, &status, why, sizeof(why));
		drives++;
		usleep(100000);
	}
	uint64_t spent_ms =
	    (provider_monotonic_microseconds() - started) / 1000;
	ck_assert_int_eq(slot, 0);
	ck_assert_int_eq(status, -1);
	ck_assert_msg(strstr(why, "timed out") != NULL, "%s", why);
	/* Ended by its 600 ms, not by a drive's 100 ms nor never. */
	ck_assert_msg(drives >= 2 && spent_ms < 5000, "%d drives, %llu ms: %s",
	    drives, (unsigned long long)spent_ms, why);
	ck_assert(!om_fetch_running(set, 0));
	om_fetch_set_free(set);
	free(body.bytes);
	close(fd);
}
END_TEST

START_TEST(body_past_the_bound_fails)
{
	char url[64], why[256], big[8192];
	int fd = listener(url, sizeof(url));
	struct om_target_config config = config_of(url, 5000);
	struct om_body body = {0};
	struct om_fetch_set *set = om_fetch_set_new(1);
	int status = 0;

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(
	    om_fetch_start(set, 0, &config, &body, 1024, why, sizeof(why)), 0);
	/* A first drive connects and sends the request. */
	uint64_t deadline = provider_monotonic_microseconds() + 100000;
	ck_assert_int_eq(
	    om_fetch_next(set, deadline, &status, why, sizeof(why)), -1);
	answer(fd, big);
	deadline = provider_monotonic_microseconds() + 2000000;
	ck_assert_int_eq(
	    om_fetch_next(set, deadline, &status, why, sizeof(why)), 0);
	ck_assert_int_eq(status, -1);
	ck_assert_str_eq(why, "body of more than 1024 bytes");
	ck_assert(body.length <= 1024);
	om_fetch_set_free(set);
	free(body.bytes);
	close(fd);
}
END_TEST

int
main(void)
{
	Suite *suite = suite_create("openmetrics_fetch");
	TCase *fetch = tcase_create("fetch");

	tcase_set_timeout(fetch, 30);
	tcase_add_test(fetch, late_transfer_goes_on_at_the_next_drive);
	tcase_add_test(fetch, timeout_counts_from_the_start_over_drives);
	tcase_add_test(fetch, body_past_the_bound_fails);
	suite_add_tcase(suite, fetch);
	if (om_fetch_global_init() != 0)
		return EXIT_FAILURE;
	int result = unit_run_suite(suite);
	om_fetch_global_cleanup();
	return result;
}
