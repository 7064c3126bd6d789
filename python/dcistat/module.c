/*
 * The `dcistat._dcistat` module: the Supplier type, the fork guard and
 * what the other types share (pydcistat.h).
 */
#include "pydcistat.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

uint64_t pydci_fork_generation;

/* pthread_atfork's child handler: runs in the child of every fork(),
 * os.fork() included, before any Python code of the child. */
static void
fork_child(void)
{
	pydci_fork_generation++;
}

/* --- Supplier --- */

/* FNV-1a of the module name, in 1..2^32-2: the class arc when the caller
 * gives none. */
static uint32_t
number_of_name(const char *name)
{
	uint32_t hash = 2166136261u;

	for (const unsigned char *c = (const unsigned char *)name; *c != '\0';
	     c++)
		hash = (hash ^ *c) * 16777619u;
	return hash % 0xfffffffeu + 1u;
}

static int
supplier_init(pydci_supplier *self, PyObject *args, PyObject *keywords)
{
	static char *names[] = {"name", "version", "number", "title",
	    "description", "directory", "thread_regions", NULL};
	PyObject *name_object, *version_object = NULL, *number_object = Py_None;
	PyObject *title_object = Py_None, *description_object = Py_None;
	PyObject *directory_object = Py_None, *regions_object = NULL;
	struct dci_supplier_info info = {0};
	struct dcistat_supplier_options options = {.size = sizeof(options)};
	PyObject *directory_bytes = NULL;
	struct dcistat_supplier *handle;
	uint32_t number;

	if (self->handle != NULL) {
		PyErr_SetString(
		    PyExc_RuntimeError, "the supplier is already open");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, keywords, "U|O$OOOOO", names,
	        &name_object, &version_object, &number_object, &title_object,
	        &description_object, &directory_object, &regions_object))
		return -1;
	info.module = pydci_text(name_object, "name", DCI_LABEL_MAX);
	if (info.module == NULL)
		return -1;
	if (version_object != NULL &&
	    pydci_u32(version_object, "version", &info.version) != 0)
		return -1;
	if (title_object != Py_None && (info.title = pydci_text(title_object,
	                                    "title", DCI_LABEL_MAX)) == NULL)
		return -1;
	if (description_object != Py_None &&
	    (info.description = pydci_text(
	         description_object, "description", DCI_STRING_MAX)) == NULL)
		return -1;
	if (number_object == Py_None) {
		number = number_of_name(info.module);
	} else {
		if (pydci_u32(number_object, "number", &number) != 0)
			return -1;
		if (number == 0 || number == UINT32_MAX) {
			PyErr_SetString(PyExc_ValueError,
			    "number must be in 1 .. 2**32 - 2");
			return -1;
		}
	}
	if (regions_object != NULL &&
	    pydci_u32(
	        regions_object, "thread_regions", &options.thread_regions) != 0)
		return -1;
	if (directory_object != Py_None) {
		if (!PyUnicode_FSConverter(directory_object, &directory_bytes))
			return -1;
		options.directory = PyBytes_AS_STRING(directory_bytes);
		if (strlen(options.directory) !=
		    (size_t)PyBytes_GET_SIZE(directory_bytes)) {
			Py_DECREF(directory_bytes);
			PyErr_SetString(PyExc_ValueError,
			    "directory holds a NUL character");
			return -1;
		}
	}
	errno = 0;
	handle = dcistat_supplier_open(&info, number, &options);
	Py_XDECREF(directory_bytes);
	if (handle == NULL) {
		pydci_raise_library(errno);
		return -1;
	}
	self->handle = handle;
	self->termination_slot =
	    pydci_termination_add(dcistat_supplier_path(handle));
	self->generation = pydci_fork_generation;
	self->owner_pid = (long)getpid();
	self->number = number;
	Py_INCREF(name_object);
	Py_XSETREF(self->name, name_object);
	return 0;
}

static PyObject *
supplier_new(PyTypeObject *type, PyObject *args, PyObject *keywords)
{
	pydci_supplier *self = (pydci_supplier *)type->tp_alloc(type, 0);

	if (self != NULL) {
		self->generation = PYDCI_CLOSED;
		self->termination_slot = -1;
	}
	return (PyObject *)self;
}

/* Closes the segment if this process opened it; a forked child only lets
 * go of its copy of the handle (the parent's segment stays). */
static void
supplier_release(pydci_supplier *self)
{
	if (self->handle != NULL && self->generation == pydci_fork_generation) {
		pydci_termination_remove(self->termination_slot);
		dcistat_supplier_close(self->handle);
	}
	self->termination_slot = -1;
	self->handle = NULL;
	self->generation = PYDCI_CLOSED;
}

static void
supplier_dealloc(pydci_supplier *self)
{
	supplier_release(self);
	Py_XDECREF(self->name);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
supplier_close(pydci_supplier *self, PyObject *unused)
{
	supplier_release(self);
	Py_RETURN_NONE;
}

static PyObject *
supplier_enter(pydci_supplier *self, PyObject *unused)
{
	if (pydci_supplier_usable(self) != 0)
		return NULL;
	Py_INCREF(self);
	return (PyObject *)self;
}

static PyObject *
supplier_exit(pydci_supplier *self, PyObject *args)
{
	supplier_release(self);
	Py_RETURN_FALSE;
}

static PyObject *
supplier_counter(pydci_supplier *self, PyObject *args, PyObject *keywords)
{
	return pydci_metric_new(self, args, keywords, PYDCI_COUNTER);
}

static PyObject *
supplier_gauge(pydci_supplier *self, PyObject *args, PyObject *keywords)
{
	return pydci_metric_new(self, args, keywords, PYDCI_GAUGE);
}

static PyObject *
supplier_float_gauge(pydci_supplier *self, PyObject *args, PyObject *keywords)
{
	return pydci_metric_new(self, args, keywords, PYDCI_FLOAT_GAUGE);
}

static PyObject *
supplier_histogram(pydci_supplier *self, PyObject *args, PyObject *keywords)
{
	return pydci_histogram_new(self, args, keywords);
}

static PyObject *
supplier_event_counter(pydci_supplier *self, PyObject *args, PyObject *keywords)
{
	return pydci_event_counter_new(self, args, keywords);
}

static PyObject *
supplier_device(pydci_supplier *self, PyObject *args, PyObject *keywords)
{
	return pydci_device_new(self, args, keywords);
}

static PyObject *
supplier_get_path(pydci_supplier *self, void *unused)
{
	if (self->handle == NULL)
		Py_RETURN_NONE;
	return PyUnicode_DecodeFSDefault(dcistat_supplier_path(self->handle));
}

static PyObject *
supplier_get_closed(pydci_supplier *self, void *unused)
{
	return PyBool_FromLong(self->generation != pydci_fork_generation);
}

static PyObject *
supplier_get_number(pydci_supplier *self, void *unused)
{
	return PyLong_FromUnsignedLong(self->number);
}

static PyObject *
supplier_get_name(pydci_supplier *self, void *unused)
{
	if (self->name == NULL)
		Py_RETURN_NONE;
	Py_INCREF(self->name);
	return self->name;
}

static PyMethodDef supplier_methods[] = {
    {"close", (PyCFunction)supplier_close, METH_NOARGS,
        "close()\n--\n\nRemoves the segment: its rows go from dcistatd at "
        "its next refresh. Every object of the supplier is unusable "
        "afterwards. A forked child's close() leaves its parent's segment "
        "alone."},
    {"__enter__", (PyCFunction)supplier_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)supplier_exit, METH_VARARGS, NULL},
    {"counter", (PyCFunction)(void (*)(void))supplier_counter,
        METH_VARARGS | METH_KEYWORDS,
        "counter(name, description=None, unit=None)\n--\n\n"
        "A counter class: unsigned 64-bit, only goes up (inc), summed "
        "over threads."},
    {"gauge", (PyCFunction)(void (*)(void))supplier_gauge,
        METH_VARARGS | METH_KEYWORDS,
        "gauge(name, description=None, unit=None)\n--\n\n"
        "An integer gauge class: signed 64-bit, set, inc and dec."},
    {"float_gauge", (PyCFunction)(void (*)(void))supplier_float_gauge,
        METH_VARARGS | METH_KEYWORDS,
        "float_gauge(name, description=None)\n--\n\n"
        "A gauge of floats kept in hundredths (DCI has no float type): "
        "served as the integer number of hundredths, shown as a decimal "
        "fraction; values within +-21474836.47."},
    {"histogram", (PyCFunction)(void (*)(void))supplier_histogram,
        METH_VARARGS | METH_KEYWORDS,
        "histogram(name, buckets, unit=None)\n--\n\n"
        "A stats(3) variable of interest: samples, sum, max, min and a "
        "histogram laid out by `buckets` (see dcistat.Buckets)."},
    {"event_counter", (PyCFunction)(void (*)(void))supplier_event_counter,
        METH_VARARGS | METH_KEYWORDS,
        "event_counter(group, name, parent=None, type=EVCNT_MISC)\n--\n\n"
        "An evcnt(9) event counter, under `parent` if given."},
    {"device", (PyCFunction)(void (*)(void))supplier_device,
        METH_VARARGS | METH_KEYWORDS,
        "device(name, unit_number=0, block_size=512, flags=0, "
        "device_type=0, priority=0)\n--\n\n"
        "A devstat(9) device: its transactions' operations, bytes, "
        "durations and busy time."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef supplier_getset[] = {
    {"path", (getter)supplier_get_path, NULL, "the segment's path", NULL},
    {"closed", (getter)supplier_get_closed, NULL,
        "True once closed, and in a forked child", NULL},
    {"number", (getter)supplier_get_number, NULL,
        "the class arc: classes are served under 3.<number>", NULL},
    {"name", (getter)supplier_get_name, NULL, "the module name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_supplier_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Supplier",
    .tp_basicsize = sizeof(pydci_supplier),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Supplier(name, version=0, *, number=None, title=None, "
              "description=None, directory=None, thread_regions=0)\n--\n\n"
              "An application's statistics, published in a shared-memory "
              "segment that dcistatd serves (libdcistat-supplier). `name` "
              "is the module name, unique on the host; `number` the class "
              "arc (default: a hash of the name, 1 .. 2**32 - 2); "
              "`directory` the run directory (default: "
              "$DCISTAT_SUPPLIER_DIRECTORY, else /run/dcistat/suppliers).",
    .tp_new = supplier_new,
    .tp_init = (initproc)supplier_init,
    .tp_dealloc = (destructor)supplier_dealloc,
    .tp_methods = supplier_methods,
    .tp_getset = supplier_getset,
};

/* --- module --- */

static int
module_exec(PyObject *module)
{
	static bool fork_hook_installed;

	if (!fork_hook_installed) {
		if (pthread_atfork(NULL, NULL, fork_child) != 0) {
			PyErr_SetString(
			    PyExc_RuntimeError, "pthread_atfork failed");
			return -1;
		}
		fork_hook_installed = true;
	}
	if (PyType_Ready(&pydci_supplier_type) < 0 ||
	    PyModule_AddObjectRef(
	        module, "Supplier", (PyObject *)&pydci_supplier_type) < 0)
		return -1;
	if (pydci_metric_ready(module) < 0 ||
	    pydci_histogram_ready(module) < 0 ||
	    pydci_event_counter_ready(module) < 0 ||
	    pydci_device_ready(module) < 0 || pydci_consumer_ready(module) < 0)
		return -1;
	if (PyModule_AddIntConstant(
	        module, "EVCNT_MISC", DCISTAT_EVCNT_TYPE_MISC) < 0 ||
	    PyModule_AddIntConstant(
	        module, "EVCNT_INTR", DCISTAT_EVCNT_TYPE_INTR) < 0 ||
	    PyModule_AddIntConstant(
	        module, "EVCNT_TRAP", DCISTAT_EVCNT_TYPE_TRAP) < 0 ||
	    PyModule_AddIntConstant(
	        module, "NO_DATA", DCISTAT_DEVSTAT_NO_DATA) < 0 ||
	    PyModule_AddIntConstant(module, "READ", DCISTAT_DEVSTAT_READ) < 0 ||
	    PyModule_AddIntConstant(module, "WRITE", DCISTAT_DEVSTAT_WRITE) <
	        0 ||
	    PyModule_AddIntConstant(module, "FREE", DCISTAT_DEVSTAT_FREE) < 0 ||
	    PyModule_AddIntConstant(
	        module, "CLASS_ARC", DCISTAT_SUPPLIER_CLASS_ARC) < 0 ||
	    PyModule_AddIntConstant(module, "FIRST_GENERIC_CLASS",
	        DCISTAT_CLASS_FIRST_GENERIC) < 0 ||
	    PyModule_AddIntConstant(
	        module, "BUCKETS_MAX", DCISTAT_HISTOGRAM_BUCKETS_MAX) < 0 ||
	    PyModule_AddIntConstant(module, "LABEL_MAX", DCI_LABEL_MAX) < 0)
		return -1;
	return 0;
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT,
    .m_name = "dcistat._dcistat",
    .m_doc = "libdcistat-supplier and libdci for Python: see the dcistat "
             "package.",
    .m_size = 0,
    .m_slots = module_slots,
};

PyMODINIT_FUNC PyInit__dcistat(void);

PyMODINIT_FUNC
PyInit__dcistat(void)
{
	return PyModuleDef_Init(&module_definition);
}
