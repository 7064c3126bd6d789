/*
 * Counters and gauges: each metric is a generic class of its own (one
 * datum, "value", id 1; one instance level of one word) and each label
 * an instance of it, numbered in the order the labels came.
 */
#include "pydcistat.h"

#include <errno.h>
#include <math.h>

#define METRIC_DATUM_ID 1u
/* A float gauge's range: a signed 32-bit number of hundredths. */
#define FLOAT_GAUGE_LIMIT 21474836.47

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	pydci_supplier *supplier;
	struct dcistat_class *handle;
	int kind; /* enum pydci_metric_kind */
	int datum_index;
	uint32_t relative_id; /* served as {3, number, relative_id} */
	uint32_t next_instance_word;
	PyObject *name;
	PyObject *instances;        /* label -> Instance */
	PyObject *default_instance; /* labelled as the metric; made at first
	                               unlabelled update */
} metric_object;

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	metric_object *metric;
	struct dcistat_instance *handle; /* NULL once removed */
	PyObject *label;
} instance_object;

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

static PyObject *
instance_get_label(instance_object *self, void *unused)
{
	Py_INCREF(self->label);
	return self->label;
}

/* An instance and its metric refer to each other (the metric's table of
 * labels): the cycle is the collector's. */
static int
instance_traverse(instance_object *self, visitproc visit, void *arg)
{
	Py_VISIT(self->metric);
	return 0;
}

static int
instance_clear(instance_object *self)
{
	Py_CLEAR(self->metric);
	return 0;
}

static void
instance_dealloc(instance_object *self)
{
	PyObject_GC_UnTrack(self);
	instance_clear(self);
	Py_XDECREF(self->label);
	Py_TYPE(self)->tp_free((PyObject *)self);
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
    {"label", (getter)instance_get_label, NULL, "the instance's label", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_instance_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Instance",
    .tp_basicsize = sizeof(instance_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)instance_traverse,
    .tp_clear = (inquiry)instance_clear,
    .tp_doc = "One labelled instance of a counter or gauge "
              "(Counter.labels(label)).",
    .tp_dealloc = (destructor)instance_dealloc,
    .tp_methods = instance_methods,
    .tp_getset = instance_getset,
};

/* --- metrics --- */

/* The instance labelled `label` (a str), made when new. A new reference. */
static PyObject *
metric_instance(metric_object *self, PyObject *label)
{
	instance_object *instance;
	const char *text;
	uint32_t word;

	if (pydci_supplier_usable(self->supplier) != 0)
		return NULL;
	instance =
	    (instance_object *)PyDict_GetItemWithError(self->instances, label);
	if (instance != NULL) {
		Py_INCREF(instance);
		return (PyObject *)instance;
	}
	if (PyErr_Occurred())
		return NULL;
	text = pydci_text(label, "label", DCI_LABEL_MAX);
	if (text == NULL)
		return NULL;
	instance = PyObject_GC_New(instance_object, &pydci_instance_type);
	if (instance == NULL)
		return NULL;
	Py_INCREF(self);
	instance->metric = self;
	Py_INCREF(label);
	instance->label = label;
	PyObject_GC_Track(instance);
	word = self->next_instance_word;
	errno = 0;
	instance->handle = dcistat_instance_add(self->handle, &word, 1, text);
	if (instance->handle == NULL) {
		int error_number = errno;

		Py_DECREF(instance);
		return pydci_raise_library(error_number);
	}
	self->next_instance_word++;
	if (PyDict_SetItem(self->instances, label, (PyObject *)instance) < 0) {
		dcistat_instance_remove(instance->handle);
		Py_DECREF(instance);
		return NULL;
	}
	return (PyObject *)instance;
}

static PyObject *
metric_labels(metric_object *self, PyObject *label)
{
	return metric_instance(self, label);
}

static instance_object *
metric_default(metric_object *self)
{
	if (self->default_instance == NULL)
		self->default_instance = metric_instance(self, self->name);
	return (instance_object *)self->default_instance;
}

static PyObject *
metric_inc(metric_object *self, PyObject *const *args, Py_ssize_t count)
{
	instance_object *instance = metric_default(self);

	return instance != NULL ? instance_add(instance, args, count, false)
	                        : NULL;
}

static PyObject *
metric_dec(metric_object *self, PyObject *const *args, Py_ssize_t count)
{
	instance_object *instance = metric_default(self);

	return instance != NULL ? instance_add(instance, args, count, true)
	                        : NULL;
}

static PyObject *
metric_set(metric_object *self, PyObject *value)
{
	instance_object *instance = metric_default(self);

	return instance != NULL ? instance_set(instance, value) : NULL;
}

static PyObject *
metric_remove(metric_object *self, PyObject *label)
{
	instance_object *instance;

	if (pydci_supplier_usable(self->supplier) != 0)
		return NULL;
	instance =
	    (instance_object *)PyDict_GetItemWithError(self->instances, label);
	if (instance == NULL) {
		if (!PyErr_Occurred())
			PyErr_SetObject(PyExc_KeyError, label);
		return NULL;
	}
	if (dcistat_instance_remove(instance->handle) != 0)
		return pydci_raise_library(errno);
	instance->handle = NULL;
	if ((PyObject *)instance == self->default_instance)
		Py_CLEAR(self->default_instance);
	if (PyDict_DelItem(self->instances, label) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *
metric_get_name(metric_object *self, void *unused)
{
	Py_INCREF(self->name);
	return self->name;
}

static PyObject *
metric_get_class_id(metric_object *self, void *unused)
{
	return Py_BuildValue("(III)", DCISTAT_SUPPLIER_CLASS_ARC,
	    self->supplier->number, self->relative_id);
}

static int
metric_traverse(metric_object *self, visitproc visit, void *arg)
{
	Py_VISIT(self->instances);
	Py_VISIT(self->default_instance);
	return 0;
}

static int
metric_clear(metric_object *self)
{
	Py_CLEAR(self->default_instance);
	Py_CLEAR(self->instances);
	return 0;
}

static void
metric_dealloc(metric_object *self)
{
	PyObject_GC_UnTrack(self);
	metric_clear(self);
	Py_XDECREF(self->name);
	Py_XDECREF(self->supplier);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef metric_methods[] = {
    {"labels", (PyCFunction)metric_labels, METH_O,
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
    {"name", (getter)metric_get_name, NULL, "the class label", NULL},
    {"class_id", (getter)metric_get_class_id, NULL,
        "the class id served: (3, supplier number, relative id)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_metric_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Metric",
    .tp_basicsize = sizeof(metric_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)metric_traverse,
    .tp_clear = (inquiry)metric_clear,
    .tp_doc = "A counter or gauge class (Supplier.counter, .gauge, "
              ".float_gauge): one value per labelled instance.",
    .tp_dealloc = (destructor)metric_dealloc,
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
