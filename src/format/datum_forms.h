/*
 * The datum descriptions the format models (devstat, evcnt) use more than
 * once, each written here once: a model's table names the form and gives
 * what differs (id, label, unit, size, description). A datum of a form of
 * its own stays written out in its model.
 */
#ifndef DCISTAT_FORMAT_DATUM_FORMS_H
#define DCISTAT_FORMAT_DATUM_FORMS_H

#include <dcistat/provider.h>

/* A 64-bit counter. */
#define DATUM_FORM_COUNTER64(datum_id, datum_label, datum_unit, text)          \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = DCI_ST_INTEGER64, .format = DCI_SIF_UNSIGNED,          \
		.presentation = DCI_SIP_DECIMAL, .size = 0,                    \
		.volatility = DCI_SV_VOLATILE, .unit = (datum_unit),           \
		.semantics = DCI_SEMANTICS_COUNTER, .description = (text),     \
	}

/* A 32-bit number fixed for the instance's life, shown in decimal. */
#define DATUM_FORM_STATIC_NUMBER(datum_id, datum_label, datum_unit, text)      \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = DCI_ST_INTEGER32, .format = DCI_SIF_UNSIGNED,          \
		.presentation = DCI_SIP_DECIMAL, .size = 0,                    \
		.volatility = DCI_SV_STATIC, .unit = (datum_unit),             \
		.semantics = DCI_SEMANTICS_DISCRETE, .description = (text),    \
	}

/* A 32-bit value fixed for the instance's life, shown in hexadecimal. */
#define DATUM_FORM_FLAGS(datum_id, datum_label, text)                          \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = DCI_ST_INTEGER32, .format = DCI_SIF_UNSIGNED,          \
		.presentation = DCI_SIP_HEXADECIMAL, .size = 0,                \
		.volatility = DCI_SV_STATIC, .unit = DCI_UNIT_NONE,            \
		.semantics = DCI_SEMANTICS_DISCRETE, .description = (text),    \
	}

/* A yes/no attribute fixed for the instance's life. */
#define DATUM_FORM_BOOLEAN(datum_id, datum_label, text)                        \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = DCI_ST_BOOLEAN, .format = DCI_SBF_NORMAL,              \
		.presentation = DCI_SBP_YES_NO, .size = 0,                     \
		.volatility = DCI_SV_STATIC, .unit = DCI_UNIT_NONE,            \
		.semantics = DCI_SEMANTICS_DISCRETE, .description = (text),    \
	}

/* A NUL-terminated string of at most datum_size bytes, NUL included, fixed
 * for the instance's life. */
#define DATUM_FORM_STATIC_STRING(datum_id, datum_label, datum_size, text)      \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = DCI_ST_STRING, .format = DCI_SSF_ZEROTERM,             \
		.presentation = DCI_SSP_LITERAL, .size = (datum_size),         \
		.volatility = DCI_SV_STATIC, .unit = DCI_UNIT_NONE,            \
		.semantics = DCI_SEMANTICS_DISCRETE, .description = (text),    \
	}

#endif
