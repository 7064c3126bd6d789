/*
 * evcnt(9) event counters: a tree of counters, each under its parent,
 * served as the supplier's evcnt class.
 */
#include "pydcistat.h"

#include <errno.h>

typedef struct event_counter_object {
	PyObject ob_base; /* PyObject_HEAD */
	pydci_supplier *supplier;
	struct dcistat_evcnt *handle; /* NULL once detached */
	struct event_counter_object *parent;
	Py_ssize_t children; /* attached ones, which keep this attached */
	PyObject *group;
	PyObject *name;
} event_counter_object;

static int
event_counter_usable(event_counter_object *self)
{
	if (pydci_supplier_usable(self->supplier) != 0)
		return -1;
	if (self->handle == NULL) {
		PyErr_SetString(
		    PyExc_RuntimeError, "the event counter was detached");
		return -1;
	}
	return 0;
}

static PyObject *
event_counter_increment(event_counter_object *self, PyObject *unused)
{
	if (event_counter_usable(self) != 0)
		return NULL;
	dcistat_evcnt_increment(self->handle);
	Py_RETURN_NONE;
}

static PyObject *
event_counter_add(event_counter_object *self, PyObject *amount_object)
{
	uint64_t amount;

	if (event_counter_usable(self) != 0 ||
	    pydci_u64(amount_object, "amount", &amount) != 0)
		return NULL;
	dcistat_evcnt_add(self->handle, amount);
	Py_RETURN_NONE;
}

static PyObject *
event_counter_detach(event_counter_object *self, PyObject *unused)
{
	if (event_counter_usable(self) != 0)
		return NULL;
	if (dcistat_evcnt_detach(self->handle) != 0)
		return pydci_raise_library(errno);
	self->handle = NULL;
	if (self->parent != NULL) {
		self->parent->children--;
		Py_CLEAR(self->parent);
	}
	Py_RETURN_NONE;
}

static PyObject *
event_counter_get_group(event_counter_object *self, void *unused)
{
	Py_INCREF(self->group);
	return self->group;
}

static PyObject *
event_counter_get_name(event_counter_object *self, void *unused)
{
	Py_INCREF(self->name);
	return self->name;
}

static PyObject *
event_counter_get_parent(event_counter_object *self, void *unused)
{
	PyObject *parent =
	    self->parent != NULL ? (PyObject *)self->parent : Py_None;

	Py_INCREF(parent);
	return parent;
}

static void
event_counter_dealloc(event_counter_object *self)
{
	/* Still attached: it stays in the segment (evcnt(9) counters live as
	 * long as what they count); the supplier's close frees it. */
	Py_XDECREF(self->parent);
	Py_XDECREF(self->supplier);
	Py_XDECREF(self->group);
	Py_XDECREF(self->name);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef event_counter_methods[] = {
    {"increment", (PyCFunction)event_counter_increment, METH_NOARGS,
        "increment()\n--\n\nCounts one event (evcnt.ev_count++)."},
    {"add", (PyCFunction)event_counter_add, METH_O,
        "add(amount)\n--\n\nCounts `amount` events (an int 0 .. "
        "2**64 - 1)."},
    {"detach", (PyCFunction)event_counter_detach, METH_NOARGS,
        "detach()\n--\n\nRemoves the counter (evcnt_detach): refused "
        "(OSError EBUSY) while a child is attached."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef event_counter_getset[] = {
    {"group", (getter)event_counter_get_group, NULL, "evcnt group", NULL},
    {"name", (getter)event_counter_get_name, NULL, "evcnt name", NULL},
    {"parent", (getter)event_counter_get_parent, NULL,
        "the parent counter, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject pydci_event_counter_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "dcistat.EventCounter",
    .tp_basicsize = sizeof(event_counter_object),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An evcnt(9) event counter (Supplier.event_counter); a "
              "counter attached under another is its child in the tree "
              "served.",
    .tp_dealloc = (destructor)event_counter_dealloc,
    .tp_methods = event_counter_methods,
    .tp_getset = event_counter_getset,
};

PyObject *
pydci_event_counter_new(
    pydci_supplier *supplier, PyObject *args, PyObject *keywords)
{
	static char *names[] = {"group", "name", "parent", "type", NULL};
	PyObject *group_object, *name_object, *parent_object = Py_None;
	int type = DCISTAT_EVCNT_TYPE_MISC;
	event_counter_object *parent = NULL, *counter;
	const char *group, *name;

	if (!PyArg_ParseTupleAndKeywords(args, keywords, "UU|Oi", names,
	        &group_object, &name_object, &parent_object, &type) ||
	    pydci_supplier_usable(supplier) != 0)
		return NULL;
	group = pydci_text(group_object, "group", DCI_LABEL_MAX);
	name = pydci_text(name_object, "name", DCI_LABEL_MAX);
	if (group == NULL || name == NULL)
		return NULL;
	if (type < DCISTAT_EVCNT_TYPE_MISC || type > DCISTAT_EVCNT_TYPE_TRAP) {
		PyErr_Format(PyExc_ValueError,
		    "type %d is none of EVCNT_MISC, EVCNT_INTR, EVCNT_TRAP",
		    type);
		return NULL;
	}
	if (parent_object != Py_None) {
		if (!PyObject_TypeCheck(
		        parent_object, &pydci_event_counter_type)) {
			PyErr_Format(PyExc_TypeError,
			    "parent must be an EventCounter, not %.100s",
			    Py_TYPE(parent_object)->tp_name);
			return NULL;
		}
		parent = (event_counter_object *)parent_object;
		if (parent->supplier != supplier) {
			PyErr_SetString(PyExc_ValueError,
			    "the parent belongs to another supplier");
			return NULL;
		}
		if (event_counter_usable(parent) != 0)
			return NULL;
	}
	counter = PyObject_New(event_counter_object, &pydci_event_counter_type);
	if (counter == NULL)
		return NULL;
	Py_INCREF(supplier);
	counter->supplier = supplier;
	Py_INCREF(group_object);
	counter->group = group_object;
	Py_INCREF(name_object);
	counter->name = name_object;
	counter->parent = NULL;
	counter->children = 0;
	errno = 0;
	counter->handle = dcistat_evcnt_attach(supplier->handle,
	    (enum dcistat_evcnt_type)type,
	    parent != NULL ? parent->handle : NULL, group, name);
	if (counter->handle == NULL) {
		int error_number = errno;

		Py_DECREF(counter);
		return pydci_raise_library(error_number);
	}
	if (parent != NULL) {
		Py_INCREF(parent);
		counter->parent = parent;
		parent->children++;
	}
	return (PyObject *)counter;
}

int
pydci_event_counter_ready(PyObject *module)
{
	if (PyType_Ready(&pydci_event_counter_type) < 0)
		return -1;
	return PyModule_AddObjectRef(
	    module, "EventCounter", (PyObject *)&pydci_event_counter_type);
}
