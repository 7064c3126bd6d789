/*
 * loop_control: creates and removes loop block devices through
 * /dev/loop-control, so that the devstat integration test can make a disk
 * vanish from /proc/diskstats and come back with the same major:minor.
 * losetup(8) only attaches and detaches files; a detached loop device stays
 * listed with its counters.
 *
 *   loop_control add N      create /dev/loopN (exit 2 if it exists)
 *   loop_control remove N   remove /dev/loopN (it must be detached)
 *
 * Exit status: 0 done, 1 failed, 2 loopN already exists (add).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	unsigned long request, number;
	char *end;
	int control, result;

	if (argc != 3 ||
	    (strcmp(argv[1], "add") != 0 && strcmp(argv[1], "remove") != 0)) {
		fprintf(stderr, "usage: loop_control add|remove NUMBER\n");
		return 1;
	}
	errno = 0;
	number = strtoul(argv[2], &end, 10);
	if (errno != 0 || *end != '\0' || end == argv[2] || number > 1048575) {
		fprintf(stderr,
		    "loop_control: %s: expected a loop device "
		    "number\n",
		    argv[2]);
		return 1;
	}
	request = strcmp(argv[1], "add") == 0 ? LOOP_CTL_ADD : LOOP_CTL_REMOVE;
	control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (control < 0) {
		fprintf(stderr, "loop_control: /dev/loop-control: %s\n",
		    strerror(errno));
		return 1;
	}
	result = ioctl(control, request, number);
	if (result < 0) {
		int saved = errno;
		fprintf(stderr, "loop_control: %s loop%lu: %s\n", argv[1],
		    number, strerror(saved));
		close(control);
		return request == LOOP_CTL_ADD && saved == EEXIST ? 2 : 1;
	}
	close(control);
	return 0;
}
