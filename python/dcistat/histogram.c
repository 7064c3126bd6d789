/*
 * Histograms: a stats(3) template of one variable of interest (samples,
 * sum, max, min and a histogram) per Supplier.histogram, and a blob of it
 * per label.
 */
#include "pydcistat.h"

#include <errno.h>

#define HISTOGRAM_VOI_ID 1u

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	pydci_supplier *supplier;
	struct dcistat_template *handle;
	int voi_index;
	uint32_t number; /* the template's */
	uint32_t next_blob_id;
	PyObject *name;
	PyObject *blobs;        /* label -> HistogramBlob */
	bool quantiles;         /* a t-digest too (DCISTAT_VOI_TDIGEST) */
	PyObject *default_blob; /* labelled as the histogram */
} histogram_object;

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	histogram_object *histogram;
	struct dcistat_blob *handle; /* NULL once removed */
	PyObject *label;
} blob_object;

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

static PyObject *
blob_get_label(blob_object *self, void *unused)
{
	Py_INCREF(self->label);
	return self->label;
}

/* A blob and its histogram refer to each other (the histogram's table of
 * labels): the cycle is the collector's. */
static int
blob_traverse(blob_object *self, visitproc visit, void *arg)
{
	Py_VISIT(self->histogram);
	return 0;
}

static int
blob_clear(blob_object *self)
{
	Py_CLEAR(self->histogram);
	return 0;
}

static void
blob_dealloc(blob_object *self)
{
	PyObject_GC_UnTrack(self);
	blob_clear(self);
	Py_XDECREF(self->label);
	Py_TYPE(self)->tp_free((PyObject *)self);
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
    {"label", (getter)blob_get_label, NULL, "the instance's label", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_histogram_blob_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.HistogramInstance",
    .tp_basicsize = sizeof(blob_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)blob_traverse,
    .tp_clear = (inquiry)blob_clear,
    .tp_doc = "One labelled instance of a histogram "
              "(Histogram.labels(label)).",
    .tp_dealloc = (destructor)blob_dealloc,
    .tp_methods = blob_methods,
    .tp_getset = blob_getset,
};

static PyObject *
histogram_instance(histogram_object *self, PyObject *label)
{
	blob_object *blob;
	const char *text;

	if (pydci_supplier_usable(self->supplier) != 0)
		return NULL;
	blob = (blob_object *)PyDict_GetItemWithError(self->blobs, label);
	if (blob != NULL) {
		Py_INCREF(blob);
		return (PyObject *)blob;
	}
	if (PyErr_Occurred())
		return NULL;
	text = pydci_text(label, "label", DCI_LABEL_MAX);
	if (text == NULL)
		return NULL;
	blob = PyObject_GC_New(blob_object, &pydci_histogram_blob_type);
	if (blob == NULL)
		return NULL;
	Py_INCREF(self);
	blob->histogram = self;
	Py_INCREF(label);
	blob->label = label;
	PyObject_GC_Track(blob);
	errno = 0;
	blob->handle = dcistat_blob_add(self->handle, self->next_blob_id, text);
	if (blob->handle == NULL) {
		int error_number = errno;

		Py_DECREF(blob);
		return pydci_raise_library(error_number);
	}
	self->next_blob_id++;
	if (PyDict_SetItem(self->blobs, label, (PyObject *)blob) < 0) {
		dcistat_blob_remove(blob->handle);
		Py_DECREF(blob);
		return NULL;
	}
	return (PyObject *)blob;
}

static PyObject *
histogram_labels(histogram_object *self, PyObject *label)
{
	return histogram_instance(self, label);
}

static blob_object *
histogram_default(histogram_object *self)
{
	if (self->default_blob == NULL)
		self->default_blob = histogram_instance(self, self->name);
	return (blob_object *)self->default_blob;
}

static PyObject *
histogram_observe(histogram_object *self, PyObject *value)
{
	blob_object *blob = histogram_default(self);

	return blob != NULL ? blob_observe(blob, value) : NULL;
}

static PyObject *
histogram_change(histogram_object *self, PyObject *value)
{
	blob_object *blob = histogram_default(self);

	return blob != NULL ? blob_change(blob, value) : NULL;
}

static PyObject *
histogram_remove(histogram_object *self, PyObject *label)
{
	blob_object *blob;

	if (pydci_supplier_usable(self->supplier) != 0)
		return NULL;
	blob = (blob_object *)PyDict_GetItemWithError(self->blobs, label);
	if (blob == NULL) {
		if (!PyErr_Occurred())
			PyErr_SetObject(PyExc_KeyError, label);
		return NULL;
	}
	if (dcistat_blob_remove(blob->handle) != 0)
		return pydci_raise_library(errno);
	blob->handle = NULL;
	if ((PyObject *)blob == self->default_blob)
		Py_CLEAR(self->default_blob);
	if (PyDict_DelItem(self->blobs, label) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *
histogram_get_name(histogram_object *self, void *unused)
{
	Py_INCREF(self->name);
	return self->name;
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

static int
histogram_traverse(histogram_object *self, visitproc visit, void *arg)
{
	Py_VISIT(self->blobs);
	Py_VISIT(self->default_blob);
	return 0;
}

static int
histogram_clear(histogram_object *self)
{
	Py_CLEAR(self->default_blob);
	Py_CLEAR(self->blobs);
	return 0;
}

static void
histogram_dealloc(histogram_object *self)
{
	PyObject_GC_UnTrack(self);
	histogram_clear(self);
	Py_XDECREF(self->name);
	Py_XDECREF(self->supplier);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef histogram_methods[] = {
    {"labels", (PyCFunction)histogram_labels, METH_O,
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
    {"name", (getter)histogram_get_name, NULL, "the template's name", NULL},
    {"class_ids", (getter)histogram_get_class_ids, NULL,
        "the class ids served: (summary, buckets)", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_histogram_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Histogram",
    .tp_basicsize = sizeof(histogram_object),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)histogram_traverse,
    .tp_clear = (inquiry)histogram_clear,
    .tp_doc = "A stats(3) variable of interest with a histogram "
              "(Supplier.histogram).",
    .tp_dealloc = (destructor)histogram_dealloc,
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
