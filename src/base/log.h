/*
 * Logging for dcistatd and its libraries, after OpenBSD's log.c: one target
 * (stderr, syslog or a file), log_warn appends strerror(errno), log_warnx
 * does not, log_debug prints only for subsystem tokens enabled with -D.
 * Called from the main thread, and from a provider's refresh thread once
 * it called log_defer_this_thread: its messages wait for the main
 * thread's log_flush_deferred.
 *
 * A message reaches its sink escaped (text/escape.h, terminal mode):
 * control bytes, C1 controls and bytes that are no UTF-8 become "\xHH",
 * so no argument can end the line or drive a terminal. Quote an outside
 * string with dci_text_quote all the same: the reader then sees it
 * exactly, quotes and backslashes included.
 */
#ifndef DCISTAT_LOG_H
#define DCISTAT_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define LOG_FORMAT(a, b) __attribute__((format(printf, a, b)))

/* target: "stderr", "syslog", or an absolute file path. Returns 0 or -1
 * (the file cannot be opened; errno says why, logging stays on stderr). */
int log_open(const char *target, const char *program_name);
void log_close(void);

/* Hands each message (syslog level, text without newline) to `sink`
 * instead of the log_open target: the log of a host that loaded us, such
 * as snmpd's (agent/dlmod.c). NULL returns to the log_open target. */
void log_set_sink(void (*sink)(int level, const char *message));

/* Comma-separated subsystem tokens ("agent,netsnmp", "all"); NULL clears. */
void log_set_debug_tokens(const char *tokens);
bool log_debug_enabled(const char *token);

/* level is a syslog level (LOG_ERR ... LOG_DEBUG). */
void log_vmessage(int level, const char *format, va_list arguments)
    LOG_FORMAT(2, 0);
void log_message(int level, const char *format, ...) LOG_FORMAT(2, 3);

void log_warn(const char *format, ...) LOG_FORMAT(1, 2);
void log_warnx(const char *format, ...) LOG_FORMAT(1, 2);
void log_notice(const char *format, ...) LOG_FORMAT(1, 2);
void log_info(const char *format, ...) LOG_FORMAT(1, 2);
void log_debug(const char *token, const char *format, ...) LOG_FORMAT(2, 3);

/* The calling thread's messages are queued (a bounded queue: past it
 * they are counted as dropped) until the main thread flushes them. */
void log_defer_this_thread(void);
/* Main thread: writes the queued messages, in order. */
void log_flush_deferred(void);

/* Formats a refusal reason into a caller's buffer (NULL or size 0: none).
 * Validation code returns its reasons this way so that the caller can
 * prefix what it knows (file and position, provider, class). */
void log_reason(char *why, size_t why_size, const char *format, ...)
    LOG_FORMAT(3, 4);

/* Start-up only: log and exit(1). */
void fatal(const char *format, ...) LOG_FORMAT(1, 2) __attribute__((noreturn));
void fatalx(const char *format, ...) LOG_FORMAT(1, 2) __attribute__((noreturn));

#endif
