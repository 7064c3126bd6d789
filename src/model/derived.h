/*
 * Derived metrics (UMA_DERIVED): the formulas, applied to the values of one
 * instance's arguments. The registry checks a derived datum's declaration
 * (registry.c); the snapshot commit evaluates it for every instance
 * (snapshot.c), so a derived value always comes from one refresh.
 *
 * A result with no defined value gives no row rather than a wrong number:
 * division by zero, an argument without a value (the caller's check), an
 * overflow, a negative difference of unsigned values, a negative count.
 * Nothing here allocates or keeps state.
 */
#ifndef DCISTAT_DERIVED_H
#define DCISTAT_DERIVED_H

#include <dcistat/provider.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DCI_DERIVED_ARGUMENTS_MAX 3

/* One argument's value: an unsigned datum's `number`, or a signed datum's
 * `signed_number`. */
struct dci_derived_argument {
	bool is_signed;
	uint64_t number;
	int64_t signed_number;
};

/* An integer result (sums, difference, product) is unsigned when every
 * argument is, and then in `number`; otherwise it is `signed_number`.
 * A ratio (average, percent, variance) is always `signed_number`, in
 * hundredths rounded half away from zero. */
struct dci_derived_result {
	bool is_signed;
	uint64_t number;
	int64_t signed_number;
};

/* The number of arguments a derivation takes: 2, or 3 for SUM3 and
 * VARIANCE; 0 for a unit that is not a derivation. */
size_t dci_derived_arity(enum dci_unit derivation);

/* Whether the derivation's value is a ratio served in hundredths. */
bool dci_derived_is_ratio(enum dci_unit derivation);

/* The argument numbers packed in a derived datum's id (UMA: arg1, arg2 and
 * arg3 in bits 31-24, 23-16 and 15-8, each the low 8 bits of another
 * datum's id in the class; the low 8 bits are the derived datum's own). */
static inline uint32_t
dci_derived_argument_byte(uint32_t datum_id, size_t argument)
{
	return (datum_id >> (24 - 8 * argument)) & 0xffu;
}

/* Evaluates `derivation` over dci_derived_arity(derivation) arguments.
 * `wraps`: the result is a sum of counters, which wraps modulo 2^64 as a
 * counter does instead of having no value. Returns true with *result, or
 * false when the result has no value (see above). */
bool dci_derived_compute(enum dci_unit derivation,
    const struct dci_derived_argument *arguments, bool wraps,
    struct dci_derived_result *result);

/*
 * Evaluation at commit. A plan holds, for each derived datum of a class,
 * what its evaluation needs from the class (where each argument's slot and
 * presence bit are, its width, byte order and signedness; the formula's
 * arity), looked up once per commit rather than once per value; applying
 * it to an instance reads the arguments straight from the instance's
 * record.
 */
struct dci_class;
struct dci_derived_plan;

/* The plan of `class`'s derived datums, or NULL when out of memory. */
struct dci_derived_plan *dci_derived_plan_new(const struct dci_class *class);
void dci_derived_plan_free(struct dci_derived_plan *plan);

/* Computes every derived datum of one instance from its `record` of
 * values and its `present` bits (the class's layout): a derived datum
 * with an argument absent, or no defined result, is marked absent; one
 * with a value has it stored and is marked present.
 * `previous_record` and `previous_present` are the same instance in the
 * class's previous snapshot, or NULL: a derived datum whose arguments
 * have the same presence and bytes there takes its slot and presence from
 * there instead of being evaluated again (the same result, without the
 * formula: gauges and idle counters do not change between two
 * refreshes). A datum whose arguments keep changing from one instance to
 * the next is compared at a sample of instances only; the plan keeps
 * that count, so it serves one commit, applied in instance order. */
void dci_derived_plan_apply(struct dci_derived_plan *plan,
    unsigned char *record, unsigned char *present,
    const unsigned char *previous_record,
    const unsigned char *previous_present);

#endif
