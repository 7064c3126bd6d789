/*
 * The `dcistat._dcistat` extension: Python objects over
 * libdcistat-supplier (dcistat/supplier.h). Shared by its files: the
 * supplier object every other object keeps alive and checks, the fork
 * guard, argument conversion and errors.
 *
 * Every object calls the library with the GIL held; the update paths take
 * no lock of their own and release nothing, so each update is one call of
 * the library's lock-free update functions from whatever OS thread runs the
 * Python code (each OS thread adds into its own region of the segment).
 */
#ifndef PYDCISTAT_H
#define PYDCISTAT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dcistat/supplier.h>
#include <stdbool.h>
#include <stdint.h>

/* Counts fork()s in this process's ancestry as seen from the child: a
 * supplier remembers the count of the process that opened it, and a
 * forked child (whose count differs) neither writes nor closes the
 * parent's segment. */
extern uint64_t pydci_fork_generation;

/* A supplier whose `generation` is this is closed. */
#define PYDCI_CLOSED UINT64_MAX

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	struct dcistat_supplier *handle;
	uint64_t generation; /* pydci_fork_generation at open, or
	                        PYDCI_CLOSED */
	long owner_pid;
	PyObject *name;
	uint32_t number;
	uint32_t classes_added;   /* generic classes: relative id 16 + n */
	uint32_t templates_added; /* VOI templates: number 1 + n */
	int termination_slot;     /* pydci_termination_add's, or -1 */
} pydci_supplier;

/* The segments removed if SIGTERM's default action ends the process
 * (termination.c): at most this many open at once are. */
#define PYDCI_TERMINATION_SLOTS 64

/* Adds the segment at `path` of this process; its slot, or -1 when the
 * table is full (the segment then waits for dcistatd). */
int pydci_termination_add(const char *path);

/* Removes a slot pydci_termination_add gave (-1: none), before the segment
 * is closed. */
void pydci_termination_remove(int slot);

extern PyTypeObject pydci_supplier_type;
extern PyTypeObject pydci_metric_type;
extern PyTypeObject pydci_instance_type;
extern PyTypeObject pydci_histogram_type;
extern PyTypeObject pydci_histogram_blob_type;
extern PyTypeObject pydci_event_counter_type;
extern PyTypeObject pydci_device_type;
extern PyTypeObject pydci_transaction_type;

/* 0 when `supplier` may be written by this process; else -1 with
 * RuntimeError set (closed, or opened by the parent of a fork). */
static inline int
pydci_supplier_usable(const pydci_supplier *supplier)
{
	if (supplier->generation == pydci_fork_generation)
		return 0;
	if (supplier->generation == PYDCI_CLOSED)
		PyErr_SetString(PyExc_RuntimeError, "the supplier is closed");
	else
		PyErr_Format(PyExc_RuntimeError,
		    "this supplier belongs to process %ld, which forked this "
		    "one: a child does not write its parent's segment (open a "
		    "Supplier of its own)",
		    supplier->owner_pid);
	return -1;
}

/* Raises the library's last failure of this thread: ValueError for a bad
 * argument (EINVAL), else OSError with its errno (PermissionError,
 * FileExistsError ... by errno). Returns NULL. */
PyObject *pydci_raise_library(int error_number);

/* A label or name as a NUL-terminated UTF-8 string of 1..`max` bytes
 * without an inner NUL; NULL with ValueError or TypeError set. The text
 * lives as long as `object`. */
const char *pydci_text(PyObject *object, const char *what, size_t max);

/* Integer arguments, range-checked with their name in the message: -1 with
 * TypeError (not an int), OverflowError or ValueError set. */
int pydci_u64(PyObject *object, const char *what, uint64_t *value);
int pydci_i64(PyObject *object, const char *what, int64_t *value);
int pydci_u32(PyObject *object, const char *what, uint32_t *value);

/* A DCI unit from its name ("bytes", "microseconds", ... as enum dci_unit
 * without the prefix, lower case) or None; -1 with ValueError set. */
int pydci_unit(PyObject *object, enum dci_unit *unit);

/*
 * A family of labelled instances (a Metric, a Histogram) and its members
 * (its Instances, HistogramInstances) start with these heads (family.c).
 * A family holds its members in a table of labels and each member keeps
 * its family alive: the cycle is the collector's, so both are GC types
 * whose traverse, clear and dealloc are the ones below.
 */
struct pydci_member_operations;

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	pydci_supplier *supplier;
	PyObject *name;
	PyObject *members;        /* label -> member */
	PyObject *default_member; /* labelled as the family; made at its
	                             first unlabelled update */
	const struct pydci_member_operations *operations;
} pydci_family;

typedef struct {
	PyObject ob_base; /* PyObject_HEAD */
	PyObject *family;
	PyObject *label;
} pydci_member;

PyObject *pydci_family_get_name(pydci_family *self, void *unused);
int pydci_family_traverse(pydci_family *self, visitproc visit, void *arg);
int pydci_family_clear(pydci_family *self);
void pydci_family_dealloc(pydci_family *self);

/* How a family adds the library's side of a new member (a stats(3) blob,
 * an instance) labelled `text`: 0, or -1 with errno set. And how it
 * removes it again. */
struct pydci_member_operations {
	PyTypeObject *type;
	int (*add)(
	    pydci_family *family, pydci_member *member, const char *text);
	void (*remove)(pydci_member *member);
};

/* The member labelled `label` (a new reference), made with the family's
 * operations at its first use; NULL with the library's or Python's error
 * set. The method labels(label) of every family. */
PyObject *pydci_family_member(pydci_family *self, PyObject *label);

/* The member labelled as the family (borrowed), made at the first call;
 * NULL with the error set. */
PyObject *pydci_family_default(pydci_family *self);

/* The member labelled `label` (borrowed), to remove it; NULL with
 * KeyError (no such member) or the supplier's error set. */
PyObject *pydci_family_member_to_remove(pydci_family *self, PyObject *label);

/* Forgets the member labelled `label`, removed from the library: out of
 * the table, and no longer the default. Returns None, or NULL with the
 * table's error. */
PyObject *pydci_family_forget(
    pydci_family *self, PyObject *member, PyObject *label);

PyObject *pydci_member_get_label(pydci_member *self, void *unused);
int pydci_member_traverse(pydci_member *self, visitproc visit, void *arg);
int pydci_member_clear(pydci_member *self);
void pydci_member_dealloc(pydci_member *self);

/* Types of each file, readied by the module. */
int pydci_metric_ready(PyObject *module);
int pydci_histogram_ready(PyObject *module);
int pydci_event_counter_ready(PyObject *module);
int pydci_device_ready(PyObject *module);
/* The consumer's libdci connection type (consumer.c). */
int pydci_consumer_ready(PyObject *module);

/* Factories the supplier's methods call. */
PyObject *pydci_metric_new(
    pydci_supplier *supplier, PyObject *args, PyObject *keywords, int kind);
PyObject *pydci_histogram_new(
    pydci_supplier *supplier, PyObject *args, PyObject *keywords);
PyObject *pydci_event_counter_new(
    pydci_supplier *supplier, PyObject *args, PyObject *keywords);
PyObject *pydci_device_new(
    pydci_supplier *supplier, PyObject *args, PyObject *keywords);

/* Kinds of a generic metric. */
enum pydci_metric_kind {
	PYDCI_COUNTER = 0,
	PYDCI_GAUGE = 1,
	PYDCI_FLOAT_GAUGE = 2, /* hundredths, served as DCI_UNIT_HUNDREDTHS */
};

#endif
