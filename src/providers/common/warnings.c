#include "warnings.h"

#include <stdlib.h>

#include "growable.h"

/* FNV-1a: enough to tell two messages about one line apart. */
static uint32_t
warnings_hash(const char *text)
{
	uint32_t hash = 2166136261u;

	for (; *text != '\0'; text++)
		hash = (hash ^ (unsigned char)*text) * 16777619u;
	return hash;
}

void
provider_warnings_begin(struct provider_warnings *warnings)
{
	warnings->seen_count = 0;
}

bool
provider_warnings_note(struct provider_warnings *warnings, uint32_t source,
    unsigned line, const char *message)
{
	struct provider_warning problem = {
	    .source = source,
	    .line = line,
	    .message_hash = warnings_hash(message),
	};
	struct provider_warning *seen;

	seen = provider_grow(warnings->seen, &warnings->seen_capacity,
	    warnings->seen_count + 1, sizeof *seen);
	if (seen != NULL) {
		warnings->seen = seen;
		seen[warnings->seen_count++] = problem;
	}
	for (size_t i = 0; i < warnings->logged_count; i++) {
		const struct provider_warning *known = &warnings->logged[i];
		if (known->source == problem.source &&
		    known->line == problem.line &&
		    known->message_hash == problem.message_hash)
			return false;
	}
	return true;
}

void
provider_warnings_end(struct provider_warnings *warnings)
{
	struct provider_warning *items = warnings->logged;
	size_t capacity = warnings->logged_capacity;

	warnings->logged = warnings->seen;
	warnings->logged_count = warnings->seen_count;
	warnings->logged_capacity = warnings->seen_capacity;
	warnings->seen = items;
	warnings->seen_capacity = capacity;
	warnings->seen_count = 0;
}

void
provider_warnings_free(struct provider_warnings *warnings)
{
	free(warnings->logged);
	free(warnings->seen);
	*warnings = (struct provider_warnings){0};
}
