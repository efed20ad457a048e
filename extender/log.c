/* SPDX-License-Identifier: Apache-2.0 */
/* logfmt lines on stderr. */
#include "extender/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static _Atomic int current_level = CONFIG_LOG_INFO;

void log_set_level(enum config_log_level level)
{
	atomic_store(&current_level, (int)level);
}

enum config_log_level log_get_level(void)
{
	return (enum config_log_level)atomic_load(&current_level);
}

int log_enabled(enum config_log_level level)
{
	return (int)level <= atomic_load(&current_level);
}

const char *log_quote(const char *s, char *buf, unsigned long size)
{
	unsigned long o = 0;

	if (size < 3) {
		if (size)
			buf[0] = '\0';
		return buf;
	}
	buf[o++] = '"';
	for (; *s && o + 5 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			o += (unsigned long)snprintf(buf + o, size - o, "\\x%02x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}

void log_event(enum config_log_level level, const char *msg, const char *fmt, ...)
{
	char line[4096], quoted[1024];
	struct timespec ts;
	struct tm tm;
	size_t len;
	va_list ap;
	ssize_t w;

	if (!log_enabled(level))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	len = strftime(line, sizeof line, "time=%Y-%m-%dT%H:%M:%S", &tm);
	len += (size_t)snprintf(line + len, sizeof line - len, ".%03ldZ level=%s msg=%s",
				ts.tv_nsec / 1000000, config_log_level_name(level),
				log_quote(msg, quoted, sizeof quoted));
	if (fmt != NULL && len < sizeof line - 2) {
		line[len++] = ' ';
		va_start(ap, fmt);
		vsnprintf(line + len, sizeof line - len, fmt, ap);
		va_end(ap);
		len = strlen(line);
	}
	if (len > sizeof line - 2)
		len = sizeof line - 2;
	line[len++] = '\n';
	/* One write per line keeps concurrent lines whole. */
	w = write(STDERR_FILENO, line, len);
	(void)w;
}
