/* A provider for the loader tests: one class {9, 1} with a counter, a
 * string and a 32-bit counter, `instances` instances (option, default 3)
 * whose counter is 100 * id + the refresh number, a `fail_refresh` option
 * that makes every refresh after the first fail, and a `parents` yes/no
 * option that makes instance 1 the parent of every other, an
 * `invalid_even` yes/no option that marks the counter of even instances
 * invalid, a `refresh_limit` option (milliseconds) passed to dci_refresh_limit
 * in init, and a `discontinuous` option (an instance id) that declares that
 * instance discontinuous in every refresh after the first. Two options
 * make failures come and go from outside, for the lifecycle tests: with
 * `init_needs: PATH` init fails while PATH does not exist, and with
 * `refresh_fails_while: PATH` a refresh fails while PATH exists; with
 * `refresh_sleeps_while: PATH` a refresh blocks while PATH exists (at most
 * a minute), as a provider stuck on a slow device would. With
 * `count32_file: PATH` every instance's count32 (datum 3, a 32-bit unsigned
 * counter) is the number PATH holds, read at each refresh, so a test can
 * make a Counter32 wrap at 2^32 or start over; a refresh fails while PATH
 * cannot be read or holds anything but a number below 2^32 (replace it by
 * a rename, never in place). Without the option count32 has no value.
 * With `dynamic_supplier_file: PATH` the provider's suppliers come and go
 * from refresh, as a provider serving other processes' do: while PATH
 * exists and holds a number N, each refresh registers supplier "dynamic"
 * with class {9, 2} "dynamic" (datum 1, a counter) if it is not
 * registered, and commits N instances; "N gone" commits them, begins
 * another batch and withdraws the supplier in the same refresh; once PATH
 * is absent the supplier is withdrawn. Each withdrawal also checks the
 * host's refusals (the same handle again, the open batch of the withdrawn
 * class): a refresh fails when one is missing, or when a registration or
 * withdrawal is refused. With `crash_while: PATH` a refresh writes through
 * a null pointer while PATH exists, as a broken provider would (the
 * isolation tests). With `supplier_failure_file: PATH` each refresh that
 * succeeds says supplier "good" failed with PATH's text (dci_supplier_state,
 * up to a newline) while PATH exists, and works once it is absent; it also
 * checks that the host refuses a handle that is not a supplier. With
 * `row_setter: true` the count (and count32) are set with one
 * dci_batch_set_row per instance, and the name with one
 * dci_batch_set_row_bytes, each also naming datum 999, which the class
 * lacks: a refresh fails unless the host refuses it (-1) and stores the
 * rest. With `start_log: PATH` init asks for a start (dci_serve_start),
 * which appends a line to PATH, and fails, saying so, while the file
 * `start_fails_while` names exists. */
#define _GNU_SOURCE
#include <dcistat/provider.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct good_context {
	struct dci_class *class;
	unsigned instances;
	unsigned refreshes;
	int fail_refresh;
	int parents;
	int invalid_even;
	int row_setter;
	unsigned long discontinuous; /* 0: none */
	char refresh_fails_while[256];
	char refresh_sleeps_while[256];
	char crash_while[256];
	char count32_file[256];                /* empty: count32 has no value */
	char dynamic_supplier_file[256];       /* empty: no dynamic supplier */
	struct dci_supplier *dynamic_supplier; /* NULL: not registered */
	struct dci_class *dynamic_class;
	struct dci_supplier *supplier;
	char supplier_failure_file[256]; /* empty: no dci_supplier_state */
	char start_log[256];
	char start_fails_while[256];
};

static const char *const good_option_keys[] = {"instances", "fail_refresh",
    "parents", "invalid_even", "refresh_limit", "discontinuous", "init_needs",
    "refresh_fails_while", "refresh_sleeps_while", "count32_file",
    "dynamic_supplier_file", "crash_while", "supplier_failure_file",
    "row_setter", "start_log", "start_fails_while", NULL};

/* A whole number option from 0 to maximum: 0 (and *value untouched) when
 * absent, -1 after reporting a bad one. */
/* A store through a null pointer, as a broken provider makes: a real
 * SIGSEGV, which a sanitizer build must not turn into a report and an exit
 * (the test also sets ASan's handle_segv=0). */
__attribute__((no_sanitize("undefined"))) static void
good_crash(void)
{
	/* Both volatile: the store is made, whatever the optimiser knows. */
	volatile int *volatile nowhere = NULL;

	*nowhere = 1;
}

static int
good_number_option(struct dci_host *host, const char *key,
    unsigned long maximum, unsigned long *value)
{
	const char *text = dci_option_string(host, key);
	char *end;
	unsigned long number;

	if (text == NULL)
		return 0;
	number = strtoul(text, &end, 10);
	if (*end != '\0' || number > maximum) {
		dci_option_error(host, key, "expected a number in range");
		return -1;
	}
	*value = number;
	return 0;
}

/* The start of `start_log` (see the top). */
static int
good_start(struct dci_host *host, void *opaque)
{
	struct good_context *context = opaque;
	FILE *file;

	if (context->start_fails_while[0] != '\0' &&
	    access(context->start_fails_while, F_OK) == 0) {
		dci_log(host, DCI_LOG_ERR, "start refused: %s exists",
		    context->start_fails_while);
		return -1;
	}
	file = fopen(context->start_log, "a");
	if (file == NULL)
		return -1;
	fprintf(file, "started\n");
	return fclose(file) == 0 ? 0 : -1;
}

static int
good_init(struct dci_host *host, void **context_out)
{
	static const uint32_t class_id[] = {9, 1};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DEVICE, 4},
	};
	static const struct dci_datum_info datums[] = {
	    {.id = 1,
	        .label = "count",
	        .type = DCI_ST_INTEGER64,
	        .format = DCI_SIF_UNSIGNED,
	        .presentation = DCI_SIP_DECIMAL,
	        .volatility = DCI_SV_VOLATILE,
	        .unit = DCI_UNIT_EVENTS,
	        .semantics = DCI_SEMANTICS_COUNTER},
	    {.id = 2,
	        .label = "name",
	        .type = DCI_ST_STRING,
	        .size = 16,
	        .volatility = DCI_SV_STATIC,
	        .semantics = DCI_SEMANTICS_DISCRETE},
	    {.id = 3,
	        .label = "count32",
	        .type = DCI_ST_INTEGER32,
	        .format = DCI_SIF_UNSIGNED,
	        .presentation = DCI_SIP_DECIMAL,
	        .volatility = DCI_SV_VOLATILE,
	        .unit = DCI_UNIT_EVENTS,
	        .semantics = DCI_SEMANTICS_COUNTER},
	};
	static const struct dci_supplier_info supplier_info = {
	    .module = "good",
	    .title = "Good test provider",
	    .version = 1,
	};
	struct dci_class_info class_info = {
	    .id = class_id,
	    .id_length = 2,
	    .label = "good",
	    .levels = levels,
	    .level_count = 1,
	    .datums = datums,
	    .datum_count = 3,
	};
	struct good_context *context = calloc(1, sizeof(*context));
	struct dci_supplier *supplier;
	unsigned long instances = 3, refresh_limit = 0;
	const char *text;

	if (context == NULL)
		return -1;
	*context_out = context;
	if (good_number_option(host, "instances", 1000000, &instances) != 0 ||
	    good_number_option(
	        host, "refresh_limit", UINT32_MAX, &refresh_limit) != 0 ||
	    good_number_option(host, "discontinuous", UINT32_MAX,
	        &context->discontinuous) != 0)
		return -1;
	context->instances = (unsigned)instances;
	if (dci_option_present(host, "refresh_limit") &&
	    dci_refresh_limit(host, (unsigned)refresh_limit) != 0)
		return -1;
	context->fail_refresh = dci_option_string(host, "fail_refresh") != NULL;
	text = dci_option_string(host, "init_needs");
	if (text != NULL && access(text, F_OK) != 0) {
		dci_log(host, DCI_LOG_ERR, "%s is missing", text);
		return -1;
	}
	text = dci_option_string(host, "refresh_fails_while");
	if (text != NULL)
		snprintf(context->refresh_fails_while,
		    sizeof(context->refresh_fails_while), "%s", text);
	text = dci_option_string(host, "crash_while");
	if (text != NULL)
		snprintf(context->crash_while, sizeof(context->crash_while),
		    "%s", text);
	text = dci_option_string(host, "refresh_sleeps_while");
	if (text != NULL)
		snprintf(context->refresh_sleeps_while,
		    sizeof(context->refresh_sleeps_while), "%s", text);
	text = dci_option_string(host, "count32_file");
	if (text != NULL)
		snprintf(context->count32_file, sizeof(context->count32_file),
		    "%s", text);
	text = dci_option_string(host, "dynamic_supplier_file");
	if (text != NULL)
		snprintf(context->dynamic_supplier_file,
		    sizeof(context->dynamic_supplier_file), "%s", text);
	text = dci_option_string(host, "supplier_failure_file");
	if (text != NULL)
		snprintf(context->supplier_failure_file,
		    sizeof(context->supplier_failure_file), "%s", text);
	context->parents = dci_option_boolean(host, "parents", 0);
	context->invalid_even = dci_option_boolean(host, "invalid_even", 0);
	context->row_setter = dci_option_boolean(host, "row_setter", 0);
	if (context->parents < 0 || context->invalid_even < 0 ||
	    context->row_setter < 0)
		return -1;
	supplier = dci_supplier_register(host, &supplier_info);
	if (supplier == NULL)
		return -1;
	context->supplier = supplier;
	context->class = dci_class_register(host, supplier, &class_info);
	if (context->class == NULL)
		return -1;
	text = dci_option_string(host, "start_fails_while");
	if (text != NULL)
		snprintf(context->start_fails_while,
		    sizeof(context->start_fails_while), "%s", text);
	text = dci_option_string(host, "start_log");
	if (text == NULL)
		return 0;
	snprintf(context->start_log, sizeof(context->start_log), "%s", text);
	return dci_serve_start(host, good_start, context);
}

/* The number in the count32 file: 0, or -1 after logging why not. Read
 * whole at each refresh, so the test's rename of a new file is seen at the
 * next one. */
static int
good_read_count32(struct dci_host *host, const char *path, uint32_t *value)
{
	char text[32];
	char *end;
	unsigned long long number;
	size_t length;
	FILE *file = fopen(path, "r");

	if (file == NULL) {
		dci_log(host, DCI_LOG_WARNING, "cannot open %s", path);
		return -1;
	}
	length = fread(text, 1, sizeof(text) - 1, file);
	fclose(file);
	text[length] = '\0';
	errno = 0;
	number = strtoull(text, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 ||
	    number > UINT32_MAX) {
		dci_log(host, DCI_LOG_WARNING,
		    "%s: expected a number below 2^32", path);
		return -1;
	}
	*value = (uint32_t)number;
	return 0;
}

/* Registers the dynamic supplier and its class; 0 or -1. */
static int
good_dynamic_register(struct dci_host *host, struct good_context *context)
{
	static const uint32_t class_id[] = {9, 2};
	static const struct dci_instance_level levels[] = {
	    {DCI_ITYPE_DEVICE, 4},
	};
	static const struct dci_datum_info datums[] = {
	    {.id = 1,
	        .label = "count",
	        .type = DCI_ST_INTEGER64,
	        .format = DCI_SIF_UNSIGNED,
	        .presentation = DCI_SIP_DECIMAL,
	        .volatility = DCI_SV_VOLATILE,
	        .unit = DCI_UNIT_EVENTS,
	        .semantics = DCI_SEMANTICS_COUNTER},
	};
	static const struct dci_supplier_info supplier_info = {
	    .module = "dynamic",
	    .title = "Dynamic test supplier",
	    .version = 1,
	};
	static const struct dci_class_info class_info = {
	    .id = class_id,
	    .id_length = 2,
	    .label = "dynamic",
	    .levels = levels,
	    .level_count = 1,
	    .datums = datums,
	    .datum_count = 1,
	};

	context->dynamic_supplier = dci_supplier_register(host, &supplier_info);
	if (context->dynamic_supplier == NULL)
		return -1;
	context->dynamic_class =
	    dci_class_register(host, context->dynamic_supplier, &class_info);
	return context->dynamic_class == NULL ? -1 : 0;
}

/* Withdraws the dynamic supplier, checking that the host then refuses its
 * handle and `open_batch` (NULL: none) of its class; 0 or -1. */
static int
good_dynamic_withdraw(struct dci_host *host, struct good_context *context,
    struct dci_batch *open_batch)
{
	struct dci_supplier *withdrawn = context->dynamic_supplier;
	const uint32_t id = 1;
	int result = 0;

	context->dynamic_supplier = NULL;
	context->dynamic_class = NULL;
	if (dci_supplier_withdraw(host, withdrawn) != 0)
		return -1;
	if (dci_supplier_withdraw(host, withdrawn) != -1) {
		dci_log(host, DCI_LOG_ERR, "withdrawn twice");
		result = -1;
	}
	if (open_batch != NULL &&
	    (dci_batch_instance(open_batch, &id, 1, "late") != -1 ||
	        dci_batch_commit(open_batch) != -1)) {
		dci_log(host, DCI_LOG_ERR, "batch of a withdrawn class served");
		result = -1;
	}
	return result;
}

/* The dynamic supplier's part of a refresh (see the top); 0 or -1. */
static int
good_dynamic_refresh(struct dci_host *host, struct good_context *context)
{
	FILE *file = fopen(context->dynamic_supplier_file, "r");
	unsigned instances = 0;
	char gone[8] = "";
	struct dci_batch *batch;

	if (file == NULL)
		return context->dynamic_supplier == NULL
		           ? 0
		           : good_dynamic_withdraw(host, context, NULL);
	if (fscanf(file, "%u %7s", &instances, gone) < 1)
		instances = 0;
	fclose(file);
	if (context->dynamic_supplier == NULL &&
	    good_dynamic_register(host, context) != 0)
		return -1;
	batch = dci_batch_begin(host, context->dynamic_class);
	if (batch == NULL)
		return -1;
	for (uint32_t id = 1; id <= instances; id++) {
		char name[16];
		long row;

		snprintf(name, sizeof(name), "dynamic%u", id);
		row = dci_batch_instance(batch, &id, 1, name);
		if (row < 0 || dci_batch_set_unsigned(batch, row, 1,
		                   1000u * id + context->refreshes) != 0) {
			dci_batch_abort(batch);
			return -1;
		}
	}
	if (dci_batch_commit(batch) != 0)
		return -1;
	if (strcmp(gone, "gone") != 0)
		return 0;
	batch = dci_batch_begin(host, context->dynamic_class);
	if (batch == NULL)
		return -1;
	return good_dynamic_withdraw(host, context, batch);
}

/* The counts of instance `id` as the one-value calls set them, or with
 * dci_batch_set_row (option row_setter); 0 or -1. */
static int
good_set_counts(struct dci_batch *batch, long row,
    const struct good_context *context, uint32_t id, uint32_t count32)
{
	bool with32 = context->count32_file[0] != '\0';
	struct dci_row_value values[] = {
	    dci_row_unsigned(1, 100u * id + context->refreshes),
	    dci_row_unsigned(999, 1),
	    dci_row_unsigned(3, count32),
	};

	if (!context->row_setter)
		return dci_batch_set_unsigned(
		           batch, row, 1, values[0].number) != 0 ||
		               (with32 && dci_batch_set_unsigned(
		                              batch, row, 3, count32) != 0)
		           ? -1
		           : 0;
	return dci_batch_set_row(batch, row, values, with32 ? 3 : 2) == -1 ? 0
	                                                                   : -1;
}

/* The name of an instance as dci_batch_set_string sets it, or with
 * dci_batch_set_row_bytes (option row_setter); 0 or -1. */
static int
good_set_name(struct dci_batch *batch, long row,
    const struct good_context *context, const char *name)
{
	const struct dci_row_bytes values[] = {
	    dci_row_raw(999, "x", 1),
	    dci_row_string(2, name),
	};

	if (!context->row_setter)
		return dci_batch_set_string(batch, row, 2, name);
	return dci_batch_set_row_bytes(batch, row, values, 2) == -1 ? 0 : -1;
}

/* The supplier_failure_file part of a refresh (see the top); 0 or -1. */
static int
good_supplier_state(struct dci_host *host, struct good_context *context)
{
	static char failure[2048];
	FILE *file = fopen(context->supplier_failure_file, "r");

	if (dci_supplier_state(host, (struct dci_supplier *)context, "x") !=
	    -1) {
		dci_log(host, DCI_LOG_ERR, "a bad supplier handle was taken");
		return -1;
	}
	if (file == NULL)
		return dci_supplier_state(host, context->supplier, NULL);
	if (fgets(failure, sizeof(failure), file) == NULL)
		failure[0] = '\0';
	fclose(file);
	failure[strcspn(failure, "\n")] = '\0';
	return dci_supplier_state(host, context->supplier, failure);
}

static int
good_refresh(struct dci_host *host, void *opaque)
{
	struct good_context *context = opaque;
	struct dci_batch *batch;
	uint32_t count32 = 0;

	context->refreshes++;
	if (context->crash_while[0] != '\0' &&
	    access(context->crash_while, F_OK) == 0)
		good_crash();
	for (int waited = 0;
	     context->refresh_sleeps_while[0] != '\0' &&
	     access(context->refresh_sleeps_while, F_OK) == 0 && waited < 6000;
	     waited++)
		usleep(10000);
	if (context->refresh_fails_while[0] != '\0' &&
	    access(context->refresh_fails_while, F_OK) == 0) {
		dci_log(host, DCI_LOG_WARNING, "%s exists",
		    context->refresh_fails_while);
		return -1;
	}
	if (context->fail_refresh && context->refreshes > 1) {
		dci_log(host, DCI_LOG_WARNING, "refresh %u fails on purpose",
		    context->refreshes);
		return -1;
	}
	if (context->count32_file[0] != '\0' &&
	    good_read_count32(host, context->count32_file, &count32) != 0)
		return -1;
	batch = dci_batch_begin(host, context->class);
	if (batch == NULL)
		return -1;
	for (uint32_t id = 1; id <= context->instances; id++) {
		char name[16];
		long row;

		snprintf(name, sizeof(name), "unit%u", id);
		row = dci_batch_instance(batch, &id, 1, name);
		if (row < 0 ||
		    good_set_counts(batch, row, context, id, count32) != 0 ||
		    good_set_name(batch, row, context, name) != 0 ||
		    (context->parents && id > 1 &&
		        dci_batch_instance_parent(
		            batch, row, (const uint32_t[]){1}, 1) != 0) ||
		    (context->invalid_even && id % 2 == 0 &&
		        dci_batch_set_invalid(batch, row, 1) != 0) ||
		    (context->refreshes > 1 && id == context->discontinuous &&
		        dci_batch_set_discontinuity(batch, row) != 0)) {
			dci_batch_abort(batch);
			return -1;
		}
	}
	if (dci_batch_commit(batch) != 0)
		return -1;
	if (context->supplier_failure_file[0] != '\0' &&
	    good_supplier_state(host, context) != 0)
		return -1;
	return context->dynamic_supplier_file[0] != '\0'
	           ? good_dynamic_refresh(host, context)
	           : 0;
}

static void
good_fini(struct dci_host *host, void *context)
{
	(void)host;
	free(context);
}

DCI_PROVIDER_DEFINE = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .name = "good",
    .description = "loader test provider",
    .option_keys = good_option_keys,
    .init = good_init,
    .refresh = good_refresh,
    .fini = good_fini,
};
