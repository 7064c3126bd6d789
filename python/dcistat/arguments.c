/*
 * The conversions every type of the `dcistat._dcistat` module shares
 * (pydcistat.h): Python arguments checked and converted to the library's
 * types, and the library's errors raised as Python exceptions.
 */
#include "pydcistat.h"

#include <errno.h>
#include <string.h>

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
