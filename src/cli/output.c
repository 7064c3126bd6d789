/* Output format dispatch (output.h). */
#define _GNU_SOURCE
#include "cli/output.h"

#include "cli/json.h"
#include "cli/openmetrics.h"
#include "cli/text_table.h"

int
cli_output_write(FILE *out, enum cli_format format,
    const struct cli_document *document, const struct cli_text_style *style)
{
	switch (format) {
	case CLI_FORMAT_TEXT:
		cli_text_table_write(out, document, style);
		break;
	case CLI_FORMAT_JSON:
		cli_json_write(out, document);
		break;
	case CLI_FORMAT_OPENMETRICS:
		cli_openmetrics_write(
		    out, document, CLI_EXPOSITION_OPENMETRICS);
		break;
	case CLI_FORMAT_PROMETHEUS:
		cli_openmetrics_write(out, document, CLI_EXPOSITION_PROMETHEUS);
		break;
	}
	return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
