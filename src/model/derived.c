#include "model/derived.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/registry.h"
#include "model/value.h"

size_t
dci_derived_arity(enum dci_unit derivation)
{
	switch (derivation) {
	case DCI_UNIT_DERIVED_SUM2:
	case DCI_UNIT_DERIVED_DIFFERENCE:
	case DCI_UNIT_DERIVED_AVERAGE:
	case DCI_UNIT_DERIVED_PERCENT:
	case DCI_UNIT_DERIVED_PRODUCT:
		return 2;
	case DCI_UNIT_DERIVED_SUM3:
	case DCI_UNIT_DERIVED_VARIANCE:
		return 3;
	default:
		return 0;
	}
}

bool
dci_derived_is_ratio(enum dci_unit derivation)
{
	return derivation == DCI_UNIT_DERIVED_AVERAGE ||
	       derivation == DCI_UNIT_DERIVED_PERCENT ||
	       derivation == DCI_UNIT_DERIVED_VARIANCE;
}

enum integer_operation { INTEGER_ADD, INTEGER_SUBTRACT, INTEGER_MULTIPLY };

/* `left op right` in 64 bits, as unsigned or as signed (the bits of an
 * int64_t, which both operands are then): true when the exact result does
 * not fit. */
static bool
overflows(enum integer_operation operation, bool is_signed, uint64_t left,
    uint64_t right, uint64_t *result)
{
	int64_t signed_left = is_signed ? (int64_t)left : 0;
	int64_t signed_right = is_signed ? (int64_t)right : 0, signed_result;
	bool overflow;

	switch (operation) {
	case INTEGER_ADD:
		overflow = is_signed
		               ? __builtin_add_overflow(
		                     signed_left, signed_right, &signed_result)
		               : __builtin_add_overflow(left, right, result);
		break;
	case INTEGER_SUBTRACT:
		overflow = is_signed
		               ? __builtin_sub_overflow(
		                     signed_left, signed_right, &signed_result)
		               : __builtin_sub_overflow(left, right, result);
		break;
	default:
		overflow = is_signed
		               ? __builtin_mul_overflow(
		                     signed_left, signed_right, &signed_result)
		               : __builtin_mul_overflow(left, right, result);
		break;
	}
	if (is_signed)
		*result = (uint64_t)signed_result;
	return overflow;
}

/* The integer formulas (sums, difference, product): over unsigned values
 * when every argument is unsigned, else in int64_t (an unsigned argument
 * above INT64_MAX has no value then). Exact, or no value; only a sum of
 * counters (`wraps`) keeps its value modulo 2^64. */
static bool
compute_integer(enum dci_unit derivation,
    const struct dci_derived_argument *arguments, size_t arity, bool wraps,
    struct dci_derived_result *result)
{
	uint64_t values[DCI_DERIVED_ARGUMENTS_MAX] = {0, 0, 0}, value;
	bool is_signed = false, overflow;

	for (size_t i = 0; i < arity; i++)
		is_signed |= arguments[i].is_signed;
	for (size_t i = 0; i < arity; i++) {
		if (arguments[i].is_signed)
			values[i] = (uint64_t)arguments[i].signed_number;
		else if (is_signed && arguments[i].number > INT64_MAX)
			return false;
		else
			values[i] = arguments[i].number;
	}
	switch (derivation) {
	case DCI_UNIT_DERIVED_SUM2:
		overflow = overflows(
		    INTEGER_ADD, is_signed, values[0], values[1], &value);
		break;
	case DCI_UNIT_DERIVED_SUM3:
		overflow = overflows(
		    INTEGER_ADD, is_signed, values[0], values[1], &value);
		overflow |=
		    overflows(INTEGER_ADD, is_signed, value, values[2], &value);
		break;
	case DCI_UNIT_DERIVED_DIFFERENCE:
		/* A negative unsigned difference has no value. */
		if (overflows(INTEGER_SUBTRACT, is_signed, values[0], values[1],
		        &value))
			return false;
		overflow = false;
		break;
	case DCI_UNIT_DERIVED_PRODUCT:
		if (overflows(INTEGER_MULTIPLY, is_signed, values[0], values[1],
		        &value))
			return false;
		overflow = false;
		break;
	default:
		return false;
	}
	/* The wrapped sum is what the counters' sum reads modulo 2^64. */
	if (overflow && (is_signed || !wraps))
		return false;
	result->is_signed = is_signed;
	if (is_signed)
		result->signed_number = (int64_t)value;
	else
		result->number = value;
	return true;
}

/* Wide enough for any 64-bit argument, signed or not, for the sum of two
 * and for 100 times either, so that averages and percents are exact over
 * the whole range. */
__extension__ typedef __int128 wide_signed;
__extension__ typedef unsigned __int128 wide_unsigned;

static wide_signed
wide_argument(const struct dci_derived_argument *argument)
{
	return argument->is_signed ? (wide_signed)argument->signed_number
	                           : (wide_signed)argument->number;
}

static wide_unsigned
wide_magnitude(wide_signed value)
{
	return value < 0 ? (wide_unsigned)(-value) : (wide_unsigned)value;
}

/* 100 * numerator / denominator in hundredths, rounded half away from
 * zero: true with *hundredths set; false (no value) when the denominator
 * is 0 or the result is beyond the range the variance's path also
 * refuses. */
static bool
exact_hundredths(
    wide_signed numerator, wide_signed denominator, int64_t *hundredths)
{
	wide_unsigned top = wide_magnitude(numerator) * 100;
	wide_unsigned bottom = wide_magnitude(denominator);
	wide_unsigned quotient, remainder;

	if (bottom == 0)
		return false;
	if (top <= UINT64_MAX && bottom <= UINT64_MAX) {
		/* The usual case, in one 64-bit division rather than the
		 * library's 128-bit ones. */
		uint64_t narrow_top = (uint64_t)top,
		         narrow_bottom = (uint64_t)bottom;
		uint64_t narrow_remainder = narrow_top % narrow_bottom;

		quotient = narrow_top / narrow_bottom;
		remainder = narrow_remainder;
	} else {
		quotient = top / bottom;
		remainder = top % bottom;
	}
	/* Half or more of the divisor left: away from zero. */
	if (remainder >= bottom - remainder)
		quotient++;
	if (quotient > (wide_unsigned)(INT64_MAX / 2))
		return false;
	*hundredths = (numerator < 0) != (denominator < 0) ? -(int64_t)quotient
	                                                   : (int64_t)quotient;
	return true;
}

/* The variance in long double, which holds every 64-bit integer exactly
 * where it has a 64-bit mantissa (x86) and to 53 bits elsewhere. */
static long double
argument_value(const struct dci_derived_argument *argument)
{
	return argument->is_signed ? (long double)argument->signed_number
	                           : (long double)argument->number;
}

static bool
compute_ratio(enum dci_unit derivation,
    const struct dci_derived_argument *arguments, int64_t *hundredths)
{
	long double first, second, value, mean;

	switch (derivation) {
	case DCI_UNIT_DERIVED_AVERAGE:
		return exact_hundredths(wide_argument(&arguments[0]),
		    wide_argument(&arguments[1]), hundredths);
	case DCI_UNIT_DERIVED_PERCENT:
		/* 100 * arg1 / (arg1 + arg2), a percent in hundredths. */
		return exact_hundredths(wide_argument(&arguments[0]) * 100,
		    wide_argument(&arguments[0]) + wide_argument(&arguments[1]),
		    hundredths);
	case DCI_UNIT_DERIVED_VARIANCE:
		/* arg1 a count, arg2 a sum, arg3 a sum of squares: the
		 * population variance E[x^2] - E[x]^2. */
		first = argument_value(&arguments[0]);
		second = argument_value(&arguments[1]);
		if (first <= 0)
			return false;
		mean = second / first;
		value = argument_value(&arguments[2]) / first - mean * mean;
		if (value < 0) {
			/* Rounding of a variance of 0 may leave a tiny
			 * negative; anything larger means the arguments do
			 * not describe one sample. */
			if (value < -1e-9L * (mean * mean + 1))
				return false;
			value = 0;
		}
		break;
	default:
		return false;
	}
	value = roundl(value * 100);
	if (!isfinite(value) || value > (long double)INT64_MAX / 2 ||
	    value < (long double)INT64_MIN / 2)
		return false;
	*hundredths = (int64_t)value;
	return true;
}

bool
dci_derived_compute(enum dci_unit derivation,
    const struct dci_derived_argument *arguments, bool wraps,
    struct dci_derived_result *result)
{
	size_t arity = dci_derived_arity(derivation);

	*result = (struct dci_derived_result){0};
	if (arity == 0)
		return false;
	if (dci_derived_is_ratio(derivation)) {
		result->is_signed = true;
		return compute_ratio(
		    derivation, arguments, &result->signed_number);
	}
	return compute_integer(derivation, arguments, arity, wraps, result);
}

/* --- Evaluation at commit ------------------------------------------------- */

struct derived_argument_plan {
	uint32_t offset; /* of the argument's slot in a record */
	uint32_t index;  /* its presence bit */
	uint32_t width;  /* bytes, as served (a widened counter: 4) */
	bool big_endian;
	bool is_signed;
};

struct derived_datum_plan {
	const struct dci_datum *datum;
	size_t arity;
	struct derived_argument_plan arguments[DCI_DERIVED_ARGUMENTS_MAX];
	/* Instances in a row, during this commit, whose arguments differed
	 * from the previous snapshot's (derived_worth_comparing). */
	uint32_t changed_in_a_row;
};

struct dci_derived_plan {
	size_t count;
	size_t applied; /* instances so far */
	struct derived_datum_plan datums[];
};

/* A derived datum whose arguments changed at this many instances in a row
 * is compared with the previous snapshot at one instance in
 * DERIVED_PROBE_INTERVAL only, until a comparison finds them unchanged: a
 * class whose arguments change at every refresh (busy counters) then pays
 * for the comparison at a few instances rather than at each. */
#define DERIVED_CHANGES_BEFORE_PROBING 4u
#define DERIVED_PROBE_INTERVAL 32u

struct dci_derived_plan *
dci_derived_plan_new(const struct dci_class *class)
{
	struct dci_derived_plan *plan = malloc(
	    sizeof(*plan) + class->derived_count * sizeof(plan->datums[0]));

	if (plan == NULL)
		return NULL;
	plan->count = 0;
	plan->applied = 0;
	for (size_t d = 0; d < class->datum_count; d++) {
		const struct dci_datum *datum = &class->datums[d];
		struct derived_datum_plan *entry;

		if (datum->info.type != DCI_ST_DERIVED ||
		    plan->count == class->derived_count)
			continue;
		entry = &plan->datums[plan->count++];
		entry->datum = datum;
		entry->arity = dci_derived_arity(datum->info.unit);
		entry->changed_in_a_row = 0;
		for (size_t a = 0; a < entry->arity; a++) {
			const struct dci_datum *argument =
			    &class->datums[datum->arguments[a]];

			entry->arguments[a] = (struct derived_argument_plan){
			    .offset = argument->offset,
			    .index = argument->index,
			    .width = argument->info.size,
			    .big_endian = (argument->info.format &
			                      DCI_SIF_BIGENDIAN) != 0,
			    .is_signed =
			        (argument->info.format & DCI_SIF_UNSIGNED) == 0,
			};
		}
	}
	return plan;
}

void
dci_derived_plan_free(struct dci_derived_plan *plan)
{
	free(plan);
}

static bool
bit_set(const unsigned char *present, uint32_t index)
{
	return (present[index / 8] >> (index % 8)) & 1;
}

/* The low `width` bytes of `raw` as two's complement, without converting
 * an out-of-range unsigned to a signed type. */
static int64_t
sign_extended(uint64_t raw, uint32_t width)
{
	uint64_t mask =
	    width >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * width)) - 1;
	uint64_t sign_bit = UINT64_C(1) << (8 * width - 1);

	raw &= mask;
	if ((raw & sign_bit) == 0)
		return (int64_t)raw;
	return -(int64_t)(~raw & mask) - 1;
}

/* Reads the arguments of one derived datum; false when one is absent. */
static bool
arguments_read(const struct derived_datum_plan *entry,
    const unsigned char *record, const unsigned char *present,
    struct dci_derived_argument *arguments)
{
	for (size_t a = 0; a < entry->arity; a++) {
		const struct derived_argument_plan *argument =
		    &entry->arguments[a];
		uint64_t raw;

		if (!bit_set(present, argument->index))
			return false;
		raw = dci_value_load_unsigned(record + argument->offset,
		    argument->width, argument->big_endian);
		arguments[a] = (struct dci_derived_argument){
		    .is_signed = argument->is_signed,
		    .number = raw,
		    .signed_number = argument->is_signed
		                         ? sign_extended(raw, argument->width)
		                         : 0,
		};
	}
	return true;
}

/* Stores a result in its derived datum's slot, 8 bytes little-endian as
 * value.h describes ST_DERIVED: any unsigned result of an unsigned datum,
 * a signed one of a signed datum within Integer32. A result outside that
 * range has no value (false). The registry makes a derived datum
 * unsigned exactly when its results are (derived_resolve), so the
 * signedness always agrees. */
static bool
result_store(const struct dci_datum *datum,
    const struct dci_derived_result *result, unsigned char *slot)
{
	bool unsigned_datum = (datum->info.format & DCI_SIF_UNSIGNED) != 0;

	if (result->is_signed == unsigned_datum)
		return false;
	if (!result->is_signed) {
		dci_value_store_unsigned(slot, 8, false, result->number);
		return true;
	}
	if (result->signed_number < INT32_MIN ||
	    result->signed_number > INT32_MAX)
		return false;
	dci_value_store_unsigned(
	    slot, 8, false, (uint64_t)result->signed_number);
	return true;
}

/* Whether every argument of `entry` has the same presence and, when
 * present, the same bytes in `record` as in `previous_record`: then the
 * datum's result is the previous one, since a result is a function of its
 * arguments' served bytes and presence alone. */
static bool
arguments_unchanged(const struct derived_datum_plan *entry,
    const unsigned char *record, const unsigned char *present,
    const unsigned char *previous_record, const unsigned char *previous_present)
{
	for (size_t a = 0; a < entry->arity; a++) {
		const struct derived_argument_plan *argument =
		    &entry->arguments[a];
		bool is_present = bit_set(present, argument->index);

		if (is_present != bit_set(previous_present, argument->index))
			return false;
		if (is_present &&
		    dci_value_load_unsigned(record + argument->offset,
		        argument->width, argument->big_endian) !=
		        dci_value_load_unsigned(
		            previous_record + argument->offset, argument->width,
		            argument->big_endian))
			return false;
	}
	return true;
}

/* Whether to compare the arguments of `entry` with the previous
 * snapshot's at this instance (see DERIVED_CHANGES_BEFORE_PROBING). */
static bool
derived_worth_comparing(
    const struct dci_derived_plan *plan, const struct derived_datum_plan *entry)
{
	return entry->changed_in_a_row < DERIVED_CHANGES_BEFORE_PROBING ||
	       plan->applied % DERIVED_PROBE_INTERVAL == 0;
}

void
dci_derived_plan_apply(struct dci_derived_plan *plan, unsigned char *record,
    unsigned char *present, const unsigned char *previous_record,
    const unsigned char *previous_present)
{
	for (size_t d = 0; d < plan->count; d++) {
		struct derived_datum_plan *entry = &plan->datums[d];
		const struct dci_datum *datum = entry->datum;
		struct dci_derived_argument
		    arguments[DCI_DERIVED_ARGUMENTS_MAX];
		struct dci_derived_result result;
		unsigned char bit = (unsigned char)(1u << (datum->index % 8));

		present[datum->index / 8] &= (unsigned char)~bit;
		if (previous_record != NULL &&
		    derived_worth_comparing(plan, entry)) {
			if (arguments_unchanged(entry, record, present,
			        previous_record, previous_present)) {
				/* The slot as the previous evaluation left
				 * it (zero without a value), so the record
				 * is byte for byte the one an evaluation
				 * would write. */
				memcpy(record + datum->offset,
				    previous_record + datum->offset,
				    datum->info.size);
				present[datum->index / 8] |=
				    previous_present[datum->index / 8] & bit;
				entry->changed_in_a_row = 0;
				continue;
			}
			entry->changed_in_a_row++;
		}
		if (arguments_read(entry, record, present, arguments) &&
		    dci_derived_compute(
		        datum->info.unit, arguments, datum->wraps, &result) &&
		    result_store(datum, &result, record + datum->offset))
			present[datum->index / 8] |= bit;
	}
	plan->applied++;
}
