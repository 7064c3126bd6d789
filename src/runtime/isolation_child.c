/*
 * The process an isolated provider runs in (the child side of
 * runtime/isolation.h).
 *
 * It runs the provider through the real loader and host on a registry of
 * its own, so that every call is checked and answered exactly as in
 * dcistatd, and records each call that succeeded: a registration or a
 * withdrawal is sent at once, a batch when it commits (checked and sealed
 * here, made a snapshot only in dcistatd). dcistatd replays
 * them through its own host. Every log line, the provider's and the runtime's,
 * goes to dcistatd as a LOG message.
 */
#define _GNU_SOURCE
#include "runtime/isolation.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "config/config.h"
#include "runtime/host.h"
#include "runtime/isolation_process.h"
#include "runtime/isolation_wire.h"
#include "runtime/loader.h"
#include "base/log.h"
#include "model/registry.h"
#include "model/snapshot.h"

/* A batch as the provider holds it: the host's batch, and the frame its
 * calls are recorded in. */
struct recorded_batch {
	struct dci_batch public; /* first: what the provider is handed */
	struct dci_batch *real;
	struct dci_wire_writer frame;
	struct recorded_batch *next; /* open batches */
};

static int child_socket = -1;
static struct dci_plugin *child_plugin;
static struct dci_wire_writer out;
/* Handles: the position of a supplier or class in these arrays. */
static struct dci_supplier **suppliers;
static size_t supplier_count;
static struct dci_class **classes;
static size_t class_count;
static struct recorded_batch *open_batches;
static struct dci_host_operations recording_operations;

/* dcistatd is gone or no longer reads us: nothing left to do. */
static void __attribute__((noreturn)) lost(void)
{
	_exit(2);
}

static void
send_out(void)
{
	if (dci_wire_send(&out, child_socket) != 0)
		lost();
}

static void
forward_log(int level, const char *message)
{
	dci_wire_frame_begin(&out, DCI_WIRE_LOG);
	dci_wire_u32(&out, (uint32_t)level);
	dci_wire_string(&out, message);
	if (!dci_wire_frame_end(&out))
		lost();
	send_out();
}

static int
handle_add(void ***array, size_t *count, void *item)
{
	void **grown = realloc(*array, (*count + 1) * sizeof(**array));

	if (grown == NULL)
		return -1;
	*array = grown;
	grown[*count] = item;
	return (int)(*count)++;
}

static uint32_t
handle_of(void *const *array, size_t count, const void *item)
{
	for (size_t i = 0; i < count; i++)
		if (array[i] == item)
			return (uint32_t)i;
	return UINT32_MAX;
}

static struct dci_supplier *
record_supplier_register(
    struct dci_host *host, const struct dci_supplier_info *info)
{
	struct dci_supplier *supplier =
	    dci_host_operations.supplier_register(host, info);
	int handle;

	if (supplier == NULL)
		return NULL;
	handle = handle_add((void ***)&suppliers, &supplier_count, supplier);
	if (handle < 0)
		lost();
	dci_wire_frame_begin(&out, DCI_WIRE_SUPPLIER);
	dci_wire_u32(&out, (uint32_t)handle);
	dci_wire_string(&out, info->module);
	dci_wire_string(&out, info->title);
	dci_wire_string(&out, info->description);
	dci_wire_u32(&out, info->type);
	dci_wire_u32(&out, info->version);
	if (!dci_wire_frame_end(&out))
		lost();
	send_out();
	return supplier;
}

static struct dci_class *
record_class_register(struct dci_host *host, struct dci_supplier *supplier,
    const struct dci_class_info *info)
{
	struct dci_class *class =
	    dci_host_operations.class_register(host, supplier, info);
	int handle;

	if (class == NULL)
		return NULL;
	handle = handle_add((void ***)&classes, &class_count, class);
	if (handle < 0)
		lost();
	dci_wire_frame_begin(&out, DCI_WIRE_CLASS);
	dci_wire_u32(&out, (uint32_t)handle);
	dci_wire_u32(&out,
	    handle_of((void *const *)suppliers, supplier_count, supplier));
	dci_wire_u32(&out, (uint32_t)info->id_length);
	for (size_t i = 0; i < info->id_length; i++)
		dci_wire_u32(&out, info->id[i]);
	dci_wire_string(&out, info->label);
	dci_wire_string(&out, info->description);
	dci_wire_u32(&out, (uint32_t)info->level_count);
	for (size_t i = 0; i < info->level_count; i++) {
		dci_wire_u32(&out, (uint32_t)info->levels[i].itype);
		dci_wire_u32(&out, info->levels[i].size);
	}
	dci_wire_u32(&out, (uint32_t)info->datum_count);
	for (size_t i = 0; i < info->datum_count; i++) {
		const struct dci_datum_info *datum = &info->datums[i];
		dci_wire_u32(&out, datum->id);
		dci_wire_string(&out, datum->label);
		dci_wire_u32(&out, (uint32_t)datum->type);
		dci_wire_u32(&out, datum->format);
		dci_wire_u32(&out, datum->presentation);
		dci_wire_u32(&out, datum->size);
		dci_wire_u32(&out, datum->volatility);
		dci_wire_u32(&out, (uint32_t)datum->unit);
		dci_wire_u32(&out, (uint32_t)datum->semantics);
		dci_wire_string(&out, datum->description);
	}
	if (!dci_wire_frame_end(&out))
		lost();
	send_out();
	return class;
}

static int
record_supplier_withdraw(struct dci_host *host, struct dci_supplier *supplier)
{
	uint32_t handle =
	    handle_of((void *const *)suppliers, supplier_count, supplier);

	if (dci_host_operations.supplier_withdraw(host, supplier) != 0)
		return -1;
	if (handle != UINT32_MAX)
		suppliers[handle] = NULL;
	dci_wire_frame_begin(&out, DCI_WIRE_WITHDRAW);
	dci_wire_u32(&out, handle);
	if (!dci_wire_frame_end(&out))
		lost();
	send_out();
	return 0;
}

static int
record_refresh_limit(struct dci_host *host, unsigned milliseconds)
{
	if (dci_host_operations.refresh_limit(host, milliseconds) != 0)
		return -1;
	dci_wire_frame_begin(&out, DCI_WIRE_LIMIT);
	dci_wire_u32(&out, milliseconds);
	if (!dci_wire_frame_end(&out))
		lost();
	send_out();
	return 0;
}

static struct dci_batch *
record_batch_begin(struct dci_host *host, struct dci_class *class)
{
	struct recorded_batch *batch;
	struct dci_batch *real = dci_host_operations.batch_begin(host, class);

	if (real == NULL)
		return NULL;
	batch = calloc(1, sizeof(*batch));
	if (batch == NULL) {
		dci_host_operations.batch_abort(real);
		return NULL;
	}
	batch->public.operations = &recording_operations;
	batch->real = real;
	dci_wire_frame_begin(&batch->frame, DCI_WIRE_BATCH);
	dci_wire_u32(&batch->frame,
	    handle_of((void *const *)classes, class_count, class));
	batch->next = open_batches;
	open_batches = batch;
	return &batch->public;
}

static struct recorded_batch *
recorded(struct dci_batch *public)
{
	return (struct recorded_batch *)public;
}

static void
batch_free(struct recorded_batch *batch)
{
	for (struct recorded_batch **link = &open_batches; *link != NULL;
	     link = &(*link)->next) {
		if (*link == batch) {
			*link = batch->next;
			break;
		}
	}
	dci_wire_writer_free(&batch->frame);
	free(batch);
}

static long
record_batch_instance(struct dci_batch *public, const uint32_t *id,
    size_t id_words, const char *label)
{
	struct recorded_batch *batch = recorded(public);
	long row = dci_host_operations.batch_instance(
	    batch->real, id, id_words, label);

	if (row < 0)
		return row;
	dci_wire_u8(&batch->frame, DCI_WIRE_INSTANCE);
	dci_wire_u32(&batch->frame, (uint32_t)row);
	dci_wire_u32(&batch->frame, (uint32_t)id_words);
	dci_wire_bytes(&batch->frame, id, id_words * sizeof(*id));
	dci_wire_string(&batch->frame, label);
	return row;
}

/* An integer value the host stored, recorded as the one-value call that
 * stores it in dcistatd (isolation.c replays it). */
static void
record_number(
    struct recorded_batch *batch, long row, const struct dci_row_value *value)
{
	dci_wire_u8(&batch->frame,
	    value->is_signed ? DCI_WIRE_SIGNED : DCI_WIRE_UNSIGNED);
	dci_wire_u32(&batch->frame, (uint32_t)row);
	dci_wire_u32(&batch->frame, value->datum_id);
	dci_wire_u64(&batch->frame,
	    value->is_signed ? (uint64_t)value->signed_number : value->number);
}

/* A byte value the host stored, recorded as the one-value call that
 * stores it in dcistatd. */
static void
record_bytes(
    struct recorded_batch *batch, long row, const struct dci_row_bytes *value)
{
	dci_wire_u8(&batch->frame, DCI_WIRE_BYTES);
	dci_wire_u32(&batch->frame, (uint32_t)row);
	dci_wire_u32(&batch->frame, value->datum_id);
	dci_wire_u32(&batch->frame, (uint32_t)value->length);
	dci_wire_bytes(&batch->frame, value->bytes, value->length);
}

/* The values of a row setter's call (numbers, or else bytes), each through
 * the host's own row setter, one at a time, so that only the values it
 * stored are recorded (a refused one is logged here, as in dcistatd, and
 * left out). No array at all is the host's to refuse, which both row
 * setters do with one message. */
static int
record_row(struct dci_batch *public, long row,
    const struct dci_row_value *numbers, const struct dci_row_bytes *bytes,
    size_t count)
{
	struct recorded_batch *batch = recorded(public);
	int result = 0;

	if (numbers == NULL && bytes == NULL)
		return dci_host_operations.batch_set_row(
		    batch->real, row, NULL, count);
	for (size_t i = 0; i < count; i++) {
		if (numbers != NULL ? dci_host_operations.batch_set_row(
		                          batch->real, row, &numbers[i], 1) != 0
		                    : dci_host_operations.batch_set_row_bytes(
		                          batch->real, row, &bytes[i], 1) != 0)
			result = -1;
		else if (numbers != NULL)
			record_number(batch, row, &numbers[i]);
		else
			record_bytes(batch, row, &bytes[i]);
	}
	return result;
}

/* The host's one-value setters call the batch's row setters (a row of
 * one), so these record them too. */
static int
record_batch_set_row(struct dci_batch *public, long row,
    const struct dci_row_value *values, size_t count)
{
	return record_row(public, row, values, NULL, count);
}

static int
record_batch_set_row_bytes(struct dci_batch *public, long row,
    const struct dci_row_bytes *values, size_t count)
{
	return record_row(public, row, NULL, values, count);
}

static int
record_batch_set_invalid(struct dci_batch *public, long row, uint32_t datum_id)
{
	struct recorded_batch *batch = recorded(public);

	if (dci_host_operations.batch_set_invalid(batch->real, row, datum_id) !=
	    0)
		return -1;
	dci_wire_u8(&batch->frame, DCI_WIRE_INVALID);
	dci_wire_u32(&batch->frame, (uint32_t)row);
	dci_wire_u32(&batch->frame, datum_id);
	return 0;
}

static int
record_batch_instance_parent(struct dci_batch *public, long row,
    const uint32_t *parent_id, size_t parent_words)
{
	struct recorded_batch *batch = recorded(public);

	if (dci_host_operations.batch_instance_parent(
	        batch->real, row, parent_id, parent_words) != 0)
		return -1;
	dci_wire_u8(&batch->frame, DCI_WIRE_PARENT);
	dci_wire_u32(&batch->frame, (uint32_t)row);
	dci_wire_u32(&batch->frame, (uint32_t)parent_words);
	dci_wire_bytes(
	    &batch->frame, parent_id, parent_words * sizeof(*parent_id));
	return 0;
}

static int
record_batch_set_discontinuity(struct dci_batch *public, long row)
{
	struct recorded_batch *batch = recorded(public);

	if (dci_host_operations.batch_set_discontinuity(batch->real, row) != 0)
		return -1;
	dci_wire_u8(&batch->frame, DCI_WIRE_DISCONTINUITY);
	dci_wire_u32(&batch->frame, (uint32_t)row);
	return 0;
}

/* The host's commit as on a refresher: the batch is checked and sealed
 * (sorted, duplicate ids refused) but not made a snapshot here, which only
 * dcistatd serves; the sealed builder is dropped. */
static int
commit_checked(struct dci_batch *real)
{
	int result;

	child_plugin->on_refresher = true;
	result = dci_host_operations.batch_commit(real);
	child_plugin->on_refresher = false;
	for (size_t i = 0; i < child_plugin->pending_count; i++)
		dci_snapshot_builder_free(child_plugin->pending[i].builder);
	child_plugin->pending_count = 0;
	return result;
}

static int
record_batch_commit(struct dci_batch *public)
{
	struct recorded_batch *batch = recorded(public);
	int result = commit_checked(batch->real);

	if (result == 0) {
		if (!dci_wire_frame_end(&batch->frame)) {
			log_warnx("batch too large to hand to dcistatd");
			batch_free(batch);
			return -1;
		}
		if (dci_wire_send(&batch->frame, child_socket) != 0)
			lost();
	}
	batch_free(batch);
	return result;
}

static void
record_batch_abort(struct dci_batch *public)
{
	struct recorded_batch *batch = recorded(public);

	dci_host_operations.batch_abort(batch->real);
	batch_free(batch);
}

/* The host's operations, with every call that changes dcistatd's registry
 * or snapshots recorded; the option and log calls are the host's own. */
static int
record_supplier_state(
    struct dci_host *host, struct dci_supplier *supplier, const char *failure)
{
	uint32_t handle =
	    handle_of((void *const *)suppliers, supplier_count, supplier);

	if (dci_host_operations.supplier_state(host, supplier, failure) != 0)
		return -1;
	if (handle == UINT32_MAX)
		return 0;
	dci_wire_frame_begin(&out, DCI_WIRE_SUPPLIER_STATE);
	dci_wire_u32(&out, handle);
	dci_wire_string(&out, failure != NULL ? failure : "");
	if (!dci_wire_frame_end(&out))
		lost();
	send_out();
	return 0;
}

static void
recording_operations_fill(void)
{
	recording_operations = dci_host_operations;
	recording_operations.supplier_register = record_supplier_register;
	recording_operations.class_register = record_class_register;
	recording_operations.batch_begin = record_batch_begin;
	recording_operations.batch_instance = record_batch_instance;
	recording_operations.batch_commit = record_batch_commit;
	recording_operations.batch_abort = record_batch_abort;
	recording_operations.batch_instance_parent =
	    record_batch_instance_parent;
	recording_operations.batch_set_invalid = record_batch_set_invalid;
	recording_operations.batch_set_discontinuity =
	    record_batch_set_discontinuity;
	recording_operations.refresh_limit = record_refresh_limit;
	recording_operations.supplier_withdraw = record_supplier_withdraw;
	recording_operations.supplier_state = record_supplier_state;
	recording_operations.batch_set_row = record_batch_set_row;
	recording_operations.batch_set_row_bytes = record_batch_set_row_bytes;
}

/* `name` after the init (with whether a start waits: its provider asked
 * for one, and this process does not serve), NULL after a refresh. */
static void
done(int result, const char *name)
{
	dci_wire_frame_begin(&out, DCI_WIRE_DONE);
	dci_wire_u32(&out, result == 0 ? 0 : 1);
	dci_wire_string(&out, name);
	if (name != NULL)
		dci_wire_u32(&out, child_plugin->serve_start != NULL &&
		                       !child_plugin->started);
	if (!dci_wire_frame_end(&out))
		lost();
	send_out();
}

static char *
text_copy(const char *text)
{
	char *copy = strdup(text != NULL ? text : "");

	if (copy == NULL)
		lost();
	return copy;
}

/* The configuration SETUP describes: one provider entry. NULL when the
 * message breaks a rule. */
static struct dci_config *
config_from_setup(struct dci_wire_reader *reader, char **name, bool *serving)
{
	struct dci_config *config = calloc(1, sizeof(*config));
	struct dci_config_provider *provider;
	const char *path;
	uint32_t option_count;

	if (config == NULL)
		lost();
	config->providers = calloc(1, sizeof(*config->providers));
	if (config->providers == NULL)
		lost();
	config->provider_count = 1;
	provider = &config->providers[0];
	*name = text_copy(dci_wire_read_string(reader));
	path = dci_wire_read_string(reader);
	config->file = text_copy(dci_wire_read_string(reader));
	provider->module = text_copy(path);
	provider->position.file = config->file;
	provider->module_position.file = config->file;
	provider->module_position.line = dci_wire_read_u32(reader);
	provider->module_position.column = dci_wire_read_u32(reader);
	provider->position = provider->module_position;
	provider->refresh_milliseconds = dci_wire_read_u32(reader);
	provider->stale_periods = DCI_CONFIG_DEFAULT_STALE_PERIODS;
	option_count = dci_wire_read_u32(reader);
	if (reader->failed || path == NULL || path[0] != '/' ||
	    option_count > 4096)
		goto refused;
	provider->options =
	    calloc(option_count ? option_count : 1, sizeof(*provider->options));
	if (provider->options == NULL)
		lost();
	for (uint32_t i = 0; i < option_count; i++) {
		struct dci_config_option *option = &provider->options[i];
		uint32_t count;

		provider->option_count = i + 1;
		option->key = text_copy(dci_wire_read_string(reader));
		option->position.file = config->file;
		option->position.line = dci_wire_read_u32(reader);
		option->position.column = dci_wire_read_u32(reader);
		option->is_sequence = dci_wire_read_u32(reader) != 0;
		count = dci_wire_read_u32(reader);
		if (reader->failed || count > 65536)
			goto refused;
		option->values = calloc((size_t)count + 1, sizeof(char *));
		if (option->values == NULL)
			lost();
		option->value_count = count;
		for (uint32_t v = 0; v < count; v++)
			option->values[v] =
			    text_copy(dci_wire_read_string(reader));
	}
	*serving = dci_wire_read_u32(reader) == 1;
	if (reader->failed || !dci_wire_at_end(reader))
		goto refused;
	return config;

refused:
	dci_config_free(config);
	return NULL;
}

int
dci_isolation_child_main(int socket)
{
	unsigned char *buffer = NULL;
	size_t buffer_size = 0;
	struct dci_wire_reader payload;
	enum dci_wire_type type;
	struct dci_config *config;
	struct dci_registry *registry;
	struct dci_plugin *plugin;
	char why[512], error[1024], *name = NULL;
	bool serving = false;
	int result;

	child_socket = socket;
	recording_operations_fill();
	log_set_sink(forward_log);
	if (dci_wire_receive(socket, -1, INT64_MAX, &buffer, &buffer_size,
	        &type, &payload, why, sizeof(why)) != 1 ||
	    type != DCI_WIRE_SETUP)
		return 2;
	config = config_from_setup(&payload, &name, &serving);
	registry = dci_registry_new();
	if (config == NULL || registry == NULL)
		return 2;
	plugin = dci_plugin_new(config, 0, "/", registry, -1);
	if (plugin == NULL)
		return 2;
	plugin->host.operations = &recording_operations;
	plugin->serving = serving;
	child_plugin = plugin;
	result = dci_plugin_start(
	    plugin, dci_clock_milliseconds(), error, sizeof(error));
	done(result, plugin->name);

	for (;;) {
		int received = dci_wire_receive(socket, -1, INT64_MAX, &buffer,
		    &buffer_size, &type, &payload, why, sizeof(why));

		if (received != 1)
			break; /* dcistatd closed the socket: stop */
		if (type != DCI_WIRE_REFRESH || result != 0)
			break;
		plugin->refresh_milliseconds_at = dci_clock_milliseconds();
		result = plugin->entry->refresh(&plugin->host, plugin->context);
		plugin->refresh_milliseconds_at = 0;
		dci_host_abort_open_batches(plugin);
		while (open_batches != NULL)
			batch_free(open_batches);
		done(result, NULL);
		result = 0;
	}
	dci_plugin_close(plugin);
	/* Whatever the provider started and its fini left running. */
	dci_isolation_process_kill_own();
	dci_registry_free(registry);
	dci_config_free(config);
	free(name);
	free(buffer);
	dci_wire_writer_free(&out);
	free(suppliers);
	free(classes);
	return 0;
}
