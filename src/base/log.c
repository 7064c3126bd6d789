#define _GNU_SOURCE
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "text/escape.h"

enum log_destination { LOG_TO_STDERR, LOG_TO_SYSLOG, LOG_TO_FILE };

static enum log_destination log_destination = LOG_TO_STDERR;
static FILE *log_file;
static char log_tokens[256];
static void (*log_sink)(int level, const char *message);

static const char *
log_level_name(int level)
{
	switch (level) {
	case LOG_EMERG:
	case LOG_ALERT:
	case LOG_CRIT:
		return "fatal";
	case LOG_ERR:
		return "error";
	case LOG_WARNING:
		return "warning";
	case LOG_NOTICE:
		return "notice";
	case LOG_INFO:
		return "info";
	default:
		return "debug";
	}
}

/* A log file is appended to, never followed through a symbolic link (a
 * link planted where the log goes would have the daemon write wherever it
 * points), and must be a regular file (a FIFO would block the start);
 * created readable by the group only. errno says why not. */
static int
log_file_open(const char *path)
{
	struct stat status;
	int file = open(path,
	    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
	    0640);
	int error;

	if (file < 0)
		return -1;
	if (fstat(file, &status) != 0 || fcntl(file, F_SETFL, O_APPEND) != 0)
		goto failed;
	if (!S_ISREG(status.st_mode)) {
		errno = EINVAL; /* "Invalid argument": not a regular file */
		goto failed;
	}
	log_file = fdopen(file, "a");
	if (log_file != NULL)
		return 0;
failed:
	error = errno;
	close(file);
	errno = error;
	return -1;
}

int
log_open(const char *target, const char *program_name)
{
	log_close();
	if (target == NULL || strcmp(target, "stderr") == 0) {
		log_destination = LOG_TO_STDERR;
		return 0;
	}
	if (strcmp(target, "syslog") == 0) {
		openlog(program_name, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		log_destination = LOG_TO_SYSLOG;
		return 0;
	}
	if (log_file_open(target) != 0)
		return -1;
	setvbuf(log_file, NULL, _IOLBF, 0);
	log_destination = LOG_TO_FILE;
	return 0;
}

void
log_close(void)
{
	if (log_destination == LOG_TO_SYSLOG)
		closelog();
	if (log_file != NULL)
		fclose(log_file);
	log_file = NULL;
	log_destination = LOG_TO_STDERR;
}

void
log_set_sink(void (*sink)(int level, const char *message))
{
	log_sink = sink;
}

/* Refresh threads ask while snmpd's configuration may set them anew. */
static pthread_mutex_t log_tokens_lock = PTHREAD_MUTEX_INITIALIZER;

void
log_set_debug_tokens(const char *tokens)
{
	pthread_mutex_lock(&log_tokens_lock);
	if (tokens == NULL)
		log_tokens[0] = '\0';
	else
		snprintf(log_tokens, sizeof(log_tokens), ",%s,", tokens);
	pthread_mutex_unlock(&log_tokens_lock);
}

bool
log_debug_enabled(const char *token)
{
	char needle[64];
	bool enabled;

	snprintf(needle, sizeof(needle), ",%s,", token);
	pthread_mutex_lock(&log_tokens_lock);
	enabled =
	    log_tokens[0] != '\0' && (strstr(log_tokens, ",all,") != NULL ||
	                                 strstr(log_tokens, needle) != NULL);
	pthread_mutex_unlock(&log_tokens_lock);
	return enabled;
}

/*
 * Messages of a refresh thread wait in a queue for the main thread
 * (log_flush_deferred): the sinks (stdio, syslog, snmpd's snmp_log) then
 * only ever run on the main thread, and the log file can be reopened
 * under them without a lock.
 */
#define LOG_DEFERRED_MAX 256
static _Thread_local bool log_deferring;
static pthread_mutex_t log_deferred_lock = PTHREAD_MUTEX_INITIALIZER;
struct deferred_message {
	int level;
	char *line;
};
static struct deferred_message log_deferred[LOG_DEFERRED_MAX];
static size_t log_deferred_count;
static size_t log_deferred_dropped;

void
log_defer_this_thread(void)
{
	log_deferring = true;
}

static void
log_defer(int level, const char *line)
{
	char *copy = strdup(line);

	pthread_mutex_lock(&log_deferred_lock);
	if (copy == NULL || log_deferred_count == LOG_DEFERRED_MAX) {
		log_deferred_dropped++;
		free(copy);
	} else {
		log_deferred[log_deferred_count].level = level;
		log_deferred[log_deferred_count++].line = copy;
	}
	pthread_mutex_unlock(&log_deferred_lock);
}

static void log_emit(int level, const char *line);

void
log_flush_deferred(void)
{
	struct deferred_message taken[LOG_DEFERRED_MAX];
	size_t count, dropped;

	/* Taken whole under the lock: a refresh thread may append again
	 * while they are written. */
	pthread_mutex_lock(&log_deferred_lock);
	count = log_deferred_count;
	dropped = log_deferred_dropped;
	memcpy(taken, log_deferred, count * sizeof(*taken));
	log_deferred_count = 0;
	log_deferred_dropped = 0;
	pthread_mutex_unlock(&log_deferred_lock);
	for (size_t i = 0; i < count; i++) {
		log_emit(taken[i].level, taken[i].line);
		free(taken[i].line);
	}
	if (dropped > 0) {
		char line[96];
		snprintf(line, sizeof(line),
		    "%zu messages of refresh threads dropped", dropped);
		log_emit(LOG_WARNING, line);
	}
}

/*
 * Every message is escaped whole once formatted (text/escape.h, the
 * terminal mode): its arguments bring strings from outside (labels,
 * segment and configuration contents, provider and Net-SNMP messages,
 * what a master answers), and one of them with a newline or an escape
 * sequence would forge a line of the log or drive the terminal that
 * shows it. The callers quote outside strings escaped already (the label
 * mode, reversible, so the reader sees exactly what was sent); this is
 * the last line of defence for a caller that did not, and leaves their
 * escapes as they are. One newline ending the message is the line's end
 * (the sinks write their own); any other is escaped.
 */
#define LOG_MESSAGE_SIZE 2048

void
log_vmessage(int level, const char *format, va_list arguments)
{
	char formatted[LOG_MESSAGE_SIZE];
	char line[LOG_MESSAGE_SIZE * DCI_TEXT_ESCAPE_GROWTH];
	int saved_errno = errno;
	int length;

	length = vsnprintf(formatted, sizeof(formatted), format, arguments);
	if (length < 0)
		length = 0;
	else if ((size_t)length >= sizeof(formatted))
		length = (int)sizeof(formatted) - 1;
	if (length > 0 && formatted[length - 1] == '\n')
		length--;
	dci_text_escape(line, sizeof(line), formatted, (size_t)length,
	    DCI_TEXT_ESCAPE_TERMINAL);
	if (log_deferring)
		log_defer(level, line);
	else
		log_emit(level, line);
	errno = saved_errno;
}

static void
log_emit(int level, const char *line)
{
	if (log_sink != NULL) {
		log_sink(level, line);
	} else if (log_destination == LOG_TO_SYSLOG) {
		syslog(level, "%s", line);
	} else {
		FILE *out = log_destination == LOG_TO_FILE ? log_file : stderr;
		if (log_destination == LOG_TO_FILE) {
			char stamp[32];
			struct tm tm;
			time_t now = time(NULL);
			strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S",
			    localtime_r(&now, &tm));
			fprintf(out, "%s ", stamp);
		}
		fprintf(out, "%s: %s\n", log_level_name(level), line);
	}
}

void
log_message(int level, const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	log_vmessage(level, format, arguments);
	va_end(arguments);
}

static void
log_with_errno(int level, int error, const char *format, va_list arguments)
{
	char message[1536];

	vsnprintf(message, sizeof(message), format, arguments);
	log_message(level, "%s: %s", message, strerror(error));
}

void
log_warn(const char *format, ...)
{
	va_list arguments;
	int error = errno;

	va_start(arguments, format);
	log_with_errno(LOG_WARNING, error, format, arguments);
	va_end(arguments);
}

void
log_warnx(const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	log_vmessage(LOG_WARNING, format, arguments);
	va_end(arguments);
}

void
log_notice(const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	log_vmessage(LOG_NOTICE, format, arguments);
	va_end(arguments);
}

void
log_info(const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	log_vmessage(LOG_INFO, format, arguments);
	va_end(arguments);
}

void
log_debug(const char *token, const char *format, ...)
{
	va_list arguments;
	char prefixed[256];

	if (!log_debug_enabled(token))
		return;
	snprintf(prefixed, sizeof(prefixed), "[%s] %s", token, format);
	va_start(arguments, format);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	log_vmessage(LOG_DEBUG, prefixed, arguments);
#pragma GCC diagnostic pop
	va_end(arguments);
}

void
fatal(const char *format, ...)
{
	va_list arguments;
	int error = errno;

	va_start(arguments, format);
	log_with_errno(LOG_CRIT, error, format, arguments);
	va_end(arguments);
	exit(1);
}

void
fatalx(const char *format, ...)
{
	va_list arguments;

	va_start(arguments, format);
	log_vmessage(LOG_CRIT, format, arguments);
	va_end(arguments);
	exit(1);
}

void
log_reason(char *why, size_t why_size, const char *format, ...)
{
	va_list arguments;

	if (why == NULL || why_size == 0)
		return;
	va_start(arguments, format);
	vsnprintf(why, why_size, format, arguments);
	va_end(arguments);
}
