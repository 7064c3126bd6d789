/*
 * devstat(9) devices: transactions started and ended around each I/O, as
 * devstat_start_transaction and devstat_end_transaction, directly or as a
 * context manager (Device.transaction).
 */
#include "pydcistat.h"

#include <errno.h>

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	pydci_supplier *supplier;
	struct dcistat_devstat *handle; /* NULL once removed */
	PyObject *name;
} device_object;

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	device_object *device;
	int kind;
	bool started;
	uint64_t start;
	PyObject *bytes; /* set by the caller inside the `with` */
} transaction_object;

static int
device_usable(device_object *self)
{
	if (pydci_supplier_usable(self->supplier) != 0)
		return -1;
	if (self->handle == NULL) {
		PyErr_SetString(PyExc_RuntimeError, "the device was removed");
		return -1;
	}
	return 0;
}

static int
kind_read(PyObject *object, int *kind)
{
	uint32_t value;

	if (pydci_u32(object, "kind", &value) != 0)
		return -1;
	if (value > DCISTAT_DEVSTAT_FREE) {
		PyErr_Format(PyExc_ValueError,
		    "kind %u is none of NO_DATA, READ, WRITE, FREE", value);
		return -1;
	}
	*kind = (int)value;
	return 0;
}

static PyObject *
device_start(device_object *self, PyObject *unused)
{
	if (device_usable(self) != 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(
	    dcistat_devstat_start_transaction(self->handle));
}

/* end(bytes, tag, kind=READ): `tag` is what start() returned. */
static PyObject *
device_end(device_object *self, PyObject *const *args, Py_ssize_t count)
{
	uint64_t bytes, tag;
	int kind = DCISTAT_DEVSTAT_READ;

	if (count < 2 || count > 3) {
		PyErr_Format(PyExc_TypeError,
		    "end(bytes, tag, kind=READ) takes 2 or 3 arguments (%zd "
		    "given)",
		    count);
		return NULL;
	}
	if (device_usable(self) != 0 ||
	    pydci_u64(args[0], "bytes", &bytes) != 0 ||
	    pydci_u64(args[1], "tag", &tag) != 0 ||
	    (count == 3 && kind_read(args[2], &kind) != 0))
		return NULL;
	dcistat_devstat_end_transaction(
	    self->handle, bytes, (enum dcistat_devstat_kind)kind, tag);
	Py_RETURN_NONE;
}

static PyObject *
device_transaction(device_object *self, PyObject *args, PyObject *keywords)
{
	static char *names[] = {"kind", "bytes", NULL};
	PyObject *kind_object = NULL, *bytes_object = NULL;
	transaction_object *transaction;
	int kind = DCISTAT_DEVSTAT_READ;
	uint64_t bytes;

	if (!PyArg_ParseTupleAndKeywords(
	        args, keywords, "|OO", names, &kind_object, &bytes_object) ||
	    device_usable(self) != 0 ||
	    (kind_object != NULL && kind_read(kind_object, &kind) != 0) ||
	    (bytes_object != NULL &&
	        pydci_u64(bytes_object, "bytes", &bytes) != 0))
		return NULL;
	transaction = PyObject_New(transaction_object, &pydci_transaction_type);
	if (transaction == NULL)
		return NULL;
	Py_INCREF(self);
	transaction->device = self;
	transaction->kind = kind;
	transaction->started = false;
	transaction->start = 0;
	transaction->bytes =
	    bytes_object != NULL ? bytes_object : PyLong_FromLong(0);
	if (bytes_object != NULL)
		Py_INCREF(bytes_object);
	if (transaction->bytes == NULL) {
		Py_DECREF(transaction);
		return NULL;
	}
	return (PyObject *)transaction;
}

static PyObject *
device_remove(device_object *self, PyObject *unused)
{
	if (device_usable(self) != 0)
		return NULL;
	if (dcistat_devstat_remove(self->handle) != 0)
		return pydci_raise_library(errno);
	self->handle = NULL;
	Py_RETURN_NONE;
}

static PyObject *
device_get_name(device_object *self, void *unused)
{
	Py_INCREF(self->name);
	return self->name;
}

static void
device_dealloc(device_object *self)
{
	Py_XDECREF(self->supplier);
	Py_XDECREF(self->name);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef device_methods[] = {
    {"start", (PyCFunction)device_start, METH_NOARGS,
        "start()\n--\n\nCounts a transaction as outstanding from now "
        "(devstat_start_transaction); returns its tag (its start time, "
        "nanoseconds of CLOCK_MONOTONIC) for end()."},
    {"end", (PyCFunction)(void (*)(void))device_end, METH_FASTCALL,
        "end(bytes, tag, kind=READ)\n--\n\nEnds the transaction start() "
        "tagged: counts its bytes, one operation of `kind` (NO_DATA, "
        "READ, WRITE, FREE), its duration and the busy time."},
    {"transaction", (PyCFunction)(void (*)(void))device_transaction,
        METH_VARARGS | METH_KEYWORDS,
        "transaction(kind=READ, bytes=0)\n--\n\nA context manager: starts "
        "a transaction on entry and ends it on exit with its `bytes` "
        "attribute (set it inside the block), whether the block raised "
        "or not."},
    {"remove", (PyCFunction)device_remove, METH_NOARGS,
        "remove()\n--\n\nRemoves the device (devstat_remove_entry)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef device_getset[] = {
    {"name", (getter)device_get_name, NULL, "the device's name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_device_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Device",
    .tp_basicsize = sizeof(device_object),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A devstat(9) device (Supplier.device), served as "
              "NAMEUNIT in the supplier's devstat class.",
    .tp_dealloc = (destructor)device_dealloc,
    .tp_methods = device_methods,
    .tp_getset = device_getset,
};

/* --- Transaction --- */

static PyObject *
transaction_enter(transaction_object *self, PyObject *unused)
{
	if (self->started) {
		PyErr_SetString(
		    PyExc_RuntimeError, "the transaction was already started");
		return NULL;
	}
	if (device_usable(self->device) != 0)
		return NULL;
	self->start = dcistat_devstat_start_transaction(self->device->handle);
	self->started = true;
	Py_INCREF(self);
	return (PyObject *)self;
}

static PyObject *
transaction_exit(transaction_object *self, PyObject *args)
{
	uint64_t bytes;

	if (!self->started) {
		PyErr_SetString(
		    PyExc_RuntimeError, "the transaction was not started");
		return NULL;
	}
	self->started = false;
	if (device_usable(self->device) != 0 ||
	    pydci_u64(self->bytes, "bytes", &bytes) != 0)
		return NULL;
	dcistat_devstat_end_transaction(self->device->handle, bytes,
	    (enum dcistat_devstat_kind)self->kind, self->start);
	Py_RETURN_FALSE;
}

static PyObject *
transaction_get_bytes(transaction_object *self, void *unused)
{
	Py_INCREF(self->bytes);
	return self->bytes;
}

static int
transaction_set_bytes(transaction_object *self, PyObject *value, void *unused)
{
	uint64_t bytes;

	if (value == NULL) {
		PyErr_SetString(
		    PyExc_AttributeError, "bytes cannot be deleted");
		return -1;
	}
	if (pydci_u64(value, "bytes", &bytes) != 0)
		return -1;
	Py_INCREF(value);
	Py_SETREF(self->bytes, value);
	return 0;
}

static PyObject *
transaction_get_tag(transaction_object *self, void *unused)
{
	return PyLong_FromUnsignedLongLong(self->start);
}

static void
transaction_dealloc(transaction_object *self)
{
	Py_XDECREF(self->device);
	Py_XDECREF(self->bytes);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef transaction_methods[] = {
    {"__enter__", (PyCFunction)transaction_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)transaction_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef transaction_getset[] = {
    {"bytes", (getter)transaction_get_bytes, (setter)transaction_set_bytes,
        "bytes the transaction moved, counted at its end", NULL},
    {"tag", (getter)transaction_get_tag, NULL, "its start time, once started",
        NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_transaction_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.Transaction",
    .tp_basicsize = sizeof(transaction_object),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One devstat(9) transaction as a context manager "
              "(Device.transaction).",
    .tp_dealloc = (destructor)transaction_dealloc,
    .tp_methods = transaction_methods,
    .tp_getset = transaction_getset,
};

PyObject *
pydci_device_new(pydci_supplier *supplier, PyObject *args, PyObject *keywords)
{
	static char *names[] = {"name", "unit_number", "block_size", "flags",
	    "device_type", "priority", NULL};
	PyObject *name_object, *unit_object = NULL, *block_object = NULL;
	PyObject *flags_object = NULL, *type_object = NULL;
	PyObject *priority_object = NULL;
	uint32_t unit_number = 0, block_size = 512, flags = 0;
	uint32_t device_type = 0, priority = 0;
	device_object *device;
	const char *name;

	if (!PyArg_ParseTupleAndKeywords(args, keywords, "U|OOOOO", names,
	        &name_object, &unit_object, &block_object, &flags_object,
	        &type_object, &priority_object) ||
	    pydci_supplier_usable(supplier) != 0)
		return NULL;
	name = pydci_text(name_object, "name", DCI_LABEL_MAX);
	if (name == NULL ||
	    (unit_object != NULL &&
	        pydci_u32(unit_object, "unit_number", &unit_number) != 0) ||
	    (block_object != NULL &&
	        pydci_u32(block_object, "block_size", &block_size) != 0) ||
	    (flags_object != NULL &&
	        pydci_u32(flags_object, "flags", &flags) != 0) ||
	    (type_object != NULL &&
	        pydci_u32(type_object, "device_type", &device_type) != 0) ||
	    (priority_object != NULL &&
	        pydci_u32(priority_object, "priority", &priority) != 0))
		return NULL;
	device = PyObject_New(device_object, &pydci_device_type);
	if (device == NULL)
		return NULL;
	Py_INCREF(supplier);
	device->supplier = supplier;
	Py_INCREF(name_object);
	device->name = name_object;
	errno = 0;
	device->handle = dcistat_devstat_add(supplier->handle, name,
	    unit_number, block_size, flags, device_type, priority);
	if (device->handle == NULL) {
		int error_number = errno;

		Py_DECREF(device);
		return pydci_raise_library(error_number);
	}
	return (PyObject *)device;
}

int
pydci_device_ready(PyObject *module)
{
	if (PyType_Ready(&pydci_device_type) < 0 ||
	    PyType_Ready(&pydci_transaction_type) < 0)
		return -1;
	if (PyModule_AddObjectRef(
	        module, "Device", (PyObject *)&pydci_device_type) < 0 ||
	    PyModule_AddObjectRef(
	        module, "Transaction", (PyObject *)&pydci_transaction_type) < 0)
		return -1;
	return 0;
}
