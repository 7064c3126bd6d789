/*
 * Families of labelled instances and their members (pydcistat.h,
 * pydci_family and pydci_member): what a Metric and a Histogram, and
 * their instances, do alike.
 */
#include "pydcistat.h"

#include <errno.h>

PyObject *
pydci_family_get_name(pydci_family *self, void *unused)
{
	Py_INCREF(self->name);
	return self->name;
}

int
pydci_family_traverse(pydci_family *self, visitproc visit, void *arg)
{
	Py_VISIT(self->members);
	Py_VISIT(self->default_member);
	return 0;
}

int
pydci_family_clear(pydci_family *self)
{
	Py_CLEAR(self->default_member);
	Py_CLEAR(self->members);
	return 0;
}

void
pydci_family_dealloc(pydci_family *self)
{
	PyObject_GC_UnTrack(self);
	pydci_family_clear(self);
	Py_XDECREF(self->name);
	Py_XDECREF(self->supplier);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

PyObject *
pydci_family_member(pydci_family *self, PyObject *label)
{
	const struct pydci_member_operations *operations = self->operations;
	pydci_member *member;
	const char *text;

	if (pydci_supplier_usable(self->supplier) != 0)
		return NULL;
	member = (pydci_member *)PyDict_GetItemWithError(self->members, label);
	if (member != NULL) {
		Py_INCREF(member);
		return (PyObject *)member;
	}
	if (PyErr_Occurred())
		return NULL;
	text = pydci_text(label, "label", DCI_LABEL_MAX);
	if (text == NULL)
		return NULL;
	member = PyObject_GC_New(pydci_member, operations->type);
	if (member == NULL)
		return NULL;
	Py_INCREF(self);
	member->family = (PyObject *)self;
	Py_INCREF(label);
	member->label = label;
	PyObject_GC_Track(member);
	errno = 0;
	if (operations->add(self, member, text) != 0) {
		int error_number = errno;

		Py_DECREF(member);
		return pydci_raise_library(error_number);
	}
	if (PyDict_SetItem(self->members, label, (PyObject *)member) < 0) {
		operations->remove(member);
		Py_DECREF(member);
		return NULL;
	}
	return (PyObject *)member;
}

PyObject *
pydci_family_default(pydci_family *self)
{
	if (self->default_member == NULL)
		self->default_member = pydci_family_member(self, self->name);
	return self->default_member;
}

PyObject *
pydci_family_member_to_remove(pydci_family *self, PyObject *label)
{
	PyObject *member;

	if (pydci_supplier_usable(self->supplier) != 0)
		return NULL;
	member = PyDict_GetItemWithError(self->members, label);
	if (member == NULL && !PyErr_Occurred())
		PyErr_SetObject(PyExc_KeyError, label);
	return member;
}

PyObject *
pydci_family_forget(pydci_family *self, PyObject *member, PyObject *label)
{
	if (member == self->default_member)
		Py_CLEAR(self->default_member);
	if (PyDict_DelItem(self->members, label) < 0)
		return NULL;
	Py_RETURN_NONE;
}

PyObject *
pydci_member_get_label(pydci_member *self, void *unused)
{
	Py_INCREF(self->label);
	return self->label;
}

int
pydci_member_traverse(pydci_member *self, visitproc visit, void *arg)
{
	Py_VISIT(self->family);
	return 0;
}

int
pydci_member_clear(pydci_member *self)
{
	Py_CLEAR(self->family);
	return 0;
}

void
pydci_member_dealloc(pydci_member *self)
{
	PyObject_GC_UnTrack(self);
	pydci_member_clear(self);
	Py_XDECREF(self->label);
	Py_TYPE(self)->tp_free((PyObject *)self);
}
