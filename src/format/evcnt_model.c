#include "format/evcnt_model.h"

const struct dci_datum_info evcnt_model_datums[] = {
    {
        .id = EVCNT_DATUM_COUNT,
        .label = "count",
        .type = DCI_ST_INTEGER64,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .size = 0,
        .volatility = DCI_SV_VOLATILE,
        .unit = DCI_UNIT_EVENTS,
        .semantics = DCI_SEMANTICS_COUNTER,
        .description = "Events counted: the sum over the CPUs for a total, "
                       "one CPU's for a per-CPU count",
    },
    {
        .id = EVCNT_DATUM_TYPE,
        .label = "type",
        .type = DCI_ST_INTEGER32,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .size = 0,
        .volatility = DCI_SV_STATIC,
        .unit = DCI_UNIT_NONE,
        .semantics = DCI_SEMANTICS_DISCRETE,
        .description = "evcnt(9) counter type: 0 miscellaneous (softirqs), "
                       "1 interrupt",
    },
    {
        .id = EVCNT_DATUM_GROUP,
        .label = "group",
        .type = DCI_ST_STRING,
        .format = DCI_SSF_ZEROTERM,
        .presentation = DCI_SSP_LITERAL,
        .size = EVCNT_MODEL_STRING_SIZE,
        .volatility = DCI_SV_STATIC,
        .unit = DCI_UNIT_NONE,
        .semantics = DCI_SEMANTICS_DISCRETE,
        .description = "evcnt(9) group: the interrupt chip, the row's key "
                       "(LOC, NMI), or softirq",
    },
    {
        .id = EVCNT_DATUM_NAME,
        .label = "name",
        .type = DCI_ST_STRING,
        .format = DCI_SSF_ZEROTERM,
        .presentation = DCI_SSP_LITERAL,
        .size = EVCNT_MODEL_STRING_SIZE,
        .volatility = DCI_SV_STATIC,
        .unit = DCI_UNIT_NONE,
        .semantics = DCI_SEMANTICS_DISCRETE,
        .description = "evcnt(9) name of the event within its group",
    },
    {
        .id = EVCNT_DATUM_CPU,
        .label = "cpu",
        .type = DCI_ST_INTEGER32,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .size = 0,
        .volatility = DCI_SV_STATIC,
        .unit = DCI_UNIT_NONE,
        .semantics = DCI_SEMANTICS_DISCRETE,
        .description = "CPU number of a per-CPU count (absent on totals)",
    },
    {
        .id = EVCNT_DATUM_IRQ,
        .label = "irq",
        .type = DCI_ST_INTEGER32,
        .format = DCI_SIF_UNSIGNED,
        .presentation = DCI_SIP_DECIMAL,
        .size = 0,
        .volatility = DCI_SV_STATIC,
        .unit = DCI_UNIT_NONE,
        .semantics = DCI_SEMANTICS_DISCRETE,
        .description = "IRQ number of a numbered interrupt line",
    },
};

_Static_assert(sizeof evcnt_model_datums / sizeof evcnt_model_datums[0] ==
        EVCNT_MODEL_DATUM_COUNT,
    "the datum count");
