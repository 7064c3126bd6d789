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

PyObject *
pydci_raise_library(int error_number)
{
	const char *message = dcistat_supplier_error();
	PyObject *error;

	if (message == NULL || message[0] == '\0')
		message = strerror(error_number);
	if (error_number == EINVAL || error_number == 0) {
		PyErr_SetString(PyExc_ValueError, message);
		return NULL;
	}
	/* OSError(errno, text) becomes the subclass of that errno. */
	error =
	    PyObject_CallFunction(PyExc_OSError, "is", error_number, message);
	if (error != NULL) {
		PyErr_SetObject((PyObject *)Py_TYPE(error), error);
		Py_DECREF(error);
	}
	return NULL;
}

const char *
pydci_text(PyObject *object, const char *what, size_t max)
{
	Py_ssize_t length;
	const char *text;

	if (!PyUnicode_Check(object)) {
		PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s",
		    what, Py_TYPE(object)->tp_name);
		return NULL;
	}
	text = PyUnicode_AsUTF8AndSize(object, &length);
	if (text == NULL)
		return NULL;
	if (length == 0) {
		PyErr_Format(PyExc_ValueError, "%s is empty", what);
		return NULL;
	}
	if ((size_t)length > max) {
		PyErr_Format(PyExc_ValueError,
		    "%s is %zd bytes of UTF-8, more than %zu", what, length,
		    max);
		return NULL;
	}
	if (strlen(text) != (size_t)length) {
		PyErr_Format(
		    PyExc_ValueError, "%s holds a NUL character", what);
		return NULL;
	}
	return text;
}

static int
integer_check(PyObject *object, const char *what)
{
	if (PyLong_Check(object))
		return 0;
	PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what,
	    Py_TYPE(object)->tp_name);
	return -1;
}

int
pydci_u64(PyObject *object, const char *what, uint64_t *value)
{
	int overflow = 0;
	long long small;
	unsigned long long large;

	if (integer_check(object, what) != 0)
		return -1;
	small = PyLong_AsLongLongAndOverflow(object, &overflow);
	if (overflow == 0) {
		if (small == -1 && PyErr_Occurred())
			return -1;
		if (small < 0) {
			PyErr_Format(PyExc_ValueError, "%s is negative (%lld)",
			    what, small);
			return -1;
		}
		*value = (uint64_t)small;
		return 0;
	}
	if (overflow < 0) {
		PyErr_Format(PyExc_ValueError, "%s is negative", what);
		return -1;
	}
	large = PyLong_AsUnsignedLongLong(object);
	if (large == (unsigned long long)-1 && PyErr_Occurred()) {
		PyErr_Clear();
		PyErr_Format(
		    PyExc_OverflowError, "%s is above 2**64 - 1", what);
		return -1;
	}
	*value = large;
	return 0;
}

int
pydci_i64(PyObject *object, const char *what, int64_t *value)
{
	int overflow = 0;
	long long result;

	if (integer_check(object, what) != 0)
		return -1;
	result = PyLong_AsLongLongAndOverflow(object, &overflow);
	if (overflow != 0) {
		PyErr_Format(PyExc_OverflowError,
		    "%s is outside -2**63 .. 2**63 - 1", what);
		return -1;
	}
	if (result == -1 && PyErr_Occurred())
		return -1;
	*value = result;
	return 0;
}

int
pydci_u32(PyObject *object, const char *what, uint32_t *value)
{
	uint64_t wide;

	if (pydci_u64(object, what, &wide) != 0)
		return -1;
	if (wide > UINT32_MAX) {
		PyErr_Format(
		    PyExc_OverflowError, "%s is above 2**32 - 1", what);
		return -1;
	}
	*value = (uint32_t)wide;
	return 0;
}

static const struct {
	const char *name;
	enum dci_unit unit;
} unit_names[] = {
    {"none", DCI_UNIT_NONE},
    {"bytes", DCI_UNIT_BYTES},
    {"kbytes", DCI_UNIT_KBYTES},
    {"mbytes", DCI_UNIT_MBYTES},
    {"gbytes", DCI_UNIT_GBYTES},
    {"tbytes", DCI_UNIT_TBYTES},
    {"seconds", DCI_UNIT_SECONDS},
    {"milliseconds", DCI_UNIT_MILLISECONDS},
    {"microseconds", DCI_UNIT_MICROSECONDS},
    {"nanoseconds", DCI_UNIT_NANOSECONDS},
    {"picoseconds", DCI_UNIT_PICOSECONDS},
    {"ticks", DCI_UNIT_TICKS},
    {"count", DCI_UNIT_COUNT},
    {"events", DCI_UNIT_EVENTS},
    {"pages", DCI_UNIT_PAGES},
    {"blocks", DCI_UNIT_BLOCKS},
    {"characters", DCI_UNIT_CHARACTERS},
    {"packets", DCI_UNIT_PACKETS},
    {"messages", DCI_UNIT_MESSAGES},
    {"transactions", DCI_UNIT_TRANSACTIONS},
    {"reads", DCI_UNIT_READS},
    {"writes", DCI_UNIT_WRITES},
    {"connections", DCI_UNIT_CONNECTIONS},
    {"retries", DCI_UNIT_RETRIES},
    {"processors", DCI_UNIT_PROCESSORS},
    {"disks", DCI_UNIT_DISKS},
    {"interrupts", DCI_UNIT_INTERRUPTS},
    {"centiseconds", DCI_UNIT_CENTISECONDS},
    {"octets", DCI_UNIT_OCTETS},
    {"errors", DCI_UNIT_ERRORS},
};

int
pydci_unit(PyObject *object, enum dci_unit *unit)
{
	const char *name;

	*unit = DCI_UNIT_NONE;
	if (object == NULL || object == Py_None)
		return 0;
	name = pydci_text(object, "unit", 32);
	if (name == NULL)
		return -1;
	for (size_t i = 0; i < sizeof(unit_names) / sizeof(unit_names[0]);
	     i++) {
		if (strcmp(unit_names[i].name, name) == 0) {
			*unit = unit_names[i].unit;
			return 0;
		}
	}
	PyErr_Format(PyExc_ValueError, "unknown unit %R", object);
	return -1;
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

	if (self != NULL)
		self->generation = PYDCI_CLOSED;
	return (PyObject *)self;
}

/* Closes the segment if this process opened it; a forked child only lets
 * go of its copy of the handle (the parent's segment stays). */
static void
supplier_release(pydci_supplier *self)
{
	if (self->handle != NULL && self->generation == pydci_fork_generation)
		dcistat_supplier_close(self->handle);
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
