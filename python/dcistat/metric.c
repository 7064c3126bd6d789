/*
 * Counters and gauges: each metric is a generic class of its own (one
 * datum, "value", id 1; one instance level of one word) and each label
 * an instance of it, numbered in the order the labels came.
 */
#include "pydcistat.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>

#define METRIC_DATUM_ID 1u
/* A float gauge's range: a signed 32-bit number of hundredths. */
#define FLOAT_GAUGE_LIMIT 21474836.47

typedef struct {
	PyObject ob_base;           /* PyObject_HEAD */
	pydci_supplier *supplier;   /* pydci_family: supplier */
	PyObject *name;             /* pydci_family: name */
	PyObject *instances;        /* pydci_family: members */
	PyObject *default_instance; /* pydci_family: default_member */
	const struct pydci_member_operations *operations; /* pydci_family */
	struct dcistat_class *handle;
	int kind; /* enum pydci_metric_kind */
	int datum_index;
	uint32_t relative_id; /* served as {3, number, relative_id} */
	uint32_t next_instance_word;
} metric_object;
_Static_assert(
    offsetof(metric_object, supplier) == offsetof(pydci_family, supplier) &&
        offsetof(metric_object, name) == offsetof(pydci_family, name) &&
        offsetof(metric_object, instances) == offsetof(pydci_family, members) &&
        offsetof(metric_object, default_instance) ==
            offsetof(pydci_family, default_member) &&
        offsetof(metric_object, operations) ==
            offsetof(pydci_family, operations),
    "a metric_object starts as a pydci_family");

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	metric_object *metric;           /* pydci_member: family */
	PyObject *label;                 /* pydci_member: label */
	struct dcistat_instance *handle; /* NULL once removed */
} instance_object;
_Static_assert(
    offsetof(instance_object, metric) == offsetof(pydci_member, family) &&
        offsetof(instance_object, label) == offsetof(pydci_member, label),
    "an instance_object starts as a pydci_member");

/* --- values --- */

/* `object` as the 64-bit word a gauge adds or sets (two's complement for a
 * negative one, hundredths for a float gauge). */
static int
gauge_word(int kind, PyObject *object, uint64_t *word)
{
	int64_t value;
	double number;

	if (kind != PYDCI_FLOAT_GAUGE) {
		if (pydci_i64(object, "value", &value) != 0)
			return -1;
		*word = (uint64_t)value;
		return 0;
	}
	if (!PyFloat_Check(object) && !PyLong_Check(object)) {
		PyErr_Format(PyExc_TypeError,
		    "value must be a float or an int, not %.100s",
		    Py_TYPE(object)->tp_name);
		return -1;
	}
	number = PyFloat_AsDouble(object);
	if (number == -1.0 && PyErr_Occurred())
		return -1;
	if (!isfinite(number)) {
		PyErr_SetString(PyExc_ValueError, "value is not finite");
		return -1;
	}
	if (fabs(number) > FLOAT_GAUGE_LIMIT) {
		PyErr_Format(PyExc_OverflowError,
		    "value is outside +-%.2f (hundredths in 32 bits)",
		    FLOAT_GAUGE_LIMIT);
		return -1;
	}
	*word = (uint64_t)(int64_t)llround(number * 100.0);
	return 0;
}

static int
instance_usable(instance_object *self)
{
	if (pydci_supplier_usable(self->metric->supplier) != 0)
		return -1;
	if (self->handle == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "the instance was removed");
		return -1;
	}
	return 0;
}

/* inc(amount=1) of a counter or a gauge; dec is inc of the negation. */
static PyObject *
instance_add(
    instance_object *self, PyObject *const *args, Py_ssize_t count, bool negate)
{
	int kind = self->metric->kind;
	uint64_t word = 1;

	if (count > 1) {
		PyErr_Format(PyExc_TypeError,
		    "takes at most 1 argument (%zd given)", count);
		return NULL;
	}
	if (instance_usable(self) != 0)
		return NULL;
	if (kind == PYDCI_COUNTER) {
		if (negate) {
			PyErr_SetString(PyExc_TypeError,
			    "a counter only goes up: it has no dec()");
			return NULL;
		}
		if (count == 1 && pydci_u64(args[0], "amount", &word) != 0)
			return NULL;
	} else if (count == 1) {
		if (gauge_word(kind, args[0], &word) != 0)
			return NULL;
	} else if (kind == PYDCI_FLOAT_GAUGE) {
		word = 100;
	}
	if (negate)
		word = (uint64_t)0 - word;
	dcistat_value_add(self->handle, self->metric->datum_index, word);
	Py_RETURN_NONE;
}

static PyObject *
instance_inc(instance_object *self, PyObject *const *args, Py_ssize_t count)
{
	return instance_add(self, args, count, false);
}

static PyObject *
instance_dec(instance_object *self, PyObject *const *args, Py_ssize_t count)
{
	return instance_add(self, args, count, true);
}

static PyObject *
instance_set(instance_object *self, PyObject *value)
{
	uint64_t word;

	if (instance_usable(self) != 0)
		return NULL;
	if (self->metric->kind == PYDCI_COUNTER) {
		PyErr_SetString(PyExc_TypeError,
		    "a counter is only added to: it has no set()");
		return NULL;
	}
	if (gauge_word(self->metric->kind, value, &word) != 0)
		return NULL;
	if (dcistat_value_set(self->handle, self->metric->datum_index, word) !=
	    0)
		return pydci_raise_library(errno);
	Py_RETURN_NONE;
}

static PyMethodDef instance_methods[] = {
    {"inc", (PyCFunction)(void (*)(void))instance_inc, METH_FASTCALL,
        "inc(amount=1)\n--\n\nAdds `amount` (a counter: an int 0 .. "
        "2**64 - 1; it wraps at 2**64)."},
    {"dec", (PyCFunction)(void (*)(void))instance_dec, METH_FASTCALL,
        "dec(amount=1)\n--\n\nSubtracts `amount` from a gauge."},
    {"set", (PyCFunction)instance_set, METH_O,
        "set(value)\n--\n\nSets a gauge."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef instance_getset[] = {
    {"label", (getter)pydci_member_get_label, NULL, "the instance's label",
        NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_instance_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Instance",
    .tp_basicsize = sizeof(instance_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)pydci_member_traverse,
    .tp_clear = (inquiry)pydci_member_clear,
    .tp_doc = "One labelled instance of a counter or gauge "
              "(Counter.labels(label)).",
    .tp_dealloc = (destructor)pydci_member_dealloc,
    .tp_methods = instance_methods,
    .tp_getset = instance_getset,
};

/* --- metrics --- */

/* The instance labelled `label` (a str), made when new. A new reference. */
/* The library's side of a new instance (pydci_member_operations). */
static int
instance_add_to_class(
    pydci_family *family, pydci_member *member, const char *text)
{
	metric_object *metric = (metric_object *)family;
	instance_object *instance = (instance_object *)member;
	uint32_t word = metric->next_instance_word;

	instance->handle = dcistat_instance_add(metric->handle, &word, 1, text);
	if (instance->handle == NULL)
		return -1;
	metric->next_instance_word++;
	return 0;
}

static void
instance_remove_from_class(pydci_member *member)
{
	dcistat_instance_remove(((instance_object *)member)->handle);
}

static const struct pydci_member_operations instance_operations = {
    .type = &pydci_instance_type,
    .add = instance_add_to_class,
    .remove = instance_remove_from_class,
};

static PyObject *
metric_inc(metric_object *self, PyObject *const *args, Py_ssize_t count)
{
	instance_object *instance =
	    (instance_object *)pydci_family_default((pydci_family *)self);

	return instance != NULL ? instance_add(instance, args, count, false)
	                        : NULL;
}

static PyObject *
metric_dec(metric_object *self, PyObject *const *args, Py_ssize_t count)
{
	instance_object *instance =
	    (instance_object *)pydci_family_default((pydci_family *)self);

	return instance != NULL ? instance_add(instance, args, count, true)
	                        : NULL;
}

static PyObject *
metric_set(metric_object *self, PyObject *value)
{
	instance_object *instance =
	    (instance_object *)pydci_family_default((pydci_family *)self);

	return instance != NULL ? instance_set(instance, value) : NULL;
}

static PyObject *
metric_remove(metric_object *self, PyObject *label)
{
	instance_object *instance =
	    (instance_object *)pydci_family_member_to_remove(
	        (pydci_family *)self, label);

	if (instance == NULL)
		return NULL;
	if (dcistat_instance_remove(instance->handle) != 0)
		return pydci_raise_library(errno);
	instance->handle = NULL;
	return pydci_family_forget(
	    (pydci_family *)self, (PyObject *)instance, label);
}

static PyObject *
metric_get_class_id(metric_object *self, void *unused)
{
	return Py_BuildValue("(III)", DCISTAT_SUPPLIER_CLASS_ARC,
	    self->supplier->number, self->relative_id);
}

static PyMethodDef metric_methods[] = {
    {"labels", (PyCFunction)pydci_family_member, METH_O,
        "labels(label)\n--\n\nThe instance labelled `label` (1 .. 255 "
        "bytes of UTF-8, no NUL), added at its first use."},
    {"remove", (PyCFunction)metric_remove, METH_O,
        "remove(label)\n--\n\nRemoves an instance: its rows go."},
    {"inc", (PyCFunction)(void (*)(void))metric_inc, METH_FASTCALL,
        "inc(amount=1)\n--\n\nAdds to the instance labelled as the "
        "metric."},
    {"dec", (PyCFunction)(void (*)(void))metric_dec, METH_FASTCALL,
        "dec(amount=1)\n--\n\nSubtracts from a gauge's instance labelled "
        "as the metric."},
    {"set", (PyCFunction)metric_set, METH_O,
        "set(value)\n--\n\nSets a gauge's instance labelled as the "
        "metric."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef metric_getset[] = {
    {"name", (getter)pydci_family_get_name, NULL, "the class label", NULL},
    {"class_id", (getter)metric_get_class_id, NULL,
        "the class id served: (3, supplier number, relative id)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_metric_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Metric",
    .tp_basicsize = sizeof(metric_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)pydci_family_traverse,
    .tp_clear = (inquiry)pydci_family_clear,
    .tp_doc = "A counter or gauge class (Supplier.counter, .gauge, "
              ".float_gauge): one value per labelled instance.",
    .tp_dealloc = (destructor)pydci_family_dealloc,
    .tp_methods = metric_methods,
    .tp_getset = metric_getset,
};

PyObject *
pydci_metric_new(
    pydci_supplier *supplier, PyObject *args, PyObject *keywords, int kind)
{
	static char *names[] = {"name", "description", "unit", NULL};
	static char *float_names[] = {"name", "description", NULL};
	PyObject *name_object, *description_object = Py_None;
	PyObject *unit_object = Py_None;
	struct dci_datum_info datum = {.id = METRIC_DATUM_ID,
	    .label = "value",
	    .type = DCI_ST_INTEGER64,
	    .volatility = DCI_SV_VOLATILE,
	    .presentation = DCI_SIP_DECIMAL};
	struct dci_instance_level level = {
	    .itype = DCI_ITYPE_SINGLEINST, .size = 4};
	struct dci_class_info info = {.id_length = 1,
	    .levels = &level,
	    .level_count = 1,
	    .datums = &datum,
	    .datum_count = 1};
	uint32_t relative_id;
	metric_object *metric;
	int parsed;

	if (kind == PYDCI_FLOAT_GAUGE)
		parsed = PyArg_ParseTupleAndKeywords(args, keywords, "U|O",
		    float_names, &name_object, &description_object);
	else
		parsed = PyArg_ParseTupleAndKeywords(args, keywords, "U|OO",
		    names, &name_object, &description_object, &unit_object);
	if (!parsed || pydci_supplier_usable(supplier) != 0)
		return NULL;
	info.label = pydci_text(name_object, "name", DCI_LABEL_MAX);
	if (info.label == NULL)
		return NULL;
	if (description_object != Py_None &&
	    (info.description = datum.description = pydci_text(
	         description_object, "description", DCI_STRING_MAX)) == NULL)
		return NULL;
	if (pydci_unit(unit_object, &datum.unit) != 0)
		return NULL;
	switch (kind) {
	case PYDCI_COUNTER:
		datum.format = DCI_SIF_UNSIGNED;
		datum.semantics = DCI_SEMANTICS_COUNTER;
		break;
	case PYDCI_GAUGE:
		datum.semantics = DCI_SEMANTICS_GAUGE;
		break;
	default:
		datum.type = DCI_ST_INTEGER32;
		datum.unit = DCI_UNIT_HUNDREDTHS;
		datum.semantics = DCI_SEMANTICS_GAUGE;
		break;
	}
	relative_id = DCISTAT_CLASS_FIRST_GENERIC + supplier->classes_added;
	info.id = &relative_id;
	metric = PyObject_GC_New(metric_object, &pydci_metric_type);
	if (metric == NULL)
		return NULL;
	Py_INCREF(supplier);
	metric->supplier = supplier;
	metric->kind = kind;
	metric->relative_id = relative_id;
	metric->next_instance_word = 1;
	Py_INCREF(name_object);
	metric->name = name_object;
	metric->default_instance = NULL;
	metric->operations = &instance_operations;
	metric->instances = PyDict_New();
	metric->handle = NULL;
	PyObject_GC_Track(metric);
	if (metric->instances == NULL) {
		Py_DECREF(metric);
		return NULL;
	}
	errno = 0;
	metric->handle = dcistat_class_add(supplier->handle, &info);
	if (metric->handle == NULL) {
		int error_number = errno;

		Py_DECREF(metric);
		return pydci_raise_library(error_number);
	}
	supplier->classes_added++;
	metric->datum_index =
	    dcistat_datum_index(metric->handle, METRIC_DATUM_ID);
	return (PyObject *)metric;
}

int
pydci_metric_ready(PyObject *module)
{
	if (PyType_Ready(&pydci_metric_type) < 0 ||
	    PyType_Ready(&pydci_instance_type) < 0)
		return -1;
	if (PyModule_AddObjectRef(
	        module, "Metric", (PyObject *)&pydci_metric_type) < 0 ||
	    PyModule_AddObjectRef(
	        module, "Instance", (PyObject *)&pydci_instance_type) < 0)
		return -1;
	return 0;
}
