/*
 * Histograms: a stats(3) template of one variable of interest (samples,
 * sum, max, min and a histogram) per Supplier.histogram, and a blob of it
 * per label.
 */
#include "pydcistat.h"

#include <errno.h>
#include <stddef.h>

#define HISTOGRAM_VOI_ID 1u

typedef struct {
	PyObject ob_base;         /* PyObject_HEAD */
	pydci_supplier *supplier; /* pydci_family: supplier */
	PyObject *name;           /* pydci_family: name */
	PyObject *blobs;          /* pydci_family: members, label -> blob */
	PyObject *default_blob;   /* pydci_family: default_member */
	const struct pydci_member_operations *operations; /* pydci_family */
	struct dcistat_template *handle;
	int voi_index;
	uint32_t number; /* the template's */
	uint32_t next_blob_id;
	bool quantiles; /* a t-digest too (DCISTAT_VOI_TDIGEST) */
} histogram_object;
_Static_assert(
    offsetof(histogram_object, supplier) == offsetof(pydci_family, supplier) &&
        offsetof(histogram_object, name) == offsetof(pydci_family, name) &&
        offsetof(histogram_object, blobs) == offsetof(pydci_family, members) &&
        offsetof(histogram_object, default_blob) ==
            offsetof(pydci_family, default_member) &&
        offsetof(histogram_object, operations) ==
            offsetof(pydci_family, operations),
    "a histogram_object starts as a pydci_family");

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	histogram_object *histogram; /* pydci_member: family */
	PyObject *label;             /* pydci_member: label */
	struct dcistat_blob *handle; /* NULL once removed */
} blob_object;
_Static_assert(
    offsetof(blob_object, histogram) == offsetof(pydci_member, family) &&
        offsetof(blob_object, label) == offsetof(pydci_member, label),
    "a blob_object starts as a pydci_member");

static int
blob_usable(blob_object *self)
{
	if (pydci_supplier_usable(self->histogram->supplier) != 0)
		return -1;
	if (self->handle == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "the instance was removed");
		return -1;
	}
	return 0;
}

static PyObject *
blob_observe(blob_object *self, PyObject *value)
{
	int64_t sample;

	if (blob_usable(self) != 0 || pydci_i64(value, "value", &sample) != 0)
		return NULL;
	dcistat_voi_update_absolute(
	    self->handle, self->histogram->voi_index, sample);
	Py_RETURN_NONE;
}

static PyObject *
blob_change(blob_object *self, PyObject *value)
{
	int64_t delta;

	if (blob_usable(self) != 0 || pydci_i64(value, "delta", &delta) != 0)
		return NULL;
	dcistat_voi_update_relative(
	    self->handle, self->histogram->voi_index, delta);
	Py_RETURN_NONE;
}

static PyMethodDef blob_methods[] = {
    {"observe", (PyCFunction)blob_observe, METH_O,
        "observe(value)\n--\n\nA sample (an int, -2**63 .. 2**63 - 1): "
        "added to the sum, compared with max and min, counted in its "
        "bucket or out of band (stats_voi_update_abs)."},
    {"change", (PyCFunction)blob_change, METH_O,
        "change(delta)\n--\n\nThe value changes by `delta` and the new "
        "value is the sample; the first change starts from 0 "
        "(stats_voi_update_rel)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef blob_getset[] = {
    {"label", (getter)pydci_member_get_label, NULL, "the instance's label",
        NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_histogram_blob_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.HistogramInstance",
    .tp_basicsize = sizeof(blob_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)pydci_member_traverse,
    .tp_clear = (inquiry)pydci_member_clear,
    .tp_doc = "One labelled instance of a histogram "
              "(Histogram.labels(label)).",
    .tp_dealloc = (destructor)pydci_member_dealloc,
    .tp_methods = blob_methods,
    .tp_getset = blob_getset,
};

/* The library's side of a new blob (pydci_member_operations). */
static int
blob_add(pydci_family *family, pydci_member *member, const char *text)
{
	histogram_object *histogram = (histogram_object *)family;
	blob_object *blob = (blob_object *)member;

	blob->handle =
	    dcistat_blob_add(histogram->handle, histogram->next_blob_id, text);
	if (blob->handle == NULL)
		return -1;
	histogram->next_blob_id++;
	return 0;
}

static void
blob_remove(pydci_member *member)
{
	dcistat_blob_remove(((blob_object *)member)->handle);
}

static const struct pydci_member_operations blob_operations = {
    .type = &pydci_histogram_blob_type,
    .add = blob_add,
    .remove = blob_remove,
};

static PyObject *
histogram_observe(histogram_object *self, PyObject *value)
{
	blob_object *blob =
	    (blob_object *)pydci_family_default((pydci_family *)self);

	return blob != NULL ? blob_observe(blob, value) : NULL;
}

static PyObject *
histogram_change(histogram_object *self, PyObject *value)
{
	blob_object *blob =
	    (blob_object *)pydci_family_default((pydci_family *)self);

	return blob != NULL ? blob_change(blob, value) : NULL;
}

static PyObject *
histogram_remove(histogram_object *self, PyObject *label)
{
	blob_object *blob = (blob_object *)pydci_family_member_to_remove(
	    (pydci_family *)self, label);

	if (blob == NULL)
		return NULL;
	if (dcistat_blob_remove(blob->handle) != 0)
		return pydci_raise_library(errno);
	blob->handle = NULL;
	return pydci_family_forget(
	    (pydci_family *)self, (PyObject *)blob, label);
}

static PyObject *
histogram_get_class_ids(histogram_object *self, void *unused)
{
	/* Summary {3, N, 3, T, V, 1}, buckets {3, N, 3, T, V, 2} and, with
	 * quantiles, the t-digest's {3, N, 3, T, V, 3}. */
	if (self->quantiles)
		return Py_BuildValue("((IIIIII)(IIIIII)(IIIIII))",
		    DCISTAT_SUPPLIER_CLASS_ARC, self->supplier->number, 3u,
		    self->number, HISTOGRAM_VOI_ID, 1u,
		    DCISTAT_SUPPLIER_CLASS_ARC, self->supplier->number, 3u,
		    self->number, HISTOGRAM_VOI_ID, 2u,
		    DCISTAT_SUPPLIER_CLASS_ARC, self->supplier->number, 3u,
		    self->number, HISTOGRAM_VOI_ID, 3u);
	return Py_BuildValue("((IIIIII)(IIIIII))", DCISTAT_SUPPLIER_CLASS_ARC,
	    self->supplier->number, 3u, self->number, HISTOGRAM_VOI_ID, 1u,
	    DCISTAT_SUPPLIER_CLASS_ARC, self->supplier->number, 3u,
	    self->number, HISTOGRAM_VOI_ID, 2u);
}

static PyMethodDef histogram_methods[] = {
    {"labels", (PyCFunction)pydci_family_member, METH_O,
        "labels(label)\n--\n\nThe instance (stats(3) blob) labelled "
        "`label`, added at its first use."},
    {"remove", (PyCFunction)histogram_remove, METH_O,
        "remove(label)\n--\n\nRemoves an instance: its rows go."},
    {"observe", (PyCFunction)histogram_observe, METH_O,
        "observe(value)\n--\n\nA sample of the instance labelled as the "
        "histogram."},
    {"change", (PyCFunction)histogram_change, METH_O,
        "change(delta)\n--\n\nA relative update of the instance labelled "
        "as the histogram."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef histogram_getset[] = {
    {"name", (getter)pydci_family_get_name, NULL, "the template's name", NULL},
    {"class_ids", (getter)histogram_get_class_ids, NULL,
        "the class ids served: (summary, buckets)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_histogram_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Histogram",
    .tp_basicsize = sizeof(histogram_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)pydci_family_traverse,
    .tp_clear = (inquiry)pydci_family_clear,
    .tp_doc = "A stats(3) variable of interest with a histogram "
              "(Supplier.histogram).",
    .tp_dealloc = (destructor)pydci_family_dealloc,
    .tp_methods = histogram_methods,
    .tp_getset = histogram_getset,
};

/* A sequence of ints as int64_t, at most DCISTAT_HISTOGRAM_BUCKETS_MAX;
 * *values NULL for an empty one. */
static int
bounds_read(
    PyObject *sequence, const char *what, int64_t **values, size_t *count)
{
	PyObject *fast;
	Py_ssize_t length;

	*values = NULL;
	*count = 0;
	if (sequence == Py_None)
		return 0;
	fast = PySequence_Fast(sequence, "bounds must be a sequence of ints");
	if (fast == NULL)
		return -1;
	length = PySequence_Fast_GET_SIZE(fast);
	if (length > (Py_ssize_t)DCISTAT_HISTOGRAM_BUCKETS_MAX) {
		Py_DECREF(fast);
		PyErr_Format(PyExc_ValueError, "%zd %s, more than %u", length,
		    what, DCISTAT_HISTOGRAM_BUCKETS_MAX);
		return -1;
	}
	if (length > 0) {
		*values = PyMem_New(int64_t, (size_t)length);
		if (*values == NULL) {
			Py_DECREF(fast);
			PyErr_NoMemory();
			return -1;
		}
	}
	for (Py_ssize_t i = 0; i < length; i++) {
		if (pydci_i64(PySequence_Fast_GET_ITEM(fast, i), what,
		        &(*values)[i]) != 0) {
			PyMem_Free(*values);
			*values = NULL;
			Py_DECREF(fast);
			return -1;
		}
	}
	*count = (size_t)length;
	Py_DECREF(fast);
	return 0;
}

PyObject *
pydci_histogram_new(
    pydci_supplier *supplier, PyObject *args, PyObject *keywords)
{
	static char *names[] = {"name", "buckets", "unit", "quantiles", NULL};
	PyObject *name_object, *buckets, *unit_object = Py_None;
	int quantiles = 0;
	PyObject *lower_object, *upper_object, *wide_object;
	struct dcistat_histogram layout = {0};
	struct dcistat_voi_info voi = {.id = HISTOGRAM_VOI_ID,
	    .is_signed = 1,
	    .statistics = DCISTAT_VOI_SUM | DCISTAT_VOI_MAX | DCISTAT_VOI_MIN |
	                  DCISTAT_VOI_HISTOGRAM,
	    .histogram = &layout};
	int64_t *lower = NULL, *upper = NULL;
	size_t lower_count, upper_count;
	int kind, layout_kind, wide;
	histogram_object *histogram = NULL;
	const char *name;

	if (!PyArg_ParseTupleAndKeywords(args, keywords, "UO|O$p", names,
	        &name_object, &buckets, &unit_object, &quantiles) ||
	    pydci_supplier_usable(supplier) != 0)
		return NULL;
	name = pydci_text(name_object, "name", DCI_LABEL_MAX);
	if (name == NULL || pydci_unit(unit_object, &voi.unit) != 0)
		return NULL;
	voi.name = "value";
	if (quantiles)
		voi.statistics |= DCISTAT_VOI_TDIGEST;
	/* dcistat.Buckets: (kind, layout, low, high, step, base, lower,
	 * upper, wide). */
	if (!PyTuple_Check(buckets) || PyTuple_GET_SIZE(buckets) != 9) {
		PyErr_SetString(PyExc_TypeError,
		    "buckets must be a dcistat.Buckets (linear, exponential, "
		    "...)");
		return NULL;
	}
	if (!PyArg_ParseTuple(buckets, "iiLLLLOOO", &kind, &layout_kind,
	        &layout.low, &layout.high, &layout.step, &layout.base,
	        &lower_object, &upper_object, &wide_object))
		return NULL;
	wide = PyObject_IsTrue(wide_object);
	if (wide < 0)
		return NULL;
	layout.kind = (enum dcistat_histogram_kind)kind;
	layout.layout = (enum dcistat_histogram_layout)layout_kind;
	layout.wide = wide;
	if (bounds_read(lower_object, "lower bounds", &lower, &lower_count) !=
	        0 ||
	    bounds_read(upper_object, "upper bounds", &upper, &upper_count) !=
	        0)
		goto out;
	if (upper != NULL && upper_count != lower_count) {
		PyErr_SetString(PyExc_ValueError,
		    "as many upper bounds as lower bounds are needed");
		goto out;
	}
	layout.lower = lower;
	layout.upper = upper;
	layout.count = lower_count;
	histogram = PyObject_GC_New(histogram_object, &pydci_histogram_type);
	if (histogram == NULL)
		goto out;
	Py_INCREF(supplier);
	histogram->supplier = supplier;
	Py_INCREF(name_object);
	histogram->name = name_object;
	histogram->default_blob = NULL;
	histogram->operations = &blob_operations;
	histogram->next_blob_id = 1;
	histogram->number = supplier->templates_added + 1;
	histogram->quantiles = quantiles != 0;
	histogram->handle = NULL;
	histogram->blobs = PyDict_New();
	PyObject_GC_Track(histogram);
	if (histogram->blobs == NULL) {
		Py_CLEAR(histogram);
		goto out;
	}
	errno = 0;
	histogram->handle = dcistat_template_add(
	    supplier->handle, histogram->number, name, &voi, 1);
	if (histogram->handle == NULL) {
		int error_number = errno;

		Py_CLEAR(histogram);
		pydci_raise_library(error_number);
		goto out;
	}
	supplier->templates_added++;
	histogram->voi_index =
	    dcistat_voi_index(histogram->handle, HISTOGRAM_VOI_ID);
out:
	PyMem_Free(lower);
	PyMem_Free(upper);
	return (PyObject *)histogram;
}

int
pydci_histogram_ready(PyObject *module)
{
	if (PyType_Ready(&pydci_histogram_type) < 0 ||
	    PyType_Ready(&pydci_histogram_blob_type) < 0)
		return -1;
	if (PyModule_AddObjectRef(
	        module, "Histogram", (PyObject *)&pydci_histogram_type) < 0 ||
	    PyModule_AddObjectRef(module, "HistogramInstance",
	        (PyObject *)&pydci_histogram_blob_type) < 0)
		return -1;
	return 0;
}
