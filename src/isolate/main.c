/*
 * dcistat-isolate: the process an isolated provider runs in
 * (runtime/isolation.h). dcistatd starts it with its end of a socket pair as
 * descriptor 3 and nothing else to read; it is no program to run by hand.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "runtime/isolation.h"
#include "base/log.h"

int
main(int argc, char **argv)
{
	struct stat status;

	(void)argv;
	if (argc != 1 || fstat(3, &status) != 0 || !S_ISSOCK(status.st_mode)) {
		fprintf(stderr, "dcistat-isolate: run by dcistatd for a "
		                "provider with `isolate: true`, not by hand\n");
		return 2;
	}
	/* What the provider execs does not hold dcistatd's socket (nor
	 * what it forks once it ends: dcistatd watches this process). */
	fcntl(3, F_SETFD, FD_CLOEXEC);
	log_open("stderr", "dcistat-isolate");
	return dci_isolation_child_main(3);
}
