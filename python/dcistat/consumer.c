/*
 * dcistat._dcistat._Connection: one libdci connection to dcistatd's DCI
 * Server, for the Python consumer (dcistat/consumer.py). This file is the
 * transport only: it takes the ids the Python side packed (DCIClassId or
 * DCIMetricId lists, <dci.h>), checks that every structure lies within the
 * bytes given (libdci trusts the size words it is handed), calls the
 * routine with the GIL released and returns the summary status and the
 * DCIReturn as bytes. The Python side builds the ids and decodes the
 * answers; a failing status is raised there as dcistat.DciError.
 *
 * One connection is used by one thread at a time (a lock per connection):
 * a libdci handle is not to be shared by concurrent calls.
 */
#include "pydcistat.h"

#include <dci.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The routines _Connection.call takes (the Python side's numbers). */
enum pydci_routine {
	PYDCI_LIST_CLASSES = 1,
	PYDCI_CLASS_ATTRIBUTES = 2,
	PYDCI_LIST_INSTANCES = 3,
	PYDCI_INSTANCE_ATTRIBUTES = 4,
	PYDCI_GET_DATA = 5,
};

/* Bound on the ids of one call: far beyond what a consumer asks. */
#define PYDCI_IDS_MAX (1024u * 1024u)

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	DCIHandle handle; /* NULL once closed */
	PyThread_type_lock lock;
} pydci_connection;

static UMAUint4
word_at(const unsigned char *bytes, size_t offset)
{
	UMAUint4 word;

	memcpy(&word, bytes + offset, 4);
	return word;
}

/* True when `size` bytes at `bytes` hold a DCIClassId of exactly that
 * size: its size word says so and counts at least one level. */
static bool
class_id_fits(const unsigned char *bytes, size_t size)
{
	return size >= 8 && size % 4 == 0 && word_at(bytes, 0) == size;
}

/* True when `size` bytes at `bytes` hold a DCIInstanceId of exactly that
 * size. */
static bool
instance_id_fits(const unsigned char *bytes, size_t size)
{
	return size >= 12 && size % 4 == 0 && word_at(bytes, 0) == size;
}

/* True when the descriptor at `at` of a structure of `size` bytes points
 * inside it, past its fixed part of `fixed` bytes. */
static bool
descriptor_fits(const unsigned char *structure, size_t at, size_t fixed,
    size_t size, bool (*fits)(const unsigned char *, size_t))
{
	size_t offset = word_at(structure, at);
	size_t length = word_at(structure, at + 4);

	return offset >= fixed && offset % 4 == 0 && offset <= size &&
	       length <= size - offset && fits(structure + offset, length);
}

/* True when `length` bytes hold `count` consecutive structures (DCIMetricId
 * when `metrics`, else DCIClassId), each within its bytes. */
static bool
ids_fit(const unsigned char *bytes, size_t length, UMAUint4 count, bool metrics)
{
	size_t at = 0;

	if (count == 0 || length > PYDCI_IDS_MAX)
		return false;
	for (UMAUint4 i = 0; i < count; i++) {
		size_t size;

		if (length - at < 8)
			return false;
		size = word_at(bytes, at);
		if (size > length - at)
			return false;
		if (metrics) {
			if (size < 24 || size % 4 != 0 ||
			    !descriptor_fits(
			        bytes + at, 4, 24, size, class_id_fits) ||
			    !descriptor_fits(
			        bytes + at, 12, 24, size, instance_id_fits))
				return false;
		} else if (!class_id_fits(bytes + at, size))
			return false;
		at += size;
	}
	return true;
}

/* (status, bytes of the DCIReturn or None); frees `ret`. */
static PyObject *
answer(DCIStatus status, DCIReturn *ret)
{
	PyObject *result;

	if (ret == NULL || ret->size < DCI_RETURN_HEADER_SIZE)
		result = Py_BuildValue("(IO)", (unsigned)status, Py_None);
	else
		result = Py_BuildValue("(Iy#)", (unsigned)status,
		    (const char *)ret, (Py_ssize_t)ret->size);
	if (ret != NULL)
		dciFree(ret);
	return result;
}

static int
connection_usable(pydci_connection *self)
{
	if (self->handle != NULL)
		return 0;
	PyErr_SetString(PyExc_ValueError, "the consumer is closed");
	return -1;
}

/* Takes the connection's lock with the GIL released. */
static void
connection_lock(pydci_connection *self)
{
	if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
		Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(
		    self->lock, WAIT_LOCK);
		Py_END_ALLOW_THREADS
	}
}

/* open(socket_path, event_ids, count) -> (status, errno, DCIReturn bytes
 * or None): the status of dciOpen, and the DCIReturn of the event ids when
 * some were given. The connection is open unless no server answered. */
static PyObject *
connection_open(pydci_connection *self, PyObject *args, PyObject *kwargs)
{
	static char *keywords[] = {"socket_path", "event_ids", "count", NULL};
	PyObject *path = Py_None;
	Py_buffer events = {0};
	unsigned count = 0;
	const char *previous, *wanted = NULL;
	char *saved = NULL;
	DCIReturn *ret = NULL;
	DCIStatus status;

	int saved_errno;

	if (self->handle != NULL) {
		PyErr_SetString(PyExc_RuntimeError, "already open");
		return NULL;
	}
	if (!PyArg_ParseTupleAndKeywords(
	        args, kwargs, "|Oy*I", keywords, &path, &events, &count))
		return NULL;
	if (path != Py_None) {
		wanted = pydci_text(path, "socket_path", 4096);
		if (wanted == NULL)
			goto fail;
	}
	if ((events.len == 0) != (count == 0) ||
	    (count > 0 &&
	        !ids_fit(events.buf, (size_t)events.len, count, true))) {
		PyErr_SetString(PyExc_ValueError, "malformed event ids");
		goto fail;
	}
	if (self->lock == NULL &&
	    (self->lock = PyThread_allocate_lock()) == NULL) {
		PyErr_NoMemory();
		goto fail;
	}
	/* libdci takes the socket from DCISTAT_DCI_SOCKET; it is set for the
	 * call alone, with the GIL held so no Python thread reads the
	 * environment meanwhile. */
	if (wanted != NULL) {
		previous = getenv("DCISTAT_DCI_SOCKET");
		if (previous != NULL && (saved = strdup(previous)) == NULL) {
			PyErr_NoMemory();
			goto fail;
		}
		if (setenv("DCISTAT_DCI_SOCKET", wanted, 1) != 0) {
			PyErr_SetFromErrno(PyExc_OSError);
			goto fail;
		}
	}
	errno = 0;
	status = dciOpen(&self->handle, count > 0 ? events.buf : NULL, count,
	    count > 0 ? &ret : NULL, 0);
	saved_errno = status == DCI_SUCCESS ? 0 : errno;
	if (wanted != NULL) {
		if (saved != NULL)
			setenv("DCISTAT_DCI_SOCKET", saved, 1);
		else
			unsetenv("DCISTAT_DCI_SOCKET");
	}
	free(saved);
	if (events.buf != NULL)
		PyBuffer_Release(&events);
	{
		PyObject *result = answer(status, ret);
		PyObject *with_errno;

		if (result == NULL)
			return NULL;
		with_errno = Py_BuildValue("(OiO)", PyTuple_GET_ITEM(result, 0),
		    saved_errno, PyTuple_GET_ITEM(result, 1));
		Py_DECREF(result);
		return with_errno;
	}
fail:
	free(saved);
	if (events.buf != NULL)
		PyBuffer_Release(&events);
	return NULL;
}

static PyObject *
connection_call(pydci_connection *self, PyObject *args)
{
	unsigned routine, count;
	Py_buffer ids;
	DCIReturn *ret = NULL;
	DCIStatus status = DCI_INVALIDARG;
	bool metrics;

	if (!PyArg_ParseTuple(args, "Iy*I", &routine, &ids, &count))
		return NULL;
	metrics =
	    routine != PYDCI_LIST_CLASSES && routine != PYDCI_CLASS_ATTRIBUTES;
	if (routine < PYDCI_LIST_CLASSES || routine > PYDCI_GET_DATA ||
	    !ids_fit(ids.buf, (size_t)ids.len, count, metrics)) {
		PyBuffer_Release(&ids);
		PyErr_SetString(PyExc_ValueError, "malformed ids");
		return NULL;
	}
	if (connection_usable(self) < 0) {
		PyBuffer_Release(&ids);
		return NULL;
	}
	connection_lock(self);
	Py_BEGIN_ALLOW_THREADS switch ((enum pydci_routine)routine)
	{
	case PYDCI_LIST_CLASSES:
		status = dciListClassId(self->handle, ids.buf, count, &ret, 0);
		break;
	case PYDCI_CLASS_ATTRIBUTES:
		status = dciGetClassAttributes(
		    self->handle, ids.buf, count, &ret, 0);
		break;
	case PYDCI_LIST_INSTANCES:
		status =
		    dciListInstanceId(self->handle, ids.buf, count, &ret, 0);
		break;
	case PYDCI_INSTANCE_ATTRIBUTES:
		status =
		    dciGetInstAttributes(self->handle, ids.buf, count, &ret, 0);
		break;
	case PYDCI_GET_DATA:
		status = dciGetData(
		    self->handle, ids.buf, count, &ret, 0, NULL, NULL);
		break;
	}
	Py_END_ALLOW_THREADS PyThread_release_lock(self->lock);
	PyBuffer_Release(&ids);
	return answer(status, ret);
}

static PyObject *
connection_wait(pydci_connection *self, PyObject *args)
{
	unsigned seconds, nanoseconds;
	UMATimeSpec timeout;
	DCIReturn *ret = NULL;
	DCIStatus status;

	if (!PyArg_ParseTuple(args, "II", &seconds, &nanoseconds))
		return NULL;
	if (nanoseconds >= 1000000000u) {
		PyErr_SetString(
		    PyExc_ValueError, "nanoseconds beyond a second");
		return NULL;
	}
	if (connection_usable(self) < 0)
		return NULL;
	timeout.tv_sec = seconds;
	timeout.tv_nsec = nanoseconds;
	connection_lock(self);
	Py_BEGIN_ALLOW_THREADS status =
	    dciWaitEvent(self->handle, &ret, 0, NULL, NULL, &timeout);
	Py_END_ALLOW_THREADS PyThread_release_lock(self->lock);
	if (status == DCI_INTERRUPTED && PyErr_CheckSignals() < 0) {
		if (ret != NULL)
			dciFree(ret);
		return NULL;
	}
	return answer(status, ret);
}

static PyObject *
connection_close(pydci_connection *self, PyObject *Py_UNUSED(ignored))
{
	if (self->handle != NULL) {
		DCIHandle handle = self->handle;

		connection_lock(self);
		self->handle = NULL;
		dciClose(handle);
		PyThread_release_lock(self->lock);
	}
	Py_RETURN_NONE;
}

static void
connection_dealloc(pydci_connection *self)
{
	if (self->handle != NULL)
		dciClose(self->handle);
	if (self->lock != NULL)
		PyThread_free_lock(self->lock);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef connection_methods[] = {
    {"open", (PyCFunction)(void (*)(void))connection_open,
        METH_VARARGS | METH_KEYWORDS,
        "open(socket_path=None, event_ids=None, count=0) -> (status, errno, "
        "DCIReturn bytes or None)"},
    {"call", (PyCFunction)connection_call, METH_VARARGS,
        "call(routine, ids, count) -> (status, DCIReturn bytes or None)"},
    {"wait", (PyCFunction)connection_wait, METH_VARARGS,
        "wait(seconds, nanoseconds) -> (status, DCIReturn bytes or None)"},
    {"close", (PyCFunction)connection_close, METH_NOARGS,
        "Closes the connection (idempotent)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject pydci_connection_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat._dcistat._Connection",
    .tp_basicsize = sizeof(pydci_connection),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "_Connection(): a libdci connection, opened by open(); use "
              "dcistat.Consumer.",
    .tp_new = PyType_GenericNew,
    .tp_dealloc = (destructor)connection_dealloc,
    .tp_methods = connection_methods,
};

int
pydci_consumer_ready(PyObject *module)
{
	if (PyType_Ready(&pydci_connection_type) < 0 ||
	    PyModule_AddObjectRef(
	        module, "_Connection", (PyObject *)&pydci_connection_type) < 0)
		return -1;
	return 0;
}
