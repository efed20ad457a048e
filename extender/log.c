/* SPDX-License-Identifier: Apache-2.0 */
/* logfmt lines on stderr. */
#include "extender/log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/textbuf.h"

const char *const log_level_names[LOG_LEVEL_COUNT + 1] = {
	"error", "warn", "info", "debug", NULL,
};

static _Atomic int current_level = LOG_LEVEL_INFO;

const char *log_level_name(enum log_level level)
{
	return (unsigned)level < LOG_LEVEL_COUNT ? log_level_names[level] : "unknown";
}

void log_set_level(enum log_level level)
{
	atomic_store(&current_level, (int)level);
}

int log_enabled(enum log_level level)
{
	return (int)level <= atomic_load(&current_level);
}

/* Bytes that would end a line or hide text on a terminal, as \xNN. */
static bool needs_hex(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

static void put_hex(struct textbuf *t, unsigned char c)
{
	textbuf_printf(t, "\\x%02x", c);
}

const char *log_quote(const char *s, char *buf, unsigned long size)
{
	struct textbuf t;

	if (size == 0)
		return buf;
	textbuf_init_fixed(&t, buf, size);
	/* UTF-8 names stay readable; no "..." marks a cut. */
	textbuf_quote(&t, s != NULL ? s : "", s != NULL ? strlen(s) : 0, SIZE_MAX,
		      TEXTBUF_QUOTE_RAW_HIGH);
	return buf;
}

const char *log_q(const char *s)
{
	static _Thread_local char ring[LOG_Q_SLOTS][LOG_Q_BYTES];
	static _Thread_local unsigned next;

	return log_quote(s, ring[next++ % LOG_Q_SLOTS], LOG_Q_BYTES);
}

void log_event(enum log_level level, const char *msg, const char *fmt, ...)
{
	char line[4096], quoted[1024], pairs[4096];
	struct textbuf t;
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	va_list ap;
	ssize_t w;
	size_t i;

	if (!log_enabled(level))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
	/* One byte kept back for the newline. */
	textbuf_init_fixed(&t, line, sizeof line - 1);
	textbuf_printf(&t, "time=%s.%03ldZ level=%s msg=%s", stamp, ts.tv_nsec / 1000000,
		       log_level_name(level), log_quote(msg, quoted, sizeof quoted));
	if (fmt != NULL) {
		va_start(ap, fmt);
		vsnprintf(pairs, sizeof pairs, fmt, ap);
		va_end(ap);
		textbuf_addc(&t, ' ');
		/* Values should come quoted (log_q), but a raw one must still not
		 * start a line of its own: control bytes become \xNN here too. */
		for (i = 0; pairs[i] && !textbuf_failed(&t); i++) {
			if (needs_hex((unsigned char)pairs[i]))
				put_hex(&t, (unsigned char)pairs[i]);
			else
				textbuf_addc(&t, pairs[i]);
		}
	}
	line[t.len] = '\n';
	/* One write per line keeps concurrent lines whole. */
	w = write(STDERR_FILENO, line, t.len + 1);
	(void)w;
}
