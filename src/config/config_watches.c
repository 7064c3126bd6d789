/* The configuration's data-changed watches checked against the classes
 * providers registered (config.h: dci_config_check_watches). */
#include "config/config.h"

#include "model/events.h"
#include "base/log.h"
#include "model/registry.h"

#include <stddef.h>

int
dci_config_check_watches(const struct dci_config *config,
    const struct dci_registry *registry, char *error, size_t error_size)
{
	const struct dci_config_notifications *notifications =
	    &config->notifications;

	for (size_t w = 0; w < notifications->data_changed_count; w++) {
		const struct dci_config_watch *watch =
		    &notifications->data_changed[w];
		const struct dci_class *class =
		    dci_registry_find_class(registry, watch->class_name);

		if (class == NULL) {
			log_warnx("%s:%u:%u: data-changed: no provider "
			          "registered class \"%s\" (yet); its changes "
			          "are notified once one does",
			    watch->position.file, watch->position.line,
			    watch->position.column, watch->class_name);
			continue;
		}
		for (size_t d = 0; d < watch->datum_count; d++) {
			const struct dci_config_position *at =
			    &watch->datum_positions[d];
			const struct dci_datum *datum =
			    dci_class_find_datum_by_name(
			        class, watch->datums[d]);

			if (datum == NULL) {
				log_reason(error, error_size,
				    "%s:%u:%u: data-changed: class \"%s\" has "
				    "no datum \"%s\"",
				    at->file, at->line, at->column,
				    class->label, watch->datums[d]);
				return -1;
			}
			if (!dci_events_datum_watchable(datum)) {
				log_reason(error, error_size,
				    "%s:%u:%u: data-changed: datum \"%s\" of "
				    "class \"%s\" is %s; expected a gauge, a "
				    "text, an address, a time or a boolean",
				    at->file, at->line, at->column,
				    watch->datums[d], class->label,
				    datum->kind == DCI_KIND_NONE
				        ? "unused"
				        : "a counter (its rate is what "
				          "changes)");
				return -1;
			}
		}
	}
	return 0;
}
