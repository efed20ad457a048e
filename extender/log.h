/* SPDX-License-Identifier: Apache-2.0 */
/* Leveled logging to stderr, one line per event in logfmt:
 *   time=2026-11-29T15:50:01.123Z level=info msg="inventory loaded" nodes=7
 * Thread-safe (one write per line). The level can change at run time. Owns
 * the log levels and their names (the configuration's log.level reads them
 * from here). */
#ifndef EXTENDER_LOG_H
#define EXTENDER_LOG_H

enum log_level {
	LOG_LEVEL_ERROR,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
	LOG_LEVEL_COUNT,
};

/* "error", "warn", "info", "debug" in enum order, then NULL. */
extern const char *const log_level_names[LOG_LEVEL_COUNT + 1];
/* The level's name; "unknown" outside the enum. */
const char *log_level_name(enum log_level level);

void log_set_level(enum log_level level);
int log_enabled(enum log_level level);

/* msg is quoted; fmt, if not NULL, appends key=value pairs. Every value that
 * comes from outside (a request, the API server, a file, a node agent) or may
 * hold spaces goes through log_q, so that it cannot forge fields; control
 * bytes anywhere in the pairs are written as \xNN, so that nothing can forge
 * a line. */
void log_event(enum log_level level, const char *msg, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Writes s as a logfmt quoted value into buf ("..." with \" and \\ escaped,
 * control bytes as \xNN, cut to fit with whole escapes); returns buf. */
const char *log_quote(const char *s, char *buf, unsigned long size);

/* log_quote into one of LOG_Q_SLOTS per-thread buffers of LOG_Q_BYTES, used
 * round-robin: valid until LOG_Q_SLOTS more calls on the same thread, which
 * is enough for the arguments of one log line. NULL reads as "". */
#define LOG_Q_SLOTS 8
#define LOG_Q_BYTES 1024
const char *log_q(const char *s);

#define log_error(msg, ...) log_event(LOG_LEVEL_ERROR, msg, __VA_ARGS__)
#define log_warn(msg, ...) log_event(LOG_LEVEL_WARN, msg, __VA_ARGS__)
#define log_info(msg, ...) log_event(LOG_LEVEL_INFO, msg, __VA_ARGS__)
#define log_debug(msg, ...) log_event(LOG_LEVEL_DEBUG, msg, __VA_ARGS__)

#endif
