/*
 * Datum and class descriptions written as one entry each. DATUM_INFO and
 * CLASS_INFO give every field of a struct dci_datum_info or struct
 * dci_class_info in the order the struct declares them; the named datum
 * forms below are the descriptions the format models (devstat, evcnt) and
 * the built-in providers use more than once: a table names the form and
 * gives what differs (id, label, unit, size, description).
 */
#ifndef DCISTAT_FORMAT_DATUM_FORMS_H
#define DCISTAT_FORMAT_DATUM_FORMS_H

#include <dcistat/provider.h>

/* A struct dci_datum_info initializer, its fields in declaration order.
 * A size of 0 is the type's natural size; only strings and addresses
 * give one. */
#define DATUM_INFO(datum_id, datum_label, datum_type, datum_format,            \
    datum_presentation, datum_size, datum_volatility, datum_unit,              \
    datum_semantics, text)                                                     \
	{                                                                      \
		.id = (datum_id), .label = (datum_label),                      \
		.type = (datum_type), .format = (datum_format),                \
		.presentation = (datum_presentation), .size = (datum_size),    \
		.volatility = (datum_volatility), .unit = (datum_unit),        \
		.semantics = (datum_semantics), .description = (text),         \
	}

/* The number of elements of an array (an array, never a pointer). */
#define FORM_ELEMENTS(array) (sizeof(array) / sizeof((array)[0]))

/* A struct dci_class_info initializer, its fields in declaration order.
 * The description may be NULL. */
#define CLASS_INFO(class_id, class_id_length, class_label, text, class_levels, \
    class_level_count, class_datums, class_datum_count)                        \
	{                                                                      \
		.id = (class_id), .id_length = (class_id_length),              \
		.label = (class_label), .description = (text),                 \
		.levels = (class_levels), .level_count = (class_level_count),  \
		.datums = (class_datums), .datum_count = (class_datum_count),  \
	}

/* A 64-bit counter. */
#define DATUM_FORM_COUNTER64(datum_id, datum_label, datum_unit, text)          \
	DATUM_INFO(datum_id, datum_label, DCI_ST_INTEGER64, DCI_SIF_UNSIGNED,  \
	    DCI_SIP_DECIMAL, 0, DCI_SV_VOLATILE, datum_unit,                   \
	    DCI_SEMANTICS_COUNTER, text)

/* A 32-bit gauge, shown in decimal. */
#define DATUM_FORM_GAUGE32(datum_id, datum_label, datum_unit, text)            \
	DATUM_INFO(datum_id, datum_label, DCI_ST_INTEGER32, DCI_SIF_UNSIGNED,  \
	    DCI_SIP_DECIMAL, 0, DCI_SV_VOLATILE, datum_unit,                   \
	    DCI_SEMANTICS_GAUGE, text)

/* A moment of CLOCK_MONOTONIC (DCI_STF_MONOTONIC, absolute). */
#define DATUM_FORM_MOMENT(                                                     \
    datum_id, datum_label, datum_volatility, datum_unit, text)                 \
	DATUM_INFO(datum_id, datum_label, DCI_ST_TIME, DCI_STF_MONOTONIC,      \
	    DCI_STP_ABSOLUTE, 0, datum_volatility, datum_unit,                 \
	    DCI_SEMANTICS_DISCRETE, text)

/* A 32-bit number fixed for the instance's life, shown in decimal. */
#define DATUM_FORM_STATIC_NUMBER(datum_id, datum_label, datum_unit, text)      \
	DATUM_INFO(datum_id, datum_label, DCI_ST_INTEGER32, DCI_SIF_UNSIGNED,  \
	    DCI_SIP_DECIMAL, 0, DCI_SV_STATIC, datum_unit,                     \
	    DCI_SEMANTICS_DISCRETE, text)

/* A 32-bit value fixed for the instance's life, shown in hexadecimal. */
#define DATUM_FORM_FLAGS(datum_id, datum_label, text)                          \
	DATUM_INFO(datum_id, datum_label, DCI_ST_INTEGER32, DCI_SIF_UNSIGNED,  \
	    DCI_SIP_HEXADECIMAL, 0, DCI_SV_STATIC, DCI_UNIT_NONE,              \
	    DCI_SEMANTICS_DISCRETE, text)

/* A yes/no attribute fixed for the instance's life. */
#define DATUM_FORM_BOOLEAN(datum_id, datum_label, text)                        \
	DATUM_INFO(datum_id, datum_label, DCI_ST_BOOLEAN, DCI_SBF_NORMAL,      \
	    DCI_SBP_YES_NO, 0, DCI_SV_STATIC, DCI_UNIT_NONE,                   \
	    DCI_SEMANTICS_DISCRETE, text)

/* A NUL-terminated string of at most datum_size bytes, NUL included, fixed
 * for the instance's life. */
#define DATUM_FORM_STATIC_STRING(datum_id, datum_label, datum_size, text)      \
	DATUM_INFO(datum_id, datum_label, DCI_ST_STRING, DCI_SSF_ZEROTERM,     \
	    DCI_SSP_LITERAL, datum_size, DCI_SV_STATIC, DCI_UNIT_NONE,         \
	    DCI_SEMANTICS_DISCRETE, text)

#endif
