/*
 * dcistatd's side of an isolated provider (runtime/isolation.h): the process,
 * and the replay of what it sends through the plug-in's own host.
 */
#define _GNU_SOURCE
#include "runtime/isolation.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/clock.h"
#include "runtime/isolation_process.h"
#include "runtime/isolation_wire.h"
#include "runtime/plugin.h"
#include "base/log.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/libexec/dcistat"
#endif

/* Bounds on what a child may send, beyond the frame's own. */
#define HANDLES_MAX 4096u
#define DATUMS_MAX 65536u

struct isolation {
	struct dci_plugin *plugin;
	pid_t pid; /* 0: no process */
	/* Who started the process (a fork since leaves it to the process
	 * that exits), and whether its provider asked for a start that it
	 * has not run (provider.h: the process serves only when told). */
	pid_t started_by;
	bool start_waits;
	int socket; /* -1: none */
	int watch;  /* readable when the process ended (pidfd), or -1 */
	/* A stop interrupts a refresh in flight from the main thread
	 * (dci_isolation_interrupt): `socket` is closed, and read there,
	 * under this lock. */
	pthread_mutex_t socket_lock;
	bool interrupted;
	unsigned char *buffer;
	size_t buffer_size;
	struct dci_wire_writer out;
	/* This process's handles: dcistatd's supplier and class (NULL when
	 * dcistatd refused what the process accepted). */
	struct dci_supplier *suppliers[HANDLES_MAX];
	uint32_t supplier_count;
	struct dci_class *classes[HANDLES_MAX];
	uint32_t class_count;
	/* A batch's rows: the process's row number -> dcistatd's. */
	long *rows;
	size_t row_capacity;
	/* dcistatd refused a supplier the process registered (its name
	 * taken or reserved): the provider cannot serve as it believes it
	 * does, so it is failed, with the refusal as its reason. */
	bool supplier_refused;
	char why[512];
};

static unsigned
hang_milliseconds(const struct isolation *isolation)
{
	unsigned periods = isolation->plugin->refresh_milliseconds;

	return periods > DCI_ISOLATION_HANG_MILLISECONDS / 3
	           ? 3 * periods
	           : DCI_ISOLATION_HANG_MILLISECONDS;
}

/* Ends the process now (after a second, for the orderly end that closing
 * the socket asks for, when not `kill_now`), with everything it started
 * (runtime/isolation_process.h); the reason for the log and
 * dciSupplierFailure is in isolation->why. */
static void
process_end(struct isolation *isolation, bool kill_now, const char *what)
{
	char status[128] = "";

	pthread_mutex_lock(&isolation->socket_lock);
	if (isolation->socket >= 0)
		close(isolation->socket);
	isolation->socket = -1;
	pthread_mutex_unlock(&isolation->socket_lock);
	if (isolation->pid > 0)
		dci_isolation_process_end(isolation->pid, kill_now ? 0 : 1000,
		    status, sizeof(status));
	isolation->pid = 0;
	if (isolation->watch >= 0)
		close(isolation->watch);
	isolation->watch = -1;
	if (what != NULL)
		snprintf(isolation->why, sizeof(isolation->why),
		    "isolated process %s%s%s", what, status[0] ? ": " : "",
		    status);
}

static int
process_start(struct isolation *isolation)
{
	const char *program = getenv(DCI_ISOLATION_PROGRAM_ENVIRONMENT);
	pid_t pid;
	int pair[2];

	if (program == NULL || program[0] == '\0')
		program = PKGLIBEXECDIR "/dcistat-isolate";
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
		snprintf(isolation->why, sizeof(isolation->why),
		    "cannot start an isolated process: socketpair: %s",
		    strerror(errno));
		return -1;
	}
	pid = dci_isolation_process_start(program, pair[1], &isolation->watch,
	    isolation->why, sizeof(isolation->why));
	close(pair[1]);
	if (pid < 0) {
		close(pair[0]);
		return -1;
	}
	isolation->socket = pair[0];
	isolation->pid = pid;
	isolation->started_by = getpid();
	isolation->supplier_count = 0;
	isolation->class_count = 0;
	return 0;
}

/* --- Replay ---------------------------------------------------------- */

static int
replay_supplier(struct isolation *isolation, struct dci_host *host,
    struct dci_wire_reader *reader)
{
	uint32_t handle = dci_wire_read_u32(reader);
	struct dci_supplier_info info;

	info.module = dci_wire_read_string(reader);
	info.title = dci_wire_read_string(reader);
	info.description = dci_wire_read_string(reader);
	info.type = dci_wire_read_u32(reader);
	info.version = dci_wire_read_u32(reader);
	if (!dci_wire_at_end(reader) || handle != isolation->supplier_count ||
	    handle >= HANDLES_MAX)
		return -1;
	isolation->suppliers[isolation->supplier_count] =
	    dci_supplier_register(host, &info);
	if (isolation->suppliers[isolation->supplier_count] == NULL &&
	    !isolation->supplier_refused) {
		isolation->supplier_refused = true;
		snprintf(isolation->why, sizeof(isolation->why),
		    "its supplier was refused: %.480s",
		    isolation->plugin->supplier_refusal);
	}
	isolation->supplier_count++;
	return 0;
}

static int
replay_class(struct isolation *isolation, struct dci_host *host,
    struct dci_wire_reader *reader)
{
	uint32_t handle = dci_wire_read_u32(reader);
	uint32_t supplier = dci_wire_read_u32(reader);
	uint32_t id[DCI_CLASS_ID_MAX_LEVELS];
	struct dci_instance_level levels[DCI_INSTANCE_ID_MAX_WORDS];
	struct dci_datum_info *datums = NULL;
	struct dci_class_info info = {0};
	int result = -1;

	info.id_length = dci_wire_read_u32(reader);
	if (reader->failed || handle != isolation->class_count ||
	    handle >= HANDLES_MAX || supplier >= isolation->supplier_count ||
	    info.id_length > DCI_CLASS_ID_MAX_LEVELS)
		return -1;
	for (size_t i = 0; i < info.id_length; i++)
		id[i] = dci_wire_read_u32(reader);
	info.id = id;
	info.label = dci_wire_read_string(reader);
	info.description = dci_wire_read_string(reader);
	info.level_count = dci_wire_read_u32(reader);
	if (reader->failed || info.level_count > DCI_INSTANCE_ID_MAX_WORDS)
		return -1;
	for (size_t i = 0; i < info.level_count; i++) {
		levels[i].itype =
		    (enum dci_instance_type)dci_wire_read_u32(reader);
		levels[i].size = dci_wire_read_u32(reader);
	}
	info.levels = levels;
	info.datum_count = dci_wire_read_u32(reader);
	if (reader->failed || info.datum_count > DATUMS_MAX)
		return -1;
	datums =
	    calloc(info.datum_count ? info.datum_count : 1, sizeof(*datums));
	if (datums == NULL)
		return -1;
	for (size_t i = 0; i < info.datum_count; i++) {
		struct dci_datum_info *datum = &datums[i];
		datum->id = dci_wire_read_u32(reader);
		datum->label = dci_wire_read_string(reader);
		datum->type = (enum dci_type)dci_wire_read_u32(reader);
		datum->format = dci_wire_read_u32(reader);
		datum->presentation = dci_wire_read_u32(reader);
		datum->size = dci_wire_read_u32(reader);
		datum->volatility = dci_wire_read_u32(reader);
		datum->unit = (enum dci_unit)dci_wire_read_u32(reader);
		datum->semantics =
		    (enum dci_semantics)dci_wire_read_u32(reader);
		datum->description = dci_wire_read_string(reader);
	}
	info.datums = datums;
	if (dci_wire_at_end(reader)) {
		struct dci_supplier *owner = isolation->suppliers[supplier];
		/* What dcistatd's host refuses (it says why) has no handle. */
		isolation->classes[isolation->class_count++] =
		    owner != NULL ? dci_class_register(host, owner, &info)
		                  : NULL;
		result = 0;
	}
	free(datums);
	return result;
}

static int
replay_withdraw(struct isolation *isolation, struct dci_host *host,
    struct dci_wire_reader *reader)
{
	uint32_t handle = dci_wire_read_u32(reader);
	struct dci_supplier *supplier;

	if (!dci_wire_at_end(reader) || handle >= isolation->supplier_count)
		return -1;
	supplier = isolation->suppliers[handle];
	if (supplier == NULL)
		return 0;
	/* Its classes go with it. */
	for (uint32_t i = 0; i < isolation->class_count; i++)
		if (isolation->classes[i] != NULL &&
		    isolation->classes[i]->supplier == supplier)
			isolation->classes[i] = NULL;
	isolation->suppliers[handle] = NULL;
	dci_supplier_withdraw(host, supplier);
	return 0;
}

/* The child's dci_supplier_state, said again to dcistatd's host. */
static int
replay_supplier_state(struct isolation *isolation, struct dci_host *host,
    struct dci_wire_reader *reader)
{
	uint32_t handle = dci_wire_read_u32(reader);
	const char *failure = dci_wire_read_string(reader);

	if (!dci_wire_at_end(reader) || handle >= isolation->supplier_count)
		return -1;
	if (isolation->suppliers[handle] != NULL)
		dci_supplier_state(host, isolation->suppliers[handle], failure);
	return 0;
}

static bool
rows_reserve(struct isolation *isolation, size_t count)
{
	long *grown;
	size_t capacity =
	    isolation->row_capacity ? isolation->row_capacity : 64;

	if (count <= isolation->row_capacity)
		return true;
	while (capacity < count)
		capacity *= 2;
	grown = realloc(isolation->rows, capacity * sizeof(*grown));
	if (grown == NULL)
		return false;
	isolation->rows = grown;
	isolation->row_capacity = capacity;
	return true;
}

/* One operation of a batch; -1 when it breaks the protocol. */
static int
replay_operation(struct isolation *isolation, struct dci_batch *batch,
    struct dci_wire_reader *reader, size_t *row_count)
{
	uint8_t operation = dci_wire_read_u8(reader);
	uint32_t row = dci_wire_read_u32(reader), datum = 0, words, length;
	const void *bytes;
	long parent_row;

	if (operation == DCI_WIRE_INSTANCE) {
		const char *label;
		words = dci_wire_read_u32(reader);
		if (reader->failed || row != *row_count ||
		    words > DCI_INSTANCE_ID_MAX_WORDS)
			return -1;
		bytes = dci_wire_read_bytes(reader, words * sizeof(uint32_t));
		label = dci_wire_read_string(reader);
		if (reader->failed || !rows_reserve(isolation, row + 1))
			return -1;
		{
			uint32_t id[DCI_INSTANCE_ID_MAX_WORDS];
			memcpy(id, bytes, words * sizeof(uint32_t));
			isolation->rows[row] =
			    dci_batch_instance(batch, id, words, label);
		}
		(*row_count)++;
		return 0;
	}
	if (reader->failed || row >= *row_count)
		return -1;
	parent_row = isolation->rows[row];
	if (operation != DCI_WIRE_PARENT && operation != DCI_WIRE_DISCONTINUITY)
		datum = dci_wire_read_u32(reader);
	switch (operation) {
	case DCI_WIRE_UNSIGNED:
	case DCI_WIRE_SIGNED: {
		uint64_t value = dci_wire_read_u64(reader);
		if (reader->failed)
			return -1;
		if (parent_row < 0)
			return 0;
		if (operation == DCI_WIRE_UNSIGNED)
			dci_batch_set_unsigned(batch, parent_row, datum, value);
		else
			dci_batch_set_signed(
			    batch, parent_row, datum, (int64_t)value);
		return 0;
	}
	case DCI_WIRE_BYTES:
		length = dci_wire_read_u32(reader);
		bytes = dci_wire_read_bytes(reader, length);
		if (reader->failed)
			return -1;
		if (parent_row >= 0)
			dci_batch_set_bytes(
			    batch, parent_row, datum, bytes, length);
		return 0;
	case DCI_WIRE_INVALID:
		if (reader->failed)
			return -1;
		if (parent_row >= 0)
			dci_batch_set_invalid(batch, parent_row, datum);
		return 0;
	case DCI_WIRE_PARENT: {
		uint32_t id[DCI_INSTANCE_ID_MAX_WORDS];
		words = dci_wire_read_u32(reader);
		if (reader->failed || words > DCI_INSTANCE_ID_MAX_WORDS)
			return -1;
		bytes = dci_wire_read_bytes(reader, words * sizeof(uint32_t));
		if (reader->failed)
			return -1;
		memcpy(id, bytes, words * sizeof(uint32_t));
		if (parent_row >= 0)
			dci_batch_instance_parent(batch, parent_row, id, words);
		return 0;
	}
	case DCI_WIRE_DISCONTINUITY:
		if (parent_row >= 0)
			dci_batch_set_discontinuity(batch, parent_row);
		return 0;
	default:
		return -1;
	}
}

static int
replay_batch(struct isolation *isolation, struct dci_host *host,
    struct dci_wire_reader *reader)
{
	uint32_t handle = dci_wire_read_u32(reader);
	struct dci_batch *batch;
	size_t row_count = 0;

	if (reader->failed || handle >= isolation->class_count)
		return -1;
	/* A class dcistatd refused: nothing to replay. */
	if (isolation->classes[handle] == NULL)
		return 0;
	batch = dci_batch_begin(host, isolation->classes[handle]);
	if (batch == NULL)
		return 0;
	while (!dci_wire_at_end(reader)) {
		if (replay_operation(isolation, batch, reader, &row_count) !=
		    0) {
			dci_batch_abort(batch);
			return -1;
		}
	}
	dci_batch_commit(batch);
	return 0;
}

/* A warning of the process, the reason of a failed init or start there
 * (plugin.h), without the "provider NAME: " its host put before it (the
 * name the process knows, which may not be ours yet). */
static void
isolation_complaint(struct dci_plugin *plugin, const char *text)
{
	if (strncmp(text, "provider ", 9) == 0) {
		const char *name = text + 9;
		size_t length = strcspn(name, " :");

		if (length > 0 && strncmp(name + length, ": ", 2) == 0)
			text = name + length + 2;
	}
	dci_plugin_complaint_note(plugin, "%s", text);
}

/* One message of the process, replayed; 1 for DONE (with its result in
 * *done_result and its name in `name`), 0 for the others, -1 when it
 * breaks the protocol. */
static int
replay_frame(struct isolation *isolation, struct dci_host *host,
    enum dci_wire_type type, struct dci_wire_reader *reader, int *done_result,
    char *name, size_t name_size)
{
	switch (type) {
	case DCI_WIRE_SUPPLIER:
		return replay_supplier(isolation, host, reader);
	case DCI_WIRE_CLASS:
		return replay_class(isolation, host, reader);
	case DCI_WIRE_WITHDRAW:
		return replay_withdraw(isolation, host, reader);
	case DCI_WIRE_SUPPLIER_STATE:
		return replay_supplier_state(isolation, host, reader);
	case DCI_WIRE_LIMIT: {
		uint32_t milliseconds = dci_wire_read_u32(reader);
		if (!dci_wire_at_end(reader))
			return -1;
		dci_refresh_limit(host, milliseconds);
		return 0;
	}
	case DCI_WIRE_BATCH:
		return replay_batch(isolation, host, reader);
	case DCI_WIRE_LOG: {
		uint32_t level = dci_wire_read_u32(reader);
		const char *text = dci_wire_read_string(reader);
		if (!dci_wire_at_end(reader) || text == NULL)
			return -1;
		log_message(level < DCI_LOG_ERR     ? DCI_LOG_ERR
		            : level > DCI_LOG_DEBUG ? DCI_LOG_DEBUG
		                                    : (int)level,
		    "%s", text);
		if (level <= DCI_LOG_WARNING)
			isolation_complaint(isolation->plugin, text);
		return 0;
	}
	case DCI_WIRE_DONE: {
		uint32_t failed = dci_wire_read_u32(reader);
		const char *given = dci_wire_read_string(reader);
		/* After an init: whether a start waits (not in a refresh's). */
		uint32_t start_waits =
		    dci_wire_at_end(reader) ? 0 : dci_wire_read_u32(reader);
		if (!dci_wire_at_end(reader) || failed > 1 || start_waits > 1)
			return -1;
		if (name != NULL)
			isolation->start_waits = start_waits == 1;
		if (name != NULL && given != NULL)
			snprintf(name, name_size, "%s", given);
		*done_result = failed ? -1 : 0;
		return 1;
	}
	default:
		return -1;
	}
}

/* Reads and replays until the process says DONE: its result, or -1 with
 * the process ended and the reason in isolation->why. `name` (may be NULL)
 * receives the name DONE gives. */
static int
converse(struct isolation *isolation, struct dci_host *host, char *name,
    size_t name_size)
{
	int64_t deadline =
	    dci_clock_milliseconds() + hang_milliseconds(isolation);
	char why[256];

	for (;;) {
		struct dci_wire_reader reader;
		enum dci_wire_type type;
		int received = dci_wire_receive(isolation->socket,
		    isolation->watch, deadline, &isolation->buffer,
		    &isolation->buffer_size, &type, &reader, why, sizeof(why));
		int result = 0, replayed;

		if (__atomic_load_n(
		        &isolation->interrupted, __ATOMIC_ACQUIRE)) {
			process_end(isolation, true,
			    "stopped during a refresh, killed");
			log_info("provider %s: %s", isolation->plugin->name,
			    isolation->why);
			return -1;
		}
		/* Ended: the stream's end, or the process's own where
		 * what it forked holds the stream open. */
		if (received == 0 || received == -3) {
			process_end(isolation, false, "ended");
			return -1;
		}
		if (received == -2) {
			snprintf(why, sizeof(why),
			    "did not answer within %u ms, killed",
			    hang_milliseconds(isolation));
			process_end(isolation, true, why);
			return -1;
		}
		if (received < 0) {
			process_end(isolation, true, why);
			return -1;
		}
		replayed = replay_frame(
		    isolation, host, type, &reader, &result, name, name_size);
		if (replayed == 1)
			return result;
		if (replayed < 0) {
			snprintf(why, sizeof(why),
			    "sent a malformed message (type %d), killed",
			    (int)type);
			process_end(isolation, true, why);
			return -1;
		}
	}
}

struct dci_isolation_replayer {
	struct isolation isolation;
};

struct dci_isolation_replayer *
dci_isolation_replayer_new(struct dci_plugin *plugin)
{
	struct dci_isolation_replayer *replayer = calloc(1, sizeof(*replayer));

	if (replayer != NULL) {
		replayer->isolation.plugin = plugin;
		replayer->isolation.socket = -1;
		replayer->isolation.watch = -1;
		pthread_mutex_init(&replayer->isolation.socket_lock, NULL);
	}
	return replayer;
}

int
dci_isolation_replay(struct dci_isolation_replayer *replayer,
    const unsigned char *data, size_t length)
{
	struct isolation *isolation = &replayer->isolation;
	size_t position = 0;
	int result = 0;

	while (result == 0 && length - position >= sizeof(uint32_t) + 1) {
		uint32_t frame;
		struct dci_wire_reader reader;
		int done = 0;

		memcpy(&frame, data + position, sizeof(frame));
		position += sizeof(frame);
		if (frame < 1 || frame > length - position)
			return -1;
		reader = (struct dci_wire_reader){
		    data + position + 1, frame - 1, 0, false};
		result = replay_frame(isolation, &isolation->plugin->host,
		    (enum dci_wire_type)data[position], &reader, &done, NULL,
		    0);
		position += frame;
		if (result == 1)
			result = 0;
	}
	return result != 0 || position != length ? -1 : 0;
}

void
dci_isolation_replayer_free(struct dci_isolation_replayer *replayer)
{
	if (replayer == NULL)
		return;
	free(replayer->isolation.rows);
	pthread_mutex_destroy(&replayer->isolation.socket_lock);
	free(replayer);
}

static int
send_frame(struct isolation *isolation)
{
	if (dci_wire_send(&isolation->out, isolation->socket) == 0)
		return 0;
	isolation->out.length = 0;
	process_end(isolation, true, "cannot be written to, killed");
	return -1;
}

/* Starts the process and has it load and initialise the plug-in. */
static int
process_setup(struct isolation *isolation, struct dci_host *host)
{
	struct dci_plugin *plugin = isolation->plugin;
	const struct dci_config_provider *config = plugin->config;
	struct dci_wire_writer *out = &isolation->out;
	char name[256] = "";
	int result;

	if (process_start(isolation) != 0)
		return -1;
	dci_wire_frame_begin(out, DCI_WIRE_SETUP);
	dci_wire_string(out, plugin->name);
	dci_wire_string(out, plugin->path);
	dci_wire_string(out, config->module_position.file);
	dci_wire_u32(out, config->module_position.line);
	dci_wire_u32(out, config->module_position.column);
	dci_wire_u32(out, config->refresh_milliseconds);
	dci_wire_u32(out, (uint32_t)config->option_count);
	for (size_t i = 0; i < config->option_count; i++) {
		const struct dci_config_option *option = &config->options[i];
		dci_wire_string(out, option->key);
		dci_wire_u32(out, option->position.line);
		dci_wire_u32(out, option->position.column);
		dci_wire_u32(out, option->is_sequence);
		dci_wire_u32(out, (uint32_t)option->value_count);
		for (size_t v = 0; v < option->value_count; v++)
			dci_wire_string(out, option->values[v]);
	}
	/* Whether its process runs the provider's start (provider.h): only
	 * when dcistatd serves, never for a check. */
	dci_wire_u32(out, plugin->serving ? 1 : 0);
	if (!dci_wire_frame_end(out)) {
		out->length = 0;
		out->failed = false;
		process_end(isolation, true, "cannot be set up, killed");
		return -1;
	}
	if (send_frame(isolation) != 0)
		return -1;
	isolation->supplier_refused = false;
	result = converse(isolation, host, name, sizeof(name));
	/* The provider's own name, as in-process (loader.c). */
	if (name[0] != '\0' && strcmp(name, plugin->name) != 0) {
		char *copy = strdup(name);
		if (copy != NULL) {
			free(plugin->name);
			plugin->name = copy;
		}
	}
	if (result == 0 && isolation->supplier_refused) {
		process_end(isolation, true, NULL);
		return -1;
	}
	if (result == 0)
		log_info("provider %s: running isolated in process %ld",
		    plugin->name, (long)isolation->pid);
	return result;
}

/* The failure a refresh or init ends with: the plug-in is failed as a
 * failed start is (loader.h), with this reason. */
static void
isolation_failed(struct isolation *isolation)
{
	struct dci_plugin *plugin = isolation->plugin;

	if (plugin->quiet)
		log_debug(plugin->name, "provider %s: %s", plugin->name,
		    isolation->why);
	else
		log_warnx("provider %s: %s", plugin->name, isolation->why);
	snprintf(plugin->restart_reason, sizeof(plugin->restart_reason),
	    "%s: provider %s: %s", plugin->path, plugin->name, isolation->why);
}

static int
isolation_init(struct dci_host *host, void **context)
{
	/* The host handed to a provider is its plug-in's first member. */
	struct dci_plugin *plugin = (struct dci_plugin *)host;
	struct isolation *isolation = calloc(1, sizeof(*isolation));

	if (isolation == NULL)
		return -1;
	isolation->plugin = plugin;
	isolation->socket = -1;
	isolation->watch = -1;
	pthread_mutex_init(&isolation->socket_lock, NULL);
	*context = isolation;
	if (process_setup(isolation, host) != 0) {
		if (isolation->supplier_refused)
			/* The reason of its failed row (loader.c). */
			isolation_failed(isolation);
		else if (isolation->why[0] != '\0')
			log_warnx(
			    "provider %s: %s", plugin->name, isolation->why);
		return -1;
	}
	return 0;
}

static int
isolation_refresh(struct dci_host *host, void *context)
{
	struct isolation *isolation = context;

	dci_isolation_reap_adopted(false);
	if (isolation->socket < 0) {
		snprintf(isolation->why, sizeof(isolation->why),
		    "isolated process gone");
		isolation_failed(isolation);
		return -1;
	}
	dci_wire_frame_begin(&isolation->out, DCI_WIRE_REFRESH);
	if (!dci_wire_frame_end(&isolation->out) ||
	    send_frame(isolation) != 0 ||
	    converse(isolation, host, NULL, 0) != 0) {
		/* The process is gone: fail and restart the plug-in. A
		 * refresh the provider itself failed is an ordinary one, and
		 * one a stop interrupted is nothing to restart. */
		if (isolation->socket < 0 &&
		    !__atomic_load_n(&isolation->interrupted, __ATOMIC_ACQUIRE))
			isolation_failed(isolation);
		return -1;
	}
	if (isolation->supplier_refused) {
		/* A supplier registered from a refresh was refused. */
		process_end(isolation, true, NULL);
		isolation_failed(isolation);
		return -1;
	}
	return 0;
}

static void
isolation_fini(struct dci_host *host, void *context)
{
	struct isolation *isolation = context;

	if (isolation == NULL)
		return;
	/* The process sees the end of the stream and stops the plug-in. */
	process_end(isolation, false, NULL);
	dci_wire_writer_free(&isolation->out);
	free(isolation->buffer);
	free(isolation->rows);
	pthread_mutex_destroy(&isolation->socket_lock);
	free(isolation);
}

bool
dci_isolation_serving_needs_restart(const void *context)
{
	const struct isolation *isolation = context;

	return isolation == NULL || isolation->started_by != getpid() ||
	       isolation->start_waits;
}

void
dci_isolation_interrupt(void *context)
{
	struct isolation *isolation = context;

	if (isolation == NULL)
		return;
	pthread_mutex_lock(&isolation->socket_lock);
	__atomic_store_n(&isolation->interrupted, true, __ATOMIC_RELEASE);
	/* The refresh's read sees the end at once; the descriptor stays
	 * its to close. */
	if (isolation->socket >= 0)
		shutdown(isolation->socket, SHUT_RDWR);
	pthread_mutex_unlock(&isolation->socket_lock);
}

const struct dci_provider dci_isolation_provider = {
    .abi_version = DCI_PROVIDER_ABI_VERSION,
    .name = NULL, /* the plug-in's, as configured */
    .description = "a provider run in a process of its own",
    .option_keys = NULL,
    .init = isolation_init,
    .refresh = isolation_refresh,
    .fini = isolation_fini,
};
