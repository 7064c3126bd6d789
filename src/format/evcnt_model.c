#include "format/datum_forms.h"
#include "format/evcnt_model.h"

const struct dci_datum_info evcnt_model_datums[] = {
    DATUM_FORM_COUNTER64(EVCNT_DATUM_COUNT, "count", DCI_UNIT_EVENTS,
        "Events counted: the sum over the CPUs for a total, one CPU's for a "
        "per-CPU count"),
    DATUM_FORM_STATIC_NUMBER(EVCNT_DATUM_TYPE, "type", DCI_UNIT_NONE,
        "evcnt(9) counter type: 0 miscellaneous (softirqs), 1 interrupt"),
    DATUM_FORM_STATIC_STRING(EVCNT_DATUM_GROUP, "group",
        EVCNT_MODEL_STRING_SIZE,
        "evcnt(9) group: the interrupt chip, the row's key (LOC, NMI), or "
        "softirq"),
    DATUM_FORM_STATIC_STRING(EVCNT_DATUM_NAME, "name", EVCNT_MODEL_STRING_SIZE,
        "evcnt(9) name of the event within its group"),
    DATUM_FORM_STATIC_NUMBER(EVCNT_DATUM_CPU, "cpu", DCI_UNIT_NONE,
        "CPU number of a per-CPU count (absent on totals)"),
    DATUM_FORM_STATIC_NUMBER(EVCNT_DATUM_IRQ, "irq", DCI_UNIT_NONE,
        "IRQ number of a numbered interrupt line"),
};

_Static_assert(sizeof evcnt_model_datums / sizeof evcnt_model_datums[0] ==
                   EVCNT_MODEL_DATUM_COUNT,
    "the datum count");
