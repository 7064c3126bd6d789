/* A provider for the tests of what providers leave behind and of refreshes
 * that never return: one class {9, 30} "process" with one instance and a
 * refresh counter.
 *
 * With `spawn_file: PATH` (and `marker: TEXT`), a refresh, when PATH
 * exists, removes it and starts three `sleep 3600` whose argv[0] is
 * TEXT-SUFFIX, so that a test finds them in /proc/PID/cmdline:
 *   - TEXT-session: forked and execed, in the provider's session; it
 *     also holds a copy of the provider's descriptor 3 (an isolated
 *     provider's socket to dcistatd), as a helper forked without care
 *     would;
 *   - TEXT-below: a session of its own, still the provider's child;
 *   - TEXT-adopted: a session of its own, whose parent exits at once
 *     (a daemon's double fork): an orphan.
 * With `hang_while: PATH` a refresh blocks while PATH exists, with no
 * limit (a provider stuck for good); with `crash_while: PATH` a refresh
 * writes through a null pointer while PATH exists; with `fini_writes:
 * PATH` fini creates PATH, so that a test sees whether it ran. */
#define _GNU_SOURCE
#include <dcistat/provider.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct process_context {
	struct dci_class *class;
	uint64_t refreshes;
	char hang_while[256];
	char crash_while[256];
	char fini_writes[256];
	char spawn_file[256];
	char marker[128];
};

static const char *const process_option_keys[] = {
    "spawn_file", "marker", "hang_while", "crash_while", "fini_writes", NULL};

__attribute__((no_sanitize("undefined"))) static void
process_crash(void)
{
	volatile int *volatile nowhere = NULL;

	*nowhere = 1;
}

static void
option_copy(struct dci_host *host, const char *key, char *to, size_t size)
{
	const char *text = dci_option_string(host, key);

	snprintf(to, size, "%s", text != NULL ? text : "");
}

/* In a child: execs sleep 3600 as MARKER-SUFFIX. */
static void __attribute__((noreturn))
sleep_exec(const char *marker, const char *suffix)
{
	char name[256];

	snprintf(name, sizeof(name), "%s-%s", marker, suffix);
	execlp("sleep", name, "3600", (char *)NULL);
	_exit(127);
}

static void
process_spawn(const char *marker)
{
	pid_t middle;

	if (fork() == 0) {
		/* A copy of descriptor 3 that survives the exec. */
		if (fcntl(3, F_DUPFD, 10) < 0) {
		}
		sleep_exec(marker, "session");
	}
	if (fork() == 0) {
		setsid();
		sleep_exec(marker, "below");
	}
	middle = fork();
	if (middle == 0) {
		if (fork() == 0) {
			setsid();
			sleep_exec(marker, "adopted");
		}
		_exit(0);
	}
	if (middle > 0)
		waitpid(middle, NULL, 0);
}

static int
process_init(struct dci_host *host, void **context_out)
{
	static const uint32_t class_id[] = {9, 30};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DEVICE, 4},
	};
	static const struct dci_datum_info datums[] = {
	    {.id = 1,
	        .label = "refreshes",
	        .type = DCI_ST_INTEGER64,
	        .format = DCI_SIF_UNSIGNED,
	        .presentation = DCI_SIP_DECIMAL,
	        .volatility = DCI_SV_VOLATILE,
	        .unit = DCI_UNIT_EVENTS,
	        .semantics = DCI_SEMANTICS_COUNTER},
	};
	static const struct dci_supplier_info supplier_info = {
	    .module = "process",
	    .title = "Process test provider",
	    .version = 1,
	};
	struct dci_class_info class_info = {
	    .id = class_id,
	    .id_length = 2,
	    .label = "process",
	    .levels = levels,
	    .level_count = 1,
	    .datums = datums,
	    .datum_count = 1,
	};
	struct process_context *context = calloc(1, sizeof(*context));
	struct dci_supplier *supplier;

	if (context == NULL)
		return -1;
	*context_out = context;
	option_copy(host, "hang_while", context->hang_while,
	    sizeof(context->hang_while));
	option_copy(host, "crash_while", context->crash_while,
	    sizeof(context->crash_while));
	option_copy(host, "fini_writes", context->fini_writes,
	    sizeof(context->fini_writes));
	option_copy(host, "spawn_file", context->spawn_file,
	    sizeof(context->spawn_file));
	option_copy(host, "marker", context->marker, sizeof(context->marker));
	supplier = dci_supplier_register(host, &supplier_info);
	if (supplier == NULL)
		return -1;
	context->class = dci_class_register(host, supplier, &class_info);
	return context->class == NULL ? -1 : 0;
}

static int
process_refresh(struct dci_host *host, void *opaque)
{
	struct process_context *context = opaque;
	static const uint32_t id[] = {1};
	struct dci_batch *batch;
	long row;

	if (context->spawn_file[0] != '\0' && context->marker[0] != '\0' &&
	    unlink(context->spawn_file) == 0)
		process_spawn(context->marker);
	while (context->hang_while[0] != '\0' &&
	       access(context->hang_while, F_OK) == 0)
		usleep(10000);
	if (context->crash_while[0] != '\0' &&
	    access(context->crash_while, F_OK) == 0)
		process_crash();
	batch = dci_batch_begin(host, context->class);
	if (batch == NULL)
		return -1;
	row = dci_batch_instance(batch, id, 1, "one");
	if (row < 0 ||
	    dci_batch_set_unsigned(batch, row, 1, ++context->refreshes) != 0) {
		dci_batch_abort(batch);
		return -1;
	}
	return dci_batch_commit(batch);
}

static void
process_fini(struct dci_host *host, void *opaque)
{
	struct process_context *context = opaque;

	(void)host;
	if (context->fini_writes[0] != '\0') {
		int file = open(
		    context->fini_writes, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (file >= 0)
			close(file);
	}
	free(context);
}

DCI_PROVIDER_DEFINE = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .name = "process",
    .description = "test provider: processes left behind, stuck refreshes",
    .option_keys = process_option_keys,
    .init = process_init,
    .refresh = process_refresh,
    .fini = process_fini,
};
